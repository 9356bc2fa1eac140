// The signet CLI as people and scripts expect a command-line tool to behave
// (issue 14, "A CLI that fits habits"): --version on both programs from the
// one version source, exit status 2 for bad usage and 1 for an operation
// that failed with the CK_RV name in the message.
#include <gtest/gtest.h>

#include <string>

#include "daemon_fixture.h"
#include "signet/version.hpp"

namespace signet::e2e {
namespace {

class CliHabitsTest : public DaemonTest {};

// The daemon's GetInfo and the programs' --version say the same version.
TEST_F(CliHabitsTest, BothProgramsReportTheProjectVersion) {
  ProgramResult signet = RunProgram({BinaryPath("signet"), "--version"});
  EXPECT_EQ(signet.exit_code, 0) << signet.err;
  EXPECT_EQ(signet.out, std::string("signet ") + kVersionString + "\n");
  ProgramResult signetd = RunProgram({BinaryPath("signetd"), "--version"});
  EXPECT_EQ(signetd.exit_code, 0) << signetd.err;
  EXPECT_EQ(signetd.out, std::string("signetd ") + kVersionString + "\n");
  auto client = Connect();
  Result<client::ServerInfo> info = client->GetInfo();
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->server_version, kVersionString);
}

TEST_F(CliHabitsTest, BadUsageExitsTwoAndAFailedOperationOneWithItsCkrName) {
  ProgramResult typo = Signet({"lsit"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("unknown command 'lsit'"), std::string::npos) << typo.err;
  ProgramResult missing = Signet({"keygen", "--label", "k"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--type"), std::string::npos) << missing.err;
  ProgramResult signetd = RunProgram({BinaryPath("signetd"), "--bogus"});
  EXPECT_EQ(signetd.exit_code, 2) << signetd.err;

  ProgramResult wrong_pin = Signet({"list", "--pin", "not-the-pin"});
  EXPECT_EQ(wrong_pin.exit_code, 1);
  EXPECT_NE(wrong_pin.err.find("signet list: CKR_PIN_INCORRECT"), std::string::npos)
      << wrong_pin.err;
  ProgramResult no_key = Signet({"pubkey", "--label", "no-such-key"});
  EXPECT_EQ(no_key.exit_code, 1);
  EXPECT_NE(no_key.err.find("CKR_OBJECT_HANDLE_INVALID"), std::string::npos) << no_key.err;
}

}  // namespace
}  // namespace signet::e2e
