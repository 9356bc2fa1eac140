// The seeds' "owner" check: a session key (CKA_TOKEN false) belongs to the
// connection that made it. Another client can neither see nor use it, and
// it disappears with its session and its connection.
#include <gtest/gtest.h>

#include <array>

#include "key_helpers.h"

namespace signet::e2e {
namespace {

constexpr const char* kLabel = "a-session-key";

bool IsHandleError(CK_RV rv) {
  return rv == CKR_OBJECT_HANDLE_INVALID || rv == CKR_KEY_HANDLE_INVALID;
}

class SessionIsolationTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    auto a = OpenUserSession();
    ASSERT_TRUE(a.ok()) << a.error().message;
    a_ = std::move(*a);
    auto b = OpenUserSession();
    ASSERT_TRUE(b.ok()) << b.error().message;
    b_ = std::move(*b);
    auto pair = GenerateKeyPair(a_, "ec:p256", kLabel, /*token=*/false);
    ASSERT_TRUE(pair.ok()) << pair.error().message;
    pair_ = *pair;
  }

  UserSession a_, b_;
  client::KeyPair pair_;
  const client::Bytes message_ = ToBytes("isolation");
  const client::Mechanism ecdsa_{CKM_ECDSA_SHA256};
};

TEST_F(SessionIsolationTest, OwnerSeesAndUsesItsSessionKey) {
  auto found = FindByLabel(a_, kLabel, CKO_PRIVATE_KEY);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, std::vector<client::Handle>{pair_.private_key});
  auto signature = a_.client->Sign(a_.session, pair_.private_key, ecdsa_, message_);
  ASSERT_TRUE(signature.ok()) << signature.error().message;
  auto public_key = ReadPublicKey(a_, pair_.public_key);
  ASSERT_TRUE(public_key.ok());
  crypto::SignParams raw{crypto::SignScheme::kEcdsa, crypto::DigestAlg::kSha256};
  raw.ecdsa_format = crypto::EcdsaFormat::kRaw;
  EXPECT_TRUE(crypto::Verify(*public_key, raw, message_, *signature).ok());
}

TEST_F(SessionIsolationTest, OtherClientCannotFindIt) {
  auto by_label = b_.client->FindObjects(b_.session, {client::StringAttribute(CKA_LABEL, kLabel)});
  ASSERT_TRUE(by_label.ok()) << by_label.error().message;
  EXPECT_TRUE(by_label->empty());
  auto everything = b_.client->FindObjects(b_.session, {});
  ASSERT_TRUE(everything.ok());
  EXPECT_TRUE(everything->empty()) << everything->size() << " objects visible to B";
}

TEST_F(SessionIsolationTest, OtherClientCannotUseItsHandles) {
  auto signature = b_.client->Sign(b_.session, pair_.private_key, ecdsa_, message_);
  ASSERT_FALSE(signature.ok());
  EXPECT_TRUE(IsHandleError(signature.error().code)) << signature.error().code;

  constexpr std::array<CK_ATTRIBUTE_TYPE, 1> kLabelType = {CKA_LABEL};
  auto attributes = b_.client->GetAttributeValue(b_.session, pair_.public_key, kLabelType);
  ASSERT_FALSE(attributes.ok());
  EXPECT_EQ(attributes.error().code, CKR_OBJECT_HANDLE_INVALID);

  Status destroyed = b_.client->DestroyObject(b_.session, pair_.private_key);
  ASSERT_FALSE(destroyed.ok());
  EXPECT_EQ(destroyed.error().code, CKR_OBJECT_HANDLE_INVALID);
  // ... and the owner's key survived B's attempt.
  EXPECT_TRUE(a_.client->Sign(a_.session, pair_.private_key, ecdsa_, message_).ok());
}

TEST_F(SessionIsolationTest, OtherClientCannotUseItsSession) {
  auto signature = b_.client->Sign(a_.session, pair_.private_key, ecdsa_, message_);
  ASSERT_FALSE(signature.ok());
  EXPECT_EQ(signature.error().code, CKR_SESSION_HANDLE_INVALID);
  Status closed = b_.client->CloseSession(a_.session);
  ASSERT_FALSE(closed.ok());
  EXPECT_EQ(closed.error().code, CKR_SESSION_HANDLE_INVALID);
}

TEST_F(SessionIsolationTest, ClosingTheSessionDestroysItsObjects) {
  ASSERT_TRUE(a_.client->CloseSession(a_.session).ok());
  auto session = a_.client->OpenSession(a_.slot);
  ASSERT_TRUE(session.ok()) << session.error().message;
  a_.session = *session;  // login is per connection: still logged in
  auto found = FindByLabel(a_, kLabel, CKO_PRIVATE_KEY);
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_TRUE(found->empty());
  auto signature = a_.client->Sign(a_.session, pair_.private_key, ecdsa_, message_);
  ASSERT_FALSE(signature.ok());
  EXPECT_TRUE(IsHandleError(signature.error().code)) << signature.error().code;
}

TEST_F(SessionIsolationTest, DisconnectEndsTheOwnersSessions) {
  auto before = b_.client->GetStats();
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->sessions, 2u);
  a_.client.reset();  // A hangs up
  // The daemon notices the hang-up on its own schedule: ask until it has
  // (each ask is a round trip; the bound only catches a daemon that never
  // cleans up).
  std::uint64_t sessions = 0;
  for (int attempt = 0; attempt < 100000; ++attempt) {
    auto stats = b_.client->GetStats();
    ASSERT_TRUE(stats.ok());
    sessions = stats->sessions;
    if (sessions == 1) break;
  }
  EXPECT_EQ(sessions, 1u);
  auto c = OpenUserSession();
  ASSERT_TRUE(c.ok());
  auto found = c->client->FindObjects(c->session, {client::StringAttribute(CKA_LABEL, kLabel)});
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE(found->empty());
}

}  // namespace
}  // namespace signet::e2e
