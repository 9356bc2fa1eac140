// The access model of issue 10 against a real signetd: a connection that
// never logged in cannot replace the owner's public key (defect 2); only an
// admin peer creates tokens (defect 5); PIN guesses are throttled and
// audited with their peer, and a locked SO PIN is recovered offline with
// `signet admin unlock-so` (defect 4).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "key_helpers.h"

namespace signet::e2e {
namespace {

using client::BytesAttribute;
using client::StringAttribute;
using client::UlongAttribute;

constexpr const char* kLabel = "owner-key";

class AccessTest : public DaemonTest {
 protected:
  // Stranger: a connection with a R/W session that never logs in.
  UserSession Stranger() {
    UserSession s;
    s.client = Connect();
    auto info = s.client->GetInfo();
    if (!info.ok() || info->slots.empty()) {
      ADD_FAILURE() << "GetInfo failed";
      return s;
    }
    s.slot = info->slots.front().slot_id;
    auto session = s.client->OpenSession(s.slot);
    EXPECT_TRUE(session.ok());
    s.session = session.ok() ? *session : 0;
    return s;
  }
};

// Defect 2, the attack as found: without a login, destroy the owner's
// public key, plant another under its label, relabel; `signet pubkey` then
// printed the attacker's key.
TEST_F(AccessTest, StrangerCannotReplaceTheOwnersPublicKey) {
  ProgramResult keygen =
      Signet({"keygen", "--type", "ec:p256", "--label", kLabel, "--pin", kUserPin});
  ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  ProgramResult before = Signet({"pubkey", "--label", kLabel});
  ASSERT_EQ(before.exit_code, 0) << before.err;

  UserSession stranger = Stranger();
  auto found = stranger.client->FindObjects(
      stranger.session,
      {StringAttribute(CKA_LABEL, kLabel), UlongAttribute(CKA_CLASS, CKO_PUBLIC_KEY)});
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  const client::Handle owners = found->front();

  Status destroyed = stranger.client->DestroyObject(stranger.session, owners);
  ASSERT_FALSE(destroyed.ok());
  EXPECT_EQ(destroyed.error().code, CKR_USER_NOT_LOGGED_IN);

  auto attacker = crypto::PrivateKey::Generate(crypto::KeySpec{crypto::KeyType::kEcP256});
  ASSERT_TRUE(attacker.ok());
  auto point = attacker->Public()->EcPoint();
  ASSERT_TRUE(point.ok());
  client::Bytes der_point(2 + point->size());  // DER OCTET STRING
  der_point[0] = 0x04;
  der_point[1] = static_cast<std::uint8_t>(point->size());
  std::copy(point->begin(), point->end(), der_point.begin() + 2);
  auto planted = stranger.client->CreateObject(
      stranger.session,
      {UlongAttribute(CKA_CLASS, CKO_PUBLIC_KEY), UlongAttribute(CKA_KEY_TYPE, CKK_EC),
       client::BoolAttribute(CKA_TOKEN, true), StringAttribute(CKA_LABEL, kLabel),
       BytesAttribute(CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)),
       BytesAttribute(CKA_EC_POINT, der_point)});
  ASSERT_FALSE(planted.ok());
  EXPECT_EQ(planted.error().code, CKR_USER_NOT_LOGGED_IN);

  Status relabelled = stranger.client->SetAttributeValue(stranger.session, owners,
                                                         {StringAttribute(CKA_LABEL, "renamed")});
  ASSERT_FALSE(relabelled.ok());
  EXPECT_EQ(relabelled.error().code, CKR_USER_NOT_LOGGED_IN);

  // Filling the token with data objects fails the same way.
  auto data = stranger.client->CreateObject(
      stranger.session,
      {UlongAttribute(CKA_CLASS, CKO_DATA), client::BoolAttribute(CKA_TOKEN, true),
       BytesAttribute(CKA_VALUE, client::Bytes(256 << 10, 0x41))});
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().code, CKR_USER_NOT_LOGGED_IN);

  ProgramResult after = Signet({"pubkey", "--label", kLabel});
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(after.out, before.out);
}

// The compatibility switch gives one token the spec's public R/W writes.
TEST_F(AccessTest, CompatSwitchAllowsPublicWritesOnThatTokenOnly) {
  auto info = Connect()->GetInfo();
  ASSERT_TRUE(info.ok());
  const std::string serial = info->slots.front().serial;
  ASSERT_EQ(daemon_.Terminate(), 0);
  StartDaemon({"--public-rw-compat", serial});
  UserSession stranger = Stranger();
  auto data = stranger.client->CreateObject(
      stranger.session, {UlongAttribute(CKA_CLASS, CKO_DATA),
                         client::BoolAttribute(CKA_TOKEN, true), StringAttribute(CKA_LABEL, "d")});
  ASSERT_TRUE(data.ok()) << data.error().message;
  EXPECT_TRUE(stranger.client->DestroyObject(stranger.session, *data).ok());
}

// The core's limits are signetd flags (defaults in core/limits.h).
TEST_F(AccessTest, LimitFlagsBoundSessionsSessionObjectsAndTheToken) {
  ASSERT_EQ(daemon_.Terminate(), 0);
  StartDaemon({"--max-sessions-per-connection", "2", "--max-session-objects", "1",
               "--token-max-objects", "1"});
  UserSession stranger = Stranger();
  auto second = stranger.client->OpenSession(stranger.slot);
  ASSERT_TRUE(second.ok()) << second.error().message;
  auto third = stranger.client->OpenSession(stranger.slot);
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.error().code, CKR_SESSION_COUNT);
  const client::Template data = {UlongAttribute(CKA_CLASS, CKO_DATA),
                                 StringAttribute(CKA_LABEL, "d")};
  ASSERT_TRUE(stranger.client->CreateObject(stranger.session, data).ok());
  auto over = stranger.client->CreateObject(*second, data);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().code, CKR_DEVICE_MEMORY);

  auto user = OpenUserSession();
  ASSERT_TRUE(user.ok()) << user.error().message;
  client::Template token_data = data;
  token_data.push_back(client::BoolAttribute(CKA_TOKEN, true));
  ASSERT_TRUE(user->client->CreateObject(user->session, token_data).ok());
  auto full = user->client->CreateObject(user->session, token_data);
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error().code, CKR_DEVICE_MEMORY);
}

// Defect 5: the daemon's own uid may create tokens over the Unix socket.
TEST_F(AccessTest, DaemonOwnerCreatesTokensThroughTheDaemon) {
  ProgramResult made =
      Signet({"init", "--label", "second", "--so-pin", "second-so", "--pin", "second-user"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_NE(made.out.find("of the running signetd"), std::string::npos) << made.out;
}

// Defect 4: a third guess at once is refused without a PIN check, and
// every line of the audit log names the peer.
TEST_F(AccessTest, PinGuessesAreThrottledAndAudited) {
  // A delay far longer than a CLI run, so a slow machine (a sanitizer
  // build: each run takes over 0.5 s) cannot outlast it between guesses.
  ASSERT_EQ(daemon_.Terminate(), 0);
  StartDaemon({"--login-delay-base-ms", "600000"});
  for (const char* guess : {"wrong-guess-1", "wrong-guess-2"}) {  // the first is free
    ProgramResult checked = Signet({"list", "--pin", guess});
    EXPECT_EQ(checked.exit_code, 1);
    EXPECT_NE(checked.err.find("CKR_PIN_INCORRECT"), std::string::npos) << checked.err;
  }
  ProgramResult second = Signet({"list", "--pin", "wrong-guess-3"});
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_NE(second.err.find("CKR_FUNCTION_FAILED"), std::string::npos) << second.err;
  EXPECT_NE(second.err.find("try again in"), std::string::npos) << second.err;
  // The refusal's line is the last written: once it is read, all are.
  EXPECT_EQ(LogLines({"audit op=login", "result=CKR_FUNCTION_FAILED", "peer=unix("}).size(), 1u);
  EXPECT_EQ(LogLines({"audit op=login", "result=CKR_PIN_INCORRECT", "peer=unix("}).size(), 2u);
  // Only the first guess counted against the PIN.
  auto info = Connect()->GetInfo();
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->slots.front().flags & CKF_USER_PIN_COUNT_LOW);
  EXPECT_FALSE(info->slots.front().flags & CKF_USER_PIN_FINAL_TRY);
}

class UnlockSoTest : public DaemonTest {
 protected:
  // No throttle: the test locks the SO PIN with ten quick guesses.
  std::vector<std::string> DaemonArgs() override { return {"--login-delay-base-ms", "0"}; }
};

TEST_F(UnlockSoTest, LockedSoPinIsRecoveredOfflineOnly) {
  ProgramResult last;
  for (int i = 0; i < 10; ++i) {
    last = Signet({"init-pin", "--so-pin", "wrong-so-pin", "--new-pin", "new-user-pin"});
  }
  EXPECT_NE(last.err.find("CKR_PIN_LOCKED"), std::string::npos) << last.err;
  ProgramResult locked = Signet({"init-pin", "--so-pin", kSoPin, "--new-pin", "new-user-pin"});
  EXPECT_NE(locked.err.find("CKR_PIN_LOCKED"), std::string::npos) << locked.err;

  // Not while the daemon serves the directory.
  ProgramResult refused = Signet({"admin", "unlock-so"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("running"), std::string::npos) << refused.err;

  ASSERT_EQ(daemon_.Terminate(), 0);
  ProgramResult unlocked = Signet({"admin", "unlock-so"});
  ASSERT_EQ(unlocked.exit_code, 0) << unlocked.err;
  EXPECT_NE(unlocked.out.find(kTokenLabel), std::string::npos) << unlocked.out;
  StartDaemon(DaemonArgs());
  ProgramResult reset = Signet({"init-pin", "--so-pin", kSoPin, "--new-pin", "new-user-pin"});
  ASSERT_EQ(reset.exit_code, 0) << reset.err;
  EXPECT_EQ(Signet({"list", "--pin", "new-user-pin"}).exit_code, 0);
}

TEST_F(UnlockSoTest, UnlockSoNamesItsTokenAndSkipsADamagedFile) {
  ASSERT_EQ(daemon_.Terminate(), 0);
  WriteTextFile(data_dir() + "/0123456789abcdef.token", "not a token");
  ProgramResult other = Signet({"admin", "unlock-so", "--token", "no-such-token"});
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("CKR_TOKEN_NOT_PRESENT"), std::string::npos) << other.err;
  ProgramResult unlocked = Signet({"admin", "unlock-so", "--token", kTokenLabel});
  EXPECT_EQ(unlocked.exit_code, 0) << unlocked.err;
  EXPECT_NE(unlocked.out.find(kTokenLabel), std::string::npos) << unlocked.out;
  EXPECT_NE(unlocked.err.find("skipping"), std::string::npos) << unlocked.err;
  std::filesystem::remove(data_dir() + "/0123456789abcdef.token");
}

// Defect 5 over TLS: a client certificate is no admin.
class AccessTlsTest : public DaemonTest {
 protected:
  std::vector<std::string> DaemonArgs() override { return TlsTestPki(); }
};

TEST_F(AccessTlsTest, NonAdminPeerCannotCreateTokens) {
  client::ConnectOptions options;
  options.address = "tcp://127.0.0.1:" + std::to_string(TcpPort());
  options.tls_ca_file = Path("ca.pem");
  options.tls_cert_file = Path("client.pem");
  options.tls_key_file = Path("client.key");
  auto client = client::Client::Connect(options);
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto info = (*client)->GetInfo();
  ASSERT_TRUE(info.ok());
  ASSERT_EQ(info->slots.size(), 2u);
  auto made =
      (*client)->InitToken(info->slots.back().slot_id, AsBytes("attacker-so"), "attacker");
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().code, CKR_TOKEN_WRITE_PROTECTED);
  EXPECT_NE(made.error().message.find("admin"), std::string::npos) << made.error().message;
  EXPECT_EQ((*client)->GetInfo()->slots.size(), 2u);
}

}  // namespace
}  // namespace signet::e2e
