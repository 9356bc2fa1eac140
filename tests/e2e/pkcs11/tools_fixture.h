// ToolsTest: a real signetd (DaemonTest) driven by third-party programs
// through the module: pkcs11-tool, openssl with the pkcs11 engine, and
// others, each run with SIGNET_SOCKET and PKCS11_MODULE_PATH pointing at
// the daemon and the freshly built module.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "module_fixture.h"

namespace signet::e2e {

class ToolsTest : public DaemonTest {
 protected:
  std::map<std::string, std::string> Env() const {
    return {{"SIGNET_SOCKET", socket_path()}, {"PKCS11_MODULE_PATH", ModulePath()}};
  }

  // Tool runs `program args...` with the module's environment.
  ProgramResult Tool(const std::string& program, std::vector<std::string> args) {
    args.insert(args.begin(), program);
    return RunProgram(args, Env());
  }

  // PkcsTool runs pkcs11-tool on the module, logged in as the user.
  ProgramResult PkcsTool(std::vector<std::string> args) {
    args.insert(args.begin(), {"--module", ModulePath(), "--login", "--pin", kUserPin});
    return Tool("/usr/bin/pkcs11-tool", std::move(args));
  }

  // GenerateAndExport makes a key pair with pkcs11-tool and writes its public
  // key as PEM (via openssl) to Path(label + ".pem").
  void GenerateAndExport(const std::string& key_type, const std::string& label,
                         const std::string& id, std::vector<std::string> usage = {}) {
    std::vector<std::string> gen_args = {"--keypairgen", "--key-type", key_type, "--label",
                                         label,          "--id",       id};
    gen_args.insert(gen_args.end(), usage.begin(), usage.end());
    ProgramResult gen = PkcsTool(gen_args);
    ASSERT_EQ(gen.exit_code, 0) << gen.out << gen.err;
    ProgramResult read = PkcsTool(
        {"--read-object", "--type", "pubkey", "--id", id, "--output-file", Path(label + ".der")});
    ASSERT_EQ(read.exit_code, 0) << read.out << read.err;
    ProgramResult pem =
        OpenSsl({"pkey", "-pubin", "-in", Path(label + ".der"), "-out", Path(label + ".pem")});
    ASSERT_EQ(pem.exit_code, 0) << pem.err;
  }

  // SignFile signs Path("msg") with pkcs11-tool into Path(label + ".sig").
  void SignFile(const std::string& id, const std::string& label,
                std::vector<std::string> mechanism_args) {
    std::vector<std::string> args = {
        "--sign", "--id", id, "--input-file", Path("msg"), "--output-file", Path(label + ".sig")};
    args.insert(args.end(), mechanism_args.begin(), mechanism_args.end());
    ProgramResult sign = PkcsTool(args);
    ASSERT_EQ(sign.exit_code, 0) << sign.out << sign.err;
  }
};

}  // namespace signet::e2e
