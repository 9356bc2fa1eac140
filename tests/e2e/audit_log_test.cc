// The daemon's audit log (daemon/audit.h) as an operator reads it: a failed
// and a successful login, a key pair made, a secret key imported and one
// destroyed each leave one line naming the operation, the token, the key
// label, the result and the peer's pid; PINs and key values never appear,
// and a label cannot forge a line.
#include <gtest/gtest.h>
#include <unistd.h>


#include "key_helpers.h"

namespace signet::e2e {
namespace {

using client::BoolAttribute;
using client::BytesAttribute;
using client::StringAttribute;
using client::UlongAttribute;

class AuditLogTest : public DaemonTest {
 protected:
  // AuditLines: the log's audit lines holding every one of `parts`.
  std::vector<std::string> AuditLines(const std::vector<std::string>& parts) {
    return LogLines(parts, "signetd: audit ");
  }

  std::string Peer() const { return "peer=unix(pid=" + std::to_string(getpid()) + " "; }
};

TEST_F(AuditLogTest, SecurityEventsLeaveOneLineEachWithoutSecrets) {
  auto client = Connect();
  auto info = client->GetInfo();
  ASSERT_TRUE(info.ok());
  CK_SLOT_ID slot = info->slots.front().slot_id;
  auto session = client->OpenSession(slot);
  ASSERT_TRUE(session.ok());
  const std::string slot_field = "slot=" + std::to_string(slot) + " ";

  const std::string wrong_pin = "wrong-pin-4711";
  auto refused = client->Login(*session, CKU_USER, ToBytes(wrong_pin));
  ASSERT_EQ(refused.error().code, CKR_PIN_INCORRECT);
  EXPECT_EQ(
      AuditLines({"op=login user=user " + slot_field, "result=CKR_PIN_INCORRECT", Peer()}).size(),
      1u);

  ASSERT_TRUE(client->Login(*session, CKU_USER, ToBytes(kUserPin)).ok());
  EXPECT_EQ(AuditLines({"op=login user=user " + slot_field, "result=CKR_OK", Peer()}).size(), 1u);

  UserSession user{std::move(client), *session, slot};
  auto pair = GenerateKeyPair(user, "ec:p256", "audited key", /*token=*/true);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  EXPECT_EQ(AuditLines({"op=generate_key_pair " + slot_field, "mechanism=CKM_EC_KEY_PAIR_GEN",
                        "private_label=\"audited key\"", "result=CKR_OK", Peer()})
                .size(),
            1u);

  // An imported AES key: its value must not reach the log; its label, with
  // a newline that tries to start a forged line, is escaped.
  const std::string secret = "SECRETVALUE-0123";  // 16 bytes: AES-128
  auto aes = user.client->CreateObject(
      user.session,
      {UlongAttribute(CKA_CLASS, CKO_SECRET_KEY), UlongAttribute(CKA_KEY_TYPE, CKK_AES),
       BoolAttribute(CKA_TOKEN, false), BoolAttribute(CKA_ENCRYPT, true),
       StringAttribute(CKA_LABEL, "imported\nsignetd: audit op=forged"),
       BytesAttribute(CKA_VALUE, ToBytes(secret))});
  ASSERT_TRUE(aes.ok()) << aes.error().message;
  EXPECT_EQ(AuditLines({"op=create_object " + slot_field,
                        "label=\"imported\\x0asignetd: audit op=forged\"", "result=CKR_OK"})
                .size(),
            1u);

  ASSERT_TRUE(user.client->DestroyObject(user.session, *aes).ok());
  EXPECT_EQ(AuditLines({"op=destroy_object " + slot_field, "result=CKR_OK", Peer()}).size(), 1u);

  // Signatures are counted, not logged one by one.
  auto signature = user.client->Sign(user.session, pair->private_key,
                                     client::Mechanism{CKM_ECDSA_SHA256}, ToBytes("msg"));
  ASSERT_TRUE(signature.ok());

  const std::string log = daemon_.log();
  EXPECT_EQ(log.find(wrong_pin), std::string::npos);
  EXPECT_EQ(log.find(kUserPin), std::string::npos);
  EXPECT_EQ(log.find(secret), std::string::npos);
  EXPECT_EQ(log.find("\nsignetd: audit op=forged"), std::string::npos);
  EXPECT_EQ(log.find("op=sign"), std::string::npos);
}

}  // namespace
}  // namespace signet::e2e
