// Issue 10 defect 12: one damaged token file must not stop signetd. The
// daemon starts, serves the healthy token, names the damaged file and why in
// its log and in `signet stats`; it refuses to start only with --strict or
// when no token at all can be served.
#include <filesystem>
#include <fstream>

#include "daemon_fixture.h"

namespace signet::e2e {
namespace {

class DamagedTokenTest : public DaemonTest {
 protected:
  // SetUpTwoTokens adds token "healthy" through the daemon, stops it, and
  // returns the path of the fixture's first token (made before "healthy").
  std::string SetUpTwoTokens() {
    std::vector<std::filesystem::path> before;
    for (const auto& entry : std::filesystem::directory_iterator(data_dir())) {
      if (entry.path().extension() == ".token") before.push_back(entry.path());
    }
    EXPECT_EQ(before.size(), 1u);
    ProgramResult init =
        Signet({"init", "--label", "healthy", "--so-pin", "so-healthy", "--pin", "user-healthy"});
    EXPECT_EQ(init.exit_code, 0) << init.err;
    EXPECT_EQ(daemon_.Terminate(), 0) << daemon_.log();
    return before.empty() ? std::string() : before[0].string();
  }
};

TEST_F(DamagedTokenTest, DaemonServesTheHealthyTokenAndNamesTheDamagedFile) {
  std::string damaged = SetUpTwoTokens();
  ASSERT_FALSE(damaged.empty());
  std::ofstream(damaged, std::ios::binary | std::ios::trunc) << std::string(8192, '\x42');

  StartDaemon();
  ASSERT_TRUE(daemon_.running());
  std::string log = daemon_.log();
  EXPECT_NE(log.find(damaged), std::string::npos) << log;
  EXPECT_NE(log.find("not a signet token"), std::string::npos) << log;
  EXPECT_EQ(log.find("PIN not initialised"), std::string::npos) << log;

  // The healthy token is the default now (the damaged one has no slot), and signs.
  ProgramResult keygen =
      Signet({"keygen", "--type", "ec:p256", "--label", "alive", "--pin", "user-healthy"});
  ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  std::string msg = Path("msg.txt");
  WriteTextFile(msg, "a healthy token still signs\n");
  ProgramResult sign = Signet({"sign", "--label", "alive", "--mech", "ecdsa-sha256", "--in", msg,
                               "--out", Path("msg.sig"), "--pin", "user-healthy"});
  ASSERT_EQ(sign.exit_code, 0) << sign.err;
  ProgramResult verify = Signet({"verify", "--label", "alive", "--mech", "ecdsa-sha256", "--in",
                                 msg, "--sig", Path("msg.sig")});
  EXPECT_EQ(verify.exit_code, 0) << verify.err;

  ProgramResult stats = Signet({"stats"});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_NE(stats.out.find("unavailable token: token file " + damaged), std::string::npos)
      << stats.out;
}

TEST_F(DamagedTokenTest, StrictRefusesToStartWithADamagedToken) {
  std::string damaged = SetUpTwoTokens();
  ASSERT_FALSE(damaged.empty());
  std::filesystem::resize_file(damaged, 0);
  Daemon strict;
  std::string failure = strict.Start(data_dir(), socket_path(), {"--strict"});
  EXPECT_NE(failure, "") << "signetd --strict started with a damaged token";
  EXPECT_NE(failure.find(damaged), std::string::npos) << failure;
}

TEST_F(DamagedTokenTest, NoServableTokenIsFatal) {
  ASSERT_EQ(daemon_.Terminate(), 0);
  for (const auto& entry : std::filesystem::directory_iterator(data_dir())) {
    if (entry.path().extension() == ".token") std::filesystem::resize_file(entry.path(), 0);
  }
  Daemon daemon;
  std::string failure = daemon.Start(data_dir(), socket_path());
  EXPECT_NE(failure, "") << "signetd started with no servable token";
  EXPECT_NE(failure.find("no token could be opened"), std::string::npos) << failure;
}

}  // namespace
}  // namespace signet::e2e
