// Key migration between two daemons (issue 14): a key made --exportable on
// the source moves to the target's token through a transport key the
// source's SO trusted, and signs there (the openssl tool verifies against
// the public key exported before the move); a key that never allowed it,
// and a transport key the SO did not trust, are refused with the daemon's
// precise code.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "daemon_fixture.h"

namespace signet::e2e {
namespace {

class MigrateTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    target_data_ = Path("target");
    ProgramResult init =
        RunProgram({BinaryPath("signet"), "--data", target_data_, "init", "--label", "target",
                    "--kdf-n", "1024", "--so-pin", kSoPin, "--pin", kUserPin},
                   {{"SIGNET_SOCKET", ""}});
    ASSERT_EQ(init.exit_code, 0) << init.err;
    ASSERT_EQ(target_.Start(target_data_, Path("target.sock")), "");
  }
  void TearDown() override {
    EXPECT_EQ(target_.Terminate(), 0);
    DaemonTest::TearDown();
  }

  // Target runs the CLI against the target daemon with the user PIN.
  ProgramResult Target(std::vector<std::string> args) {
    std::vector<std::string> argv = {BinaryPath("signet"), "--socket", Path("target.sock"), "--pin",
                                     kUserPin};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProgram(argv);
  }
  ProgramResult Source(std::vector<std::string> args) {
    args.insert(args.end(), {"--pin", kUserPin});
    return Signet(args);
  }

  // TrustTargetTransportKey: the target makes "transport", the source's SO
  // trusts it.
  void TrustTargetTransportKey() {
    ProgramResult made = Target({"transport-key", "--label", "transport", "--out", Path("t.pem")});
    ASSERT_EQ(made.exit_code, 0) << made.err;
    ProgramResult trusted =
        Signet({"trust-key", "--in", Path("t.pem"), "--label", "transport", "--so-pin", kSoPin});
    ASSERT_EQ(trusted.exit_code, 0) << trusted.err;
  }

  std::string target_data_;
  Daemon target_;
};

TEST_F(MigrateTest, AnExportableKeyMovesAndSignsOnTheTarget) {
  TrustTargetTransportKey();
  ProgramResult keygen =
      Source({"keygen", "--type", "ec:p256", "--label", "moving", "--exportable"});
  ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  ProgramResult pubkey = Signet({"pubkey", "--label", "moving"});
  ASSERT_EQ(pubkey.exit_code, 0) << pubkey.err;
  WriteTextFile(Path("moving.pem"), pubkey.out);

  ProgramResult exported =
      Source({"export-key", "--label", "moving", "--to", "transport", "--out", Path("k.json")});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  ProgramResult imported = Target({"import-key", "--in", Path("k.json"), "--with", "transport"});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;

  WriteTextFile(Path("msg"), "signed on the target");
  ProgramResult sign = Target({"sign", "--label", "moving", "--mech", "ecdsa-sha256", "--in",
                               Path("msg"), "--out", Path("sig")});
  ASSERT_EQ(sign.exit_code, 0) << sign.err;
  ProgramResult verify = OpenSsl(
      {"dgst", "-sha256", "-verify", Path("moving.pem"), "-signature", Path("sig"), Path("msg")});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
}

TEST_F(MigrateTest, AKeyThatNeverAllowedItStays) {
  TrustTargetTransportKey();
  ProgramResult keygen = Source({"keygen", "--type", "ec:p256", "--label", "staying"});
  ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  ProgramResult exported =
      Source({"export-key", "--label", "staying", "--to", "transport", "--out", Path("k.json")});
  EXPECT_EQ(exported.exit_code, 1);
  EXPECT_NE(exported.err.find("CKR_KEY_UNEXTRACTABLE"), std::string::npos) << exported.err;
}

TEST_F(MigrateTest, AnUntrustedTransportKeyIsRefused) {
  // The source's own transport key: its public half was never trusted.
  ProgramResult made = Source({"transport-key", "--label", "untrusted", "--out", Path("u.pem")});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ProgramResult keygen =
      Source({"keygen", "--type", "ec:p256", "--label", "moving", "--exportable"});
  ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  ProgramResult exported =
      Source({"export-key", "--label", "moving", "--to", "untrusted", "--out", Path("k.json")});
  EXPECT_EQ(exported.exit_code, 1);
  EXPECT_NE(exported.err.find("CKR_KEY_NOT_WRAPPABLE"), std::string::npos) << exported.err;
}

}  // namespace
}  // namespace signet::e2e
