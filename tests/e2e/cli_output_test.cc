// What the signet CLI shows other people and programs: labels a client
// chose are printed with control characters escaped (issue 10, defect 14),
// and a PIN given with --pin leaves /proc/PID/cmdline at once (defect 7).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>

#include "daemon_fixture.h"

namespace signet::e2e {
namespace {

class CliOutputTest : public DaemonTest {};

TEST_F(CliOutputTest, ListEscapesLabelsThatWouldForgeLines) {
  const std::string forged = "innocent\nprivate  EC            root-ca";
  ProgramResult made = Signet({"keygen", "--type", "ec:p256", "--label", forged, "--pin", kUserPin});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_EQ(made.out.find('\n'), made.out.size() - 1) << made.out;  // one line

  ProgramResult listed = Signet({"list", "--pin", kUserPin});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.out.find("\nprivate  EC            root-ca\n"), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("innocent\\x0aprivate  EC            root-ca"), std::string::npos)
      << listed.out;

  ProgramResult escape = Signet({"keygen", "--type", "ec:p256", "--label", "k\x1b]0;owned\x07",
                                 "--pin", kUserPin});
  ASSERT_EQ(escape.exit_code, 0) << escape.err;
  listed = Signet({"list", "--pin", kUserPin});
  EXPECT_EQ(listed.out.find('\x1b'), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("k\\x1b]0;owned\\x07"), std::string::npos) << listed.out;
}

// ReadUntil reads `fd` until `needle` appeared or `bound` passed (a failure
// bound, not a synchronisation delay); returns what was read.
std::string ReadUntil(int fd, const std::string& needle, std::chrono::seconds bound) {
  std::string text;
  auto deadline = std::chrono::steady_clock::now() + bound;
  while (text.find(needle) == std::string::npos) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char buffer[512];
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

TEST_F(CliOutputTest, PinOnTheCommandLineLeavesProcCmdlineAndWarns) {
  const std::string secret = "visible-to-every-local-user";
  int input[2], errors[2];
  ASSERT_EQ(pipe2(input, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(errors, O_CLOEXEC), 0);
  std::string program = BinaryPath("signet"), out = Path("sig");
  // `--in -` makes signet wait on stdin, which the test holds open.
  std::vector<std::string> args = {program, "sign",   "--label",  "absent", "--mech",
                                   "ecdsa-sha256", "--in", "-", "--out", out,
                                   "--pin", secret, "--socket", socket_path()};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    dup2(input[0], 0);
    dup2(errors[1], 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(input[0]);
  close(errors[1]);
  std::string warned = ReadUntil(errors[0], "is safer\n", std::chrono::seconds(30));

  std::ifstream cmdline("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string shown((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
  close(input[1]);  // signet goes on (and fails: no key "absent")
  int status = 0;
  waitpid(pid, &status, 0);
  close(errors[0]);

  EXPECT_NE(warned.find("--pin on the command line is visible"), std::string::npos) << warned;
  ASSERT_FALSE(shown.empty());
  EXPECT_EQ(shown.find(secret), std::string::npos) << "argv still shows the PIN";
  EXPECT_NE(shown.find(std::string(secret.size(), 'x')), std::string::npos);
}

}  // namespace
}  // namespace signet::e2e
