// OpenSSH signing through the module, not only listing: ssh-agent loads
// libsignet-pkcs11.so (ssh-add -s, the PIN through SSH_ASKPASS), lists the
// token's keys, and `ssh-keygen -Y sign` signs with each of them through the
// agent; `ssh-keygen -Y verify` checks every signature. The keys are made
// by the signet CLI and by `signet bench` (whose key pairs once lacked the
// CKA_ID that OpenSSH uses to find a public key's private half).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <sstream>

#include "module_fixture.h"

namespace signet::e2e {
namespace {

class Pkcs11SshAgentTest : public DaemonTest {
 protected:
  void TearDown() override {
    if (agent_pid_ > 0) kill(agent_pid_, SIGTERM);
    DaemonTest::TearDown();
  }

  std::map<std::string, std::string> AgentEnv() const {
    return {{"SIGNET_SOCKET", socket_path()}, {"SSH_AUTH_SOCK", Path("agent.sock")}};
  }

  pid_t agent_pid_ = -1;
};

TEST_F(Pkcs11SshAgentTest, AgentSignsWithEveryTokenKeyAndSshKeygenVerifies) {
  for (const auto& [type, label] : {std::pair{"rsa:2048", "cli-rsa"}, {"ec:p256", "cli-ec"}}) {
    ProgramResult keygen = Signet({"keygen", "--type", type, "--label", label, "--pin", kUserPin});
    ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  }
  ProgramResult bench = Signet({"bench", "parallel", "--algo", "rsa2048,ecp256", "--clients", "1",
                                "-n", "4", "--pin", kUserPin});
  ASSERT_EQ(bench.exit_code, 0) << bench.err;

  // The agent (it daemonises; its pid is killed in TearDown) may load only
  // PKCS#11 modules from the build's lib directory.
  ProgramResult agent = RunProgram({"/usr/bin/ssh-agent", "-a", Path("agent.sock"), "-P",
                                    std::string(SIGNET_BINARY_DIR) + "/lib/*"},
                                   AgentEnv());
  ASSERT_EQ(agent.exit_code, 0) << agent.err;
  auto at = agent.out.find("SSH_AGENT_PID=");
  ASSERT_NE(at, std::string::npos) << agent.out;
  agent_pid_ = std::stoi(agent.out.substr(at + sizeof("SSH_AGENT_PID=") - 1));

  WriteTextFile(Path("askpass"), std::string("#!/bin/sh\necho ") + kUserPin + "\n");
  ASSERT_EQ(chmod(Path("askpass").c_str(), 0700), 0);
  auto env = AgentEnv();
  env["SSH_ASKPASS"] = Path("askpass");
  env["SSH_ASKPASS_REQUIRE"] = "force";
  ProgramResult add = RunProgram({"/usr/bin/ssh-add", "-s", ModulePath()}, env);
  ASSERT_EQ(add.exit_code, 0) << add.out << add.err;

  ProgramResult listed = RunProgram({"/usr/bin/ssh-add", "-L"}, AgentEnv());
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  std::istringstream lines(listed.out);
  std::string line;
  int keys = 0, rsa = 0, ec = 0;
  WriteTextFile(Path("msg"), "signed by ssh-agent with a signet key\n");
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    ++keys;
    rsa += line.starts_with("ssh-rsa ");
    ec += line.starts_with("ecdsa-sha2-nistp256 ");
    SCOPED_TRACE(line.substr(0, 40));
    const std::string pub = Path("key" + std::to_string(keys) + ".pub");
    WriteTextFile(pub, line + "\n");
    std::remove(Path("msg.sig").c_str());
    ProgramResult sign = RunProgram(
        {"/usr/bin/ssh-keygen", "-Y", "sign", "-f", pub, "-n", "file", Path("msg")}, AgentEnv());
    ASSERT_EQ(sign.exit_code, 0) << sign.err;
    WriteTextFile(Path("allowed"), "signer " + line + "\n");
    ProgramResult verify = RunProgram({"/bin/sh", "-c",
                                       "/usr/bin/ssh-keygen -Y verify -f '" + Path("allowed") +
                                           "' -I signer -n file -s '" + Path("msg.sig") + "' < '" +
                                           Path("msg") + "'"});
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
    EXPECT_NE(verify.out.find("Good \"file\" signature for signer"), std::string::npos)
        << verify.out;
  }
  EXPECT_EQ(keys, 4);  // two from the CLI, two from the bench
  EXPECT_EQ(rsa, 2);
  EXPECT_EQ(ec, 2);
}

}  // namespace
}  // namespace signet::e2e
