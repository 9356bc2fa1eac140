// signetd SIGKILLed in the middle of a stream of key generations and then
// restarted: every key pair whose generation was acknowledged is on the
// token and signs.
#include <gtest/gtest.h>

#include <deque>

#include "key_helpers.h"

namespace signet::e2e {
namespace {

constexpr int kAckedBeforeKill = 24;  // acknowledged generations before SIGKILL
constexpr int kWindow = 6;            // generations in flight at any time

const char* SpecFor(int n) { return n % 3 == 2 ? "ed25519" : "ec:p256"; }

class CrashRecoveryTest : public DaemonTest {};

TEST_F(CrashRecoveryTest, AcknowledgedKeysSurviveSigkill) {
  auto user = OpenUserSession();
  ASSERT_TRUE(user.ok()) << user.error().message;

  // Pipeline generations so some are in flight when the daemon dies.
  std::vector<int> acknowledged;
  std::deque<std::pair<int, client::Pending<client::KeyPair>>> in_flight;
  int next = 0;
  bool killed = false;
  auto send_one = [&] {
    crypto::KeySpec spec = *crypto::ParseKeySpec(SpecFor(next));
    std::string label = "crash-" + std::to_string(next);
    client::Template pub = {client::BoolAttribute(CKA_TOKEN, true),
                            client::StringAttribute(CKA_LABEL, label),
                            client::BytesAttribute(CKA_EC_PARAMS, crypto::EcParamsDer(spec.type))};
    client::Template priv = {client::BoolAttribute(CKA_TOKEN, true),
                             client::StringAttribute(CKA_LABEL, label),
                             client::BoolAttribute(CKA_SIGN, true),
                             client::BoolAttribute(CKA_PRIVATE, true)};
    client::Mechanism mechanism{spec.type == crypto::KeyType::kEd25519 ? CKM_EC_EDWARDS_KEY_PAIR_GEN
                                                                       : CKM_EC_KEY_PAIR_GEN};
    auto ticket = user->client->SendGenerateKeyPair(user->session, mechanism, pub, priv);
    if (ticket.ok()) in_flight.emplace_back(next, *ticket);
    ++next;
    return ticket.ok();
  };
  for (int i = 0; i < kWindow; ++i) ASSERT_TRUE(send_one());
  while (!in_flight.empty()) {
    auto [n, ticket] = in_flight.front();
    in_flight.pop_front();
    auto pair = user->client->Wait(ticket);
    if (pair.ok()) {
      acknowledged.push_back(n);
    } else {
      ASSERT_TRUE(killed) << "generation failed before the kill: " << pair.error().message;
    }
    if (!killed && static_cast<int>(acknowledged.size()) == kAckedBeforeKill) {
      daemon_.Kill();  // generations still in flight
      killed = true;
    }
    if (!killed) send_one();
  }
  ASSERT_TRUE(killed);
  ASSERT_GE(acknowledged.size(), static_cast<std::size_t>(kAckedBeforeKill));
  user->client.reset();

  StartDaemon();
  auto after = OpenUserSession();
  ASSERT_TRUE(after.ok()) << after.error().message;
  crypto::SignParams ed25519{crypto::SignScheme::kEddsa};
  crypto::SignParams ecdsa{crypto::SignScheme::kEcdsa, crypto::DigestAlg::kSha256};
  ecdsa.ecdsa_format = crypto::EcdsaFormat::kRaw;
  client::Bytes message = ToBytes("after the crash");
  for (int n : acknowledged) {
    std::string label = "crash-" + std::to_string(n);
    SCOPED_TRACE(label);
    auto priv = FindByLabel(*after, label, CKO_PRIVATE_KEY);
    auto pub = FindByLabel(*after, label, CKO_PUBLIC_KEY);
    ASSERT_TRUE(priv.ok() && pub.ok());
    ASSERT_EQ(priv->size(), 1u);
    ASSERT_EQ(pub->size(), 1u);
    bool is_ed = std::string(SpecFor(n)) == "ed25519";
    auto signature = after->client->Sign(after->session, priv->front(),
                                         client::Mechanism{is_ed ? CKM_EDDSA : CKM_ECDSA_SHA256},
                                         message);
    ASSERT_TRUE(signature.ok()) << signature.error().message;
    auto public_key = ReadPublicKey(*after, pub->front());
    ASSERT_TRUE(public_key.ok());
    EXPECT_TRUE(crypto::Verify(*public_key, is_ed ? ed25519 : ecdsa, message, *signature).ok());
  }
}

}  // namespace
}  // namespace signet::e2e
