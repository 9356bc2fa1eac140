// DaemonProcess against stand-in daemons: small shell scripts that take
// signetd's arguments and behave as the case needs (get ready, exit first,
// never get ready, write more than the log keeps), so each outcome of Start
// is reached on purpose. The real signetd is started through DaemonProcess
// by every end-to-end test (tests/e2e/process.h) and by `signet bench`.
#include "daemon/daemon_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

namespace signet::daemon {
namespace {

class DaemonProcessChildTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "signet-daemon-process-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Script writes an executable /bin/sh script with `body` and returns its path.
  std::string Script(const std::string& body) {
    const std::string path = dir_ + "/fake-signetd";
    std::ofstream(path) << "#!/bin/sh\n" << body;
    chmod(path.c_str(), 0755);
    return path;
  }

  std::string Data() const { return dir_ + "/data"; }
  std::string Socket() const { return dir_ + "/s.sock"; }

  std::string dir_;
};

// A daemon that gets ready and stops cleanly on SIGTERM (its sleep is
// killed too, so nothing else holds the pipe open).
constexpr const char* kGood =
    "trap 'kill $child; echo \"fake: stopping\" >&2; exit 0' TERM\n"
    "sleep 600 2>/dev/null &\n"
    "child=$!\n"
    "echo \"fake: args $*\" >&2\n"
    "echo \"signetd: ready socket=$4\" >&2\n"
    "wait $child\n";

TEST_F(DaemonProcessChildTest, StartReturnsOnceTheReadyLineIsWritten) {
  DaemonProcess daemon;
  Status started = daemon.Start(Script(kGood), Data(), Socket(), {"--workers", "2"});
  ASSERT_TRUE(started.ok()) << started.error().message;
  EXPECT_TRUE(daemon.running());
  EXPECT_GT(daemon.pid(), 0);
  EXPECT_NE(
      daemon.log().find("fake: args --data " + Data() + " --socket " + Socket() + " --workers 2"),
      std::string::npos)
      << daemon.log();
  EXPECT_EQ(daemon.Terminate(), 0);
  EXPECT_FALSE(daemon.running());
  EXPECT_NE(daemon.log().find("fake: stopping"), std::string::npos) << daemon.log();
  EXPECT_EQ(daemon.Terminate(), -1) << "nothing left to stop";
}

// Any server: StartProgram passes argv as given and waits for its own
// ready line; signetd's is not enough.
TEST_F(DaemonProcessChildTest, StartProgramWaitsForTheGivenReadyLine) {
  DaemonProcess server;
  DaemonStartOptions options;
  options.ready_line = "ACCEPT ";
  options.bound = std::chrono::seconds(10);
  Status started = server.StartProgram(
      {Script("echo 'signetd: ready' >&2\necho \"ACCEPT $1\" >&2\nexec sleep 600\n"), "1.2.3.4:5"},
      options);
  ASSERT_TRUE(started.ok()) << started.error().message;
  EXPECT_TRUE(server.WaitForLog(
      [](const std::string& log) { return log.find("ACCEPT 1.2.3.4:5") != std::string::npos; },
      std::chrono::seconds(10)))
      << server.log();
  server.Kill();
  options.bound = std::chrono::milliseconds(200);
  EXPECT_FALSE(
      server.StartProgram({Script("echo 'signetd: ready' >&2\nexec sleep 600\n")}, options).ok());
}

TEST_F(DaemonProcessChildTest, ExitBeforeReadyIsAnErrorWithTheLog) {
  DaemonProcess daemon;
  Status started =
      daemon.Start(Script("echo 'fake: no such flag' >&2\nexit 2\n"), Data(), Socket());
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.error().code, CKR_DEVICE_ERROR);
  EXPECT_NE(started.error().message.find("exited before it was ready"), std::string::npos)
      << started.error().message;
  EXPECT_NE(started.error().message.find("fake: no such flag"), std::string::npos)
      << started.error().message;
  EXPECT_FALSE(daemon.running());
}

TEST_F(DaemonProcessChildTest, NotReadyWithinTheBoundIsKilled) {
  DaemonProcess daemon;
  DaemonStartOptions options;
  options.bound = std::chrono::milliseconds(100);
  Status started = daemon.Start(Script("echo 'fake: thinking' >&2\nexec sleep 600\n"), Data(),
                                Socket(), {}, options);
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.error().code, CKR_DEVICE_ERROR);
  EXPECT_NE(started.error().message.find("was not ready in time"), std::string::npos)
      << started.error().message;
  EXPECT_FALSE(daemon.running());
}

// The script ignores SIGTERM, so Terminate waits for it to finish writing:
// the log holds exactly the first log_limit bytes.
TEST_F(DaemonProcessChildTest, LogKeepsAtMostTheLimit) {
  DaemonProcess daemon;
  DaemonStartOptions options;
  options.log_limit = 64;
  Status started = daemon.Start(Script("trap '' TERM\n"
                                       "echo 'signetd: ready' >&2\n"
                                       "head -c 100000 /dev/zero | tr '\\0' x >&2\n"),
                                Data(), Socket(), {}, options);
  ASSERT_TRUE(started.ok()) << started.error().message;
  EXPECT_EQ(daemon.Terminate(), 0);
  EXPECT_EQ(daemon.log(), "signetd: ready\n" + std::string(64 - 15, 'x'));
}

TEST_F(DaemonProcessChildTest, StartsAgainOnlyOnceStopped) {
  DaemonProcess daemon;
  const std::string program = Script(kGood);
  ASSERT_TRUE(daemon.Start(program, Data(), Socket()).ok());
  Status twice = daemon.Start(program, Data(), Socket());
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().code, CKR_GENERAL_ERROR);
  EXPECT_EQ(daemon.Terminate(), 0);
  ASSERT_TRUE(daemon.Start(program, Data(), Socket()).ok());
  const std::string log = daemon.log();
  EXPECT_EQ(log.find("fake: stopping"), std::string::npos) << "the log starts again:\n" << log;
  EXPECT_EQ(daemon.Terminate(), 0);
}

TEST_F(DaemonProcessChildTest, DestructorKillsARunningDaemon) {
  pid_t pid = -1;
  {
    DaemonProcess daemon;
    ASSERT_TRUE(
        daemon.Start(Script("echo 'signetd: ready' >&2\nexec sleep 600\n"), Data(), Socket()).ok());
    pid = daemon.pid();
  }
  EXPECT_EQ(kill(pid, 0), -1) << "pid " << pid << " still exists";
  EXPECT_EQ(errno, ESRCH);
}

// WaitForLog returns once what it waits for is written, however late.
TEST_F(DaemonProcessChildTest, WaitForLogReturnsWhenTheTextArrives) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon
                  .Start(Script("echo 'signetd: ready' >&2\n"
                                "sleep 0.2\n"
                                "echo 'fake: later' >&2\n"
                                "exec sleep 600\n"),
                         Data(), Socket())
                  .ok());
  EXPECT_TRUE(daemon.WaitForLog(
      [](const std::string& log) { return log.find("fake: later") != std::string::npos; },
      std::chrono::seconds(60)));
  EXPECT_FALSE(daemon.WaitForLog(
      [](const std::string& log) { return log.find("never written") != std::string::npos; },
      std::chrono::milliseconds(50)));
}

// A daemon that closed its stderr will write nothing more: WaitForLog
// answers at once instead of waiting out its bound.
TEST_F(DaemonProcessChildTest, WaitForLogStopsAtEndOfFile) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.Start(Script("echo 'signetd: ready' >&2\nexit 0\n"), Data(), Socket()).ok());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(daemon.WaitForLog(
      [](const std::string& log) { return log.find("never written") != std::string::npos; },
      std::chrono::seconds(120)));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  EXPECT_EQ(daemon.Terminate(), 0);
  EXPECT_FALSE(daemon.WaitForLog([](const std::string&) { return false; }, std::chrono::hours(1)))
      << "nothing runs: nothing to wait for";
}

TEST(ExitStatus, AsAShellReportsIt) {
  EXPECT_EQ(ExitStatus(W_EXITCODE(0, 0)), 0);
  EXPECT_EQ(ExitStatus(W_EXITCODE(3, 0)), 3);
  EXPECT_EQ(ExitStatus(W_EXITCODE(0, SIGKILL)), 128 + SIGKILL);
  EXPECT_EQ(ExitStatus(W_STOPCODE(SIGSTOP)), -1);
}

}  // namespace
}  // namespace signet::daemon
