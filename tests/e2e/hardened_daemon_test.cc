// signetd under signetd.service's hardening (issue 14): the settings a
// process can apply to itself without systemd (tests/e2e/run_hardened.cc:
// no new privileges, no writable code as the kernel's MDWE, AF_UNIX sockets
// only, a locked personality, native system calls only) do not stop the
// daemon from starting, generating keys and signing,
// and they do bite: a program that maps writable code or opens a TCP socket
// under the same wrapper fails.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "daemon_fixture.h"

namespace signet::e2e {
namespace {

std::string RunHardenedPath() { return std::string(SIGNET_BINARY_DIR) + "/tests/run_hardened"; }

// ProcStatus: the value of `field` in /proc/PID/status ("" when absent).
std::string ProcStatus(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(field + ":")) {
      std::string value = line.substr(field.size() + 1);
      return value.substr(value.find_first_not_of(" \t"));
    }
  }
  return "";
}

class HardenedDaemonTest : public DaemonTest {
 protected:
  void SetUp() override {
#ifdef SIGNET_SANITIZED
    GTEST_SKIP() << "sanitizer runtimes change the personality at start (release build only)";
#endif
    ProgramResult probe = RunProgram({RunHardenedPath(), "/bin/true"});
    if (probe.exit_code == 126) GTEST_SKIP() << "this kernel has no MDWE: " << probe.err;
    ASSERT_EQ(probe.exit_code, 0) << probe.err;
    DaemonTest::SetUp();
  }
};

TEST_F(HardenedDaemonTest, SignetdGeneratesAndSignsUnderTheUnitsRestrictions) {
  ASSERT_EQ(daemon_.Terminate(), 0);
  Status started = daemon_.StartProgram(
      {RunHardenedPath(), BinaryPath("signetd"), "--data", data_dir(), "--socket", socket_path()},
      {});
  ASSERT_TRUE(started.ok()) << started.error().message;
  // The restrictions are on the daemon itself (run_hardened exec'd it, and
  // signetd's own re-exec keeps them).
  EXPECT_EQ(ProcStatus(daemon_.pid(), "NoNewPrivs"), "1");
  EXPECT_EQ(ProcStatus(daemon_.pid(), "Seccomp"), "2");

  for (const std::string type : {"rsa:2048", "ec:p256", "ed25519"}) {
    SCOPED_TRACE(type);
    const std::string label = "hardened-" + type;
    ProgramResult keygen = Signet({"keygen", "--type", type, "--label", label, "--pin", kUserPin});
    ASSERT_EQ(keygen.exit_code, 0) << keygen.err << daemon_.log();
  }
  const std::string msg = Path("msg");
  WriteTextFile(msg, "signed by a hardened signetd\n");
  const std::string sig = Path("sig");
  ProgramResult sign = Signet({"sign", "--label", "hardened-rsa:2048", "--mech", "rsa-pkcs1-sha256",
                               "--in", msg, "--out", sig, "--pin", kUserPin});
  ASSERT_EQ(sign.exit_code, 0) << sign.err << daemon_.log();
  ProgramResult pubkey = Signet({"pubkey", "--label", "hardened-rsa:2048"});
  ASSERT_EQ(pubkey.exit_code, 0) << pubkey.err;
  WriteTextFile(Path("pub.pem"), pubkey.out);
  ProgramResult verify =
      OpenSsl({"dgst", "-sha256", "-verify", Path("pub.pem"), "-signature", sig, msg});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  EXPECT_EQ(daemon_.log().find("warning"), std::string::npos) << daemon_.log();
}

// Without these the test above could pass with a wrapper that restricts
// nothing.
TEST_F(HardenedDaemonTest, TheWrapperRefusesWritableCodeAndTcp) {
  ProgramResult wx = RunProgram(
      {RunHardenedPath(), "/usr/bin/python3", "-c",
       "import mmap; mmap.mmap(-1, 4096, prot=mmap.PROT_READ|mmap.PROT_WRITE|mmap.PROT_EXEC)"});
  EXPECT_NE(wx.exit_code, 0);
  EXPECT_NE(wx.err.find("PermissionError"), std::string::npos) << wx.err;
  ProgramResult tcp =
      RunProgram({RunHardenedPath(), "/usr/bin/python3", "-c",
                  "import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM)"});
  EXPECT_NE(tcp.exit_code, 0);
  EXPECT_NE(tcp.err.find("Address family not supported"), std::string::npos) << tcp.err;
  ProgramResult unix_ok =
      RunProgram({RunHardenedPath(), "/usr/bin/python3", "-c",
                  "import socket; socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)"});
  EXPECT_EQ(unix_ok.exit_code, 0) << unix_ok.err;
}

}  // namespace
}  // namespace signet::e2e
