// One daemon per keystore and per socket (issue 14, docs/SECURITY.md "One
// daemon per keystore"), against a real signetd: a second daemon on the
// same data directory or the same socket exits at once, non-zero, naming
// what it collided with; the first keeps serving on a socket that survives
// the second's exit; a socket left by a daemon killed with SIGKILL does not
// stop the next one.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "daemon_fixture.h"

namespace signet::e2e {
namespace {

class OneDaemonTest : public DaemonTest {
 protected:
  // SecondDaemon runs another signetd to its end (it must not get ready).
  ProgramResult SecondDaemon(const std::string& data_dir, const std::string& socket) {
    return RunProgram({BinaryPath("signetd"), "--data", data_dir, "--socket", socket});
  }

  // ExpectFirstStillServes: the first daemon answers on its socket.
  void ExpectFirstStillServes() {
    EXPECT_TRUE(std::filesystem::exists(socket_path()));
    ProgramResult stats = Signet({"stats"});
    EXPECT_EQ(stats.exit_code, 0) << stats.err;
  }
};

TEST_F(OneDaemonTest, ASecondDaemonOnTheDataDirExitsNamingTheFirst) {
  ProgramResult second = SecondDaemon(data_dir(), socket_path());
  EXPECT_NE(second.exit_code, 0);
  EXPECT_NE(second.err.find("in use by a running signetd on " + socket_path()), std::string::npos)
      << second.err;
  EXPECT_NE(second.err.find("(pid " + std::to_string(daemon_.pid()) + ")"), std::string::npos)
      << second.err;
  ExpectFirstStillServes();
}

TEST_F(OneDaemonTest, ASecondDaemonOnTheSocketExitsAndLeavesItAlone) {
  ProgramResult second = SecondDaemon(Path("other-data"), socket_path());
  EXPECT_NE(second.exit_code, 0);
  EXPECT_NE(second.err.find(socket_path() + " is in use by another running daemon"),
            std::string::npos)
      << second.err;
  ExpectFirstStillServes();
}

TEST_F(OneDaemonTest, TheSocketOfAKilledDaemonIsReplaced) {
  daemon_.Kill();
  ASSERT_TRUE(std::filesystem::exists(socket_path()));  // left behind
  Daemon next;
  std::string failure = next.Start(data_dir(), socket_path());
  ASSERT_EQ(failure, "");
  ProgramResult stats = Signet({"stats"});
  EXPECT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_EQ(next.Terminate(), 0);
  EXPECT_FALSE(std::filesystem::exists(socket_path()));  // its own, removed at exit
}

}  // namespace
}  // namespace signet::e2e
