// `signet migrate-keystore` (issue 18; docs/SCALING.md "Running it")
// between a data directory and a real PostgreSQL, with real signetd on
// both sides: a token made by `signet init`, with an EC and an RSA key pair
// and an AES key made through a signetd, is copied into PostgreSQL; a
// signetd on that keystore logs in with the same PINs, signs with the
// copied keys (checked by the openssl tool against the public keys
// exported before the copy) and encrypts with the AES key to the same
// ciphertext; copied back into a fresh data directory, it does the same
// again. The source file is not changed by a copy. A wrong PIN writes
// nothing anywhere; a label the destination already has is refused, as is
// a source directory that a signetd serves.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "key_helpers.h"
#include "postgres_server.h"

namespace signet::e2e {
namespace {

constexpr const char* kEcLabel = "ec-key";
constexpr const char* kRsaLabel = "rsa-key";
constexpr const char* kAesLabel = "aes-key";

class KeystoreMigrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!PostgresInstalled()) GTEST_SKIP() << "PostgreSQL is not installed (scripts/deps.sh)";
    ASSERT_EQ(server_.Start(), "");
    ProgramResult init =
        RunProgram({BinaryPath("signet"), "init", "--data", Path("source"), "--label", kTokenLabel,
                    "--so-pin", kSoPin, "--pin", kUserPin, "--kdf-n", "1024"});
    ASSERT_EQ(init.exit_code, 0) << init.err;
  }

  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }

  // Migrate runs `signet migrate-keystore --from FROM --to TO --label L`
  // with `pin_args` (the PIN flags) and `so_pin_env` as SIGNET_SO_PIN.
  ProgramResult Migrate(const std::string& from, const std::string& to,
                        const std::vector<std::string>& pin_args,
                        const std::string& so_pin_env = "") {
    std::vector<std::string> argv = {
        BinaryPath("signet"), "migrate-keystore", "--from", from, "--to", to, "--label",
        kTokenLabel};
    argv.insert(argv.end(), pin_args.begin(), pin_args.end());
    return RunProgram(argv, {{"SIGNET_PIN", ""}, {"SIGNET_SO_PIN", so_pin_env}});
  }

  // SignetAt runs the CLI against the daemon on `socket` as the user, on
  // the token labelled `label`.
  ProgramResult SignetAt(const std::string& socket, std::vector<std::string> args,
                         const std::string& label = kTokenLabel) {
    std::vector<std::string> argv = {
        BinaryPath("signet"), "--socket", socket, "--pin", kUserPin, "--token", "label:" + label};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProgram(argv);
  }

  // SourceFile: the one token file of the source data directory.
  std::string SourceFile() const {
    for (const auto& entry : std::filesystem::directory_iterator(Path("source"))) {
      if (entry.path().extension() == ".token") return entry.path().string();
    }
    return "";
  }

  // Session: a client session on the daemon at `socket`'s token, logged
  // in as `user` with `pin`.
  Result<UserSession> Session(const std::string& socket, CK_USER_TYPE user, const char* pin) {
    UserSession session;
    SIGNET_ASSIGN_OR_RETURN(session.client, client::Client::Connect({.address = socket}));
    SIGNET_ASSIGN_OR_RETURN(client::ServerInfo info, session.client->GetInfo());
    for (const client::SlotInfo& slot : info.slots) {
      // CK_TOKEN_INFO pads the label with blanks.
      const std::string label = slot.label.substr(0, slot.label.find_last_not_of(' ') + 1);
      if (slot.token_present && label == kTokenLabel) {
        session.slot = slot.slot_id;
      }
    }
    SIGNET_ASSIGN_OR_RETURN(session.session, session.client->OpenSession(session.slot));
    SIGNET_TRY(session.client->Login(session.session, user, AsBytes(pin)));
    return session;
  }

  // MakeKeys fills the source token through a signetd: an EC and an RSA
  // key pair (public keys saved as LABEL.pem) and an AES key, whose ECB
  // encryption of kBlock it returns.
  client::Bytes MakeKeys() {
    Daemon daemon;
    EXPECT_EQ(daemon.Start(Path("source"), Path("source.sock")), "");
    for (const auto& [type, label] : {std::pair{"ec:p256", kEcLabel}, {"rsa:2048", kRsaLabel}}) {
      ProgramResult keygen =
          SignetAt(Path("source.sock"), {"keygen", "--type", type, "--label", label});
      EXPECT_EQ(keygen.exit_code, 0) << keygen.err;
      ProgramResult pubkey = SignetAt(Path("source.sock"), {"pubkey", "--label", label});
      EXPECT_EQ(pubkey.exit_code, 0) << pubkey.err;
      WriteTextFile(Path(std::string(label) + ".pem"), pubkey.out);
    }
    client::Bytes ciphertext;
    auto user = Session(Path("source.sock"), CKU_USER, kUserPin);
    EXPECT_TRUE(user.ok()) << user.error().message;
    if (user.ok()) {
      auto aes = user->client->GenerateKey(
          user->session, client::Mechanism{CKM_AES_KEY_GEN},
          {client::BoolAttribute(CKA_TOKEN, true), client::UlongAttribute(CKA_VALUE_LEN, 32),
           client::StringAttribute(CKA_LABEL, kAesLabel), client::BoolAttribute(CKA_ENCRYPT, true),
           client::BoolAttribute(CKA_DECRYPT, true)});
      EXPECT_TRUE(aes.ok()) << aes.error().message;
      if (aes.ok()) ciphertext = Encrypt(*user);
    }
    EXPECT_EQ(daemon.Terminate(), 0) << daemon.log();
    return ciphertext;
  }

  // Encrypt: kBlock under the token's AES key (ECB: the same key gives the
  // same bytes); empty when it fails.
  client::Bytes Encrypt(UserSession& user) {
    auto keys = FindByLabel(user, kAesLabel, CKO_SECRET_KEY);
    if (!keys.ok() || keys->size() != 1) return {};
    auto out = user.client->Encrypt(user.session, keys->front(), client::Mechanism{CKM_AES_ECB},
                                    ToBytes(kBlock));
    return out.ok() ? *out : client::Bytes{};
  }

  // ExpectServes checks the token the daemon at `socket` serves: both PINs
  // log in, both key pairs sign (verified by openssl against the public
  // keys saved before any copy), the AES key encrypts to `ciphertext`.
  void ExpectServes(const std::string& socket, const client::Bytes& ciphertext) {
    WriteTextFile(Path("msg"), "signed after the copy");
    for (const auto& [label, mech] :
         {std::pair{kEcLabel, "ecdsa-sha256"}, {kRsaLabel, "rsa-pkcs1-sha256"}}) {
      ProgramResult sign = SignetAt(socket, {"sign", "--label", label, "--mech", mech, "--in",
                                             Path("msg"), "--out", Path("sig")});
      ASSERT_EQ(sign.exit_code, 0) << sign.err;
      ProgramResult verify =
          RunProgram({OpenSslPath(), "dgst", "-sha256", "-verify",
                      Path(std::string(label) + ".pem"), "-signature", Path("sig"), Path("msg")});
      EXPECT_EQ(verify.exit_code, 0) << label << ": " << verify.out << verify.err;
    }
    {
      auto user = Session(socket, CKU_USER, kUserPin);
      ASSERT_TRUE(user.ok()) << user.error().message;
      EXPECT_EQ(Encrypt(*user), ciphertext);
    }
    // The SO once the user's connection is gone (one user type at a time).
    auto so = Session(socket, CKU_SO, kSoPin);
    EXPECT_TRUE(so.ok()) << so.error().message;
  }

  static constexpr const char* kBlock = "sixteen bytes!!!";

  TempDir dir_;
  PostgresServer server_;
};

TEST_F(KeystoreMigrationTest, ATokenFileMovesIntoPostgresAndBackAndSignsWithTheSameKeys) {
  const client::Bytes ciphertext = MakeKeys();
  ASSERT_EQ(ciphertext.size(), 16u);
  const std::vector<std::uint8_t> source_before = ReadBinaryFile(SourceFile());

  // Another token's key pair takes PostgreSQL's first handles, so that no
  // copied object keeps its handle, either way: a secret not rewrapped for
  // its new handle would not unwrap.
  ProgramResult first =
      RunProgram({BinaryPath("signet"), "init", "--keystore", server_.uri(), "--label", "first",
                  "--so-pin", kSoPin, "--pin", kUserPin, "--kdf-n", "1024"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  {
    Daemon node;
    ASSERT_EQ(node.Start(Path("node"), Path("node.sock"), {"--keystore", server_.uri()}), "");
    ProgramResult keygen =
        SignetAt(Path("node.sock"), {"keygen", "--type", "ec:p256", "--label", "other"}, "first");
    ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
    ASSERT_EQ(node.Terminate(), 0) << node.log();
  }

  ProgramResult into = Migrate(Path("source"), server_.uri(), {"--pin", kUserPin});
  ASSERT_EQ(into.exit_code, 0) << into.err;
  EXPECT_NE(into.out.find("copied token 'e2e-token'"), std::string::npos) << into.out;
  EXPECT_NE(into.out.find("5 objects, 3 secrets rewrapped"), std::string::npos) << into.out;
  EXPECT_EQ(ReadBinaryFile(SourceFile()), source_before);

  Daemon node;
  ASSERT_EQ(node.Start(Path("node"), Path("node.sock"), {"--keystore", server_.uri()}), "");
  ExpectServes(Path("node.sock"), ciphertext);
  ASSERT_EQ(node.Terminate(), 0) << node.log();

  // Back, opened with the SO PIN this time (from the environment).
  ProgramResult back = Migrate(server_.uri(), Path("back"), {"--so"}, kSoPin);
  ASSERT_EQ(back.exit_code, 0) << back.err;
  Daemon restored;
  ASSERT_EQ(restored.Start(Path("back"), Path("back.sock")), "");
  ExpectServes(Path("back.sock"), ciphertext);
  EXPECT_EQ(restored.Terminate(), 0) << restored.log();
}

TEST_F(KeystoreMigrationTest, AWrongPinWritesNothing) {
  const std::vector<std::uint8_t> source_before = ReadBinaryFile(SourceFile());
  ProgramResult wrong = Migrate(Path("source"), Path("elsewhere"), {"--pin", "not-the-pin"});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.err.find("CKR_PIN_INCORRECT"), std::string::npos) << wrong.err;
  EXPECT_FALSE(std::filesystem::exists(Path("elsewhere")));
  ProgramResult wrong_so = Migrate(Path("source"), server_.uri(), {"--so-pin", kUserPin});
  EXPECT_EQ(wrong_so.exit_code, 1);
  EXPECT_NE(wrong_so.err.find("CKR_PIN_INCORRECT"), std::string::npos) << wrong_so.err;
  // The source counted no failure, and PostgreSQL got no token: the right
  // PIN then copies it.
  EXPECT_EQ(ReadBinaryFile(SourceFile()), source_before);
  ProgramResult right = Migrate(Path("source"), server_.uri(), {"--pin", kUserPin});
  EXPECT_EQ(right.exit_code, 0) << right.err;
}

TEST_F(KeystoreMigrationTest, ALabelTheDestinationHasIsRefused) {
  ProgramResult taken =
      RunProgram({BinaryPath("signet"), "init", "--keystore", server_.uri(), "--label", kTokenLabel,
                  "--so-pin", kSoPin, "--pin", kUserPin, "--kdf-n", "1024"});
  ASSERT_EQ(taken.exit_code, 0) << taken.err;
  ProgramResult into = Migrate(Path("source"), server_.uri(), {"--pin", kUserPin});
  EXPECT_EQ(into.exit_code, 1);
  EXPECT_NE(into.err.find("a token labelled 'e2e-token' already exists"), std::string::npos)
      << into.err;

  // The other way: a data directory with a token of that label.
  ProgramResult other =
      RunProgram({BinaryPath("signet"), "init", "--data", Path("other"), "--label", kTokenLabel,
                  "--so-pin", kSoPin, "--pin", kUserPin, "--kdf-n", "1024"});
  ASSERT_EQ(other.exit_code, 0) << other.err;
  ProgramResult back = Migrate(server_.uri(), Path("other"), {"--pin", kUserPin});
  EXPECT_EQ(back.exit_code, 1);
  EXPECT_NE(back.err.find("already"), std::string::npos) << back.err;
  // The same token twice: refused by its serial, the first copy untouched.
  ProgramResult first = Migrate(Path("source"), Path("copy"), {"--pin", kUserPin});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ProgramResult twice = Migrate(Path("source"), Path("copy"), {"--pin", kUserPin});
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_NE(twice.err.find("CKR_ARGUMENTS_BAD"), std::string::npos) << twice.err;
}

TEST_F(KeystoreMigrationTest, ASourceASignetdServesIsRefused) {
  Daemon daemon;
  ASSERT_EQ(daemon.Start(Path("source"), Path("source.sock")), "");
  ProgramResult busy = Migrate(Path("source"), server_.uri(), {"--pin", kUserPin});
  EXPECT_EQ(busy.exit_code, 1);
  EXPECT_NE(busy.err.find("stop signetd first"), std::string::npos) << busy.err;
  EXPECT_EQ(daemon.Terminate(), 0) << daemon.log();
}

}  // namespace
}  // namespace signet::e2e
