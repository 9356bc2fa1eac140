// The install as a Debian service (issue 14, "Install and run like a Debian
// service"): `cmake --install` into a DESTDIR puts the PKCS#11 module and its
// p11-kit module file where this system's p11-kit looks (p11-kit-1.pc, read
// at configure time), and `p11-kit list-modules` loads the module from the
// staged tree; the commented sample module config parses and leaves the
// module on the service's socket; `systemd-analyze verify` accepts the
// staged signetd.service, which serves that socket with its hardening on.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "process.h"
#include "signet/paths.hpp"
#include "signet/version.hpp"

namespace signet::e2e {
namespace {

namespace fs = std::filesystem;

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Under: `dir` (a configure-time install directory) under the prefix when
// relative, as cmake/SignetInstallFiles.cmake resolves it.
std::string Under(const std::string& prefix, const std::string& dir) {
  return dir.starts_with("/") ? dir : prefix + "/" + dir;
}

// ValueOf: the value of the first `key: value` (p11-kit) or `key=value`
// (systemd) line of `text` that starts with `key`; empty when none.
std::string ValueOf(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(key)) {
      std::string value = line.substr(key.size());
      return value.substr(value.find_first_not_of(" "));
    }
  }
  return "";
}

class InstallTest : public ::testing::Test {
 protected:
  // Install runs `cmake --install BUILD --prefix prefix` with DESTDIR=root().
  void Install(const std::string& prefix) {
    ProgramResult install =
        RunProgram({SIGNET_CMAKE_COMMAND, "--install", SIGNET_BINARY_DIR, "--prefix", prefix},
                   {{"DESTDIR", root()}});
    ASSERT_EQ(install.exit_code, 0) << install.out << install.err;
  }
  std::string root() const { return dir_.path() + "/root"; }
  std::string Staged(const std::string& path) const { return root() + path; }

  TempDir dir_;
};

TEST_F(InstallTest, DestdirInstallPutsEachFileWhereItsReaderLooks) {
  Install("/usr");
  const std::string module_dir = Under("/usr", SIGNET_P11_MODULE_DIR);
  const std::string config_dir = Under("/usr", SIGNET_P11_MODULE_CONFIG_DIR);
  for (const std::string& path : std::vector<std::string>{
           "/usr/bin/signet", "/usr/bin/signetd", module_dir + "/libsignet-pkcs11.so",
           module_dir + "/libsignet-tls.so", config_dir + "/signet.module",
           "/etc/signet/pkcs11.conf", "/usr/lib/systemd/system/signetd.service",
           "/usr/lib/sysusers.d/signet.conf"}) {
    EXPECT_TRUE(fs::is_regular_file(Staged(path))) << path;
  }
  // The module file names the installed module by its absolute path, so it
  // loads whatever p11-kit's own module directory is.
  EXPECT_EQ(ValueOf(ReadText(Staged(config_dir + "/signet.module")), "module:"),
            module_dir + "/libsignet-pkcs11.so");
  const std::string sysusers = ReadText(Staged("/usr/lib/sysusers.d/signet.conf"));
  EXPECT_NE(sysusers.find("\nu signet - "), std::string::npos) << sysusers;
}

// Every setting in the sample is commented out: the module keeps its
// defaults, so an installed machine talks to signetd.service's socket.
TEST_F(InstallTest, SampleModuleConfigIsAllCommentsAndNamesTheServiceSocket) {
  Install("/usr");
  const std::string sample = ReadText(Staged("/etc/signet/pkcs11.conf"));
  EXPECT_NE(sample.find("# socket = " + std::string(kDefaultSocketPath) + "\n"), std::string::npos)
      << sample;
  std::istringstream in(sample);
  for (std::string line; std::getline(in, line);) {
    EXPECT_TRUE(line.empty() || line.starts_with("#")) << "an active setting: " << line;
  }
}

TEST_F(InstallTest, OtherPrefixKeepsConfigUnderItAndAnExistingConfigIsKept) {
  Install("/usr/local");
  const std::string conf = Staged("/usr/local/etc/signet/pkcs11.conf");
  ASSERT_TRUE(fs::is_regular_file(conf));
  EXPECT_EQ(
      ValueOf(ReadText(Staged("/usr/local/lib/systemd/system/signetd.service")), "ExecStart="),
      "/usr/local/bin/signetd --data /var/lib/signet --socket " + std::string(kDefaultSocketPath) +
          " --allow-group signet");
  std::ofstream(conf) << "socket = /srv/mine.sock\n";
  Install("/usr/local");
  EXPECT_EQ(ReadText(conf), "socket = /srv/mine.sock\n");
}

// p11-kit reads module files from the user's ~/.config/pkcs11/modules when
// its config says `user-config: only`: a temporary HOME holding the staged
// module file, with its module path moved under DESTDIR, is the staged
// install as p11-kit sees it. p11-kit ignores user config when run as root,
// so as root the tool runs as nobody (setpriv).
TEST_F(InstallTest, P11KitListModulesLoadsTheStagedModule) {
#ifdef SIGNET_SANITIZED
  GTEST_SKIP() << "an unsanitized p11-kit cannot load a sanitized module (release build only)";
#endif
  Install("/usr");
  const std::string config_dir = Under("/usr", SIGNET_P11_MODULE_CONFIG_DIR);
  const std::string module_file = ReadText(Staged(config_dir + "/signet.module"));
  const std::string module = ValueOf(module_file, "module:");
  ASSERT_FALSE(module.empty()) << module_file;
  const std::string home = dir_.path() + "/home";
  fs::create_directories(home + "/.config/pkcs11/modules");
  std::ofstream(home + "/.config/pkcs11/pkcs11.conf") << "user-config: only\n";
  std::string staged_file = module_file;
  staged_file.replace(staged_file.find("module: ") + 8, module.size(), Staged(module));
  std::ofstream(home + "/.config/pkcs11/modules/signet.module") << staged_file;

  std::vector<std::string> argv = {"/usr/bin/p11-kit", "list-modules"};
  if (::geteuid() == 0) {
    if (!fs::exists("/usr/bin/setpriv")) GTEST_SKIP() << "root without setpriv (util-linux)";
    ::chmod(dir_.path().c_str(), 0755);  // nobody walks to the staged files
    argv.insert(argv.begin(),
                {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
  }
  // The staged sample config (all comments): the module's address is the
  // service's socket, which this test's user cannot reach.
  ProgramResult list = RunProgram(
      argv,
      {{"HOME", home}, {"SIGNET_CONF", Staged("/etc/signet/pkcs11.conf")}, {"SIGNET_SOCKET", ""}});
  ASSERT_EQ(list.exit_code, 0) << list.out << list.err;
  EXPECT_NE(list.out.find("signet: " + Staged(module) + "\n"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("library-description: signet PKCS#11 module"), std::string::npos)
      << list.out;
  EXPECT_NE(list.out.find("library-version: " + std::to_string(kVersionMajor) + "." +
                          std::to_string(kVersionMinor) + "\n"),
            std::string::npos)
      << list.out;
  EXPECT_NE(list.err.find(std::string("signetd at ") + kDefaultSocketPath), std::string::npos)
      << list.err;
}

// systemd-analyze verify loads the unit as systemd would, in a root
// directory: the staged tree, plus this system's target units the unit's
// default dependencies name. It exits 0 on warnings (an unknown or
// misspelt setting), so the test also wants its output empty.
TEST_F(InstallTest, SystemdAnalyzeVerifyAcceptsTheUnit) {
  if (!fs::exists("/usr/bin/systemd-analyze")) {
    GTEST_SKIP() << "systemd-analyze is absent (Debian package systemd; scripts/deps.sh)";
  }
  Install("/usr");
  const std::string unit_dir = Staged("/usr/lib/systemd/system");
  for (const auto& entry : fs::directory_iterator("/usr/lib/systemd/system")) {
    if (entry.path().extension() == ".target") {
      fs::copy(entry.path(), unit_dir, fs::copy_options::skip_existing);
    }
  }
  const std::string unit = unit_dir + "/signetd.service";
  ProgramResult verify =
      RunProgram({"/usr/bin/systemd-analyze", "verify", "--man=no", "--root=" + root(), unit});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  EXPECT_EQ(verify.out + verify.err, "");

  const std::string text = ReadText(unit);
  EXPECT_EQ(ValueOf(text, "ExecStart="), "/usr/bin/signetd --data /var/lib/signet --socket " +
                                             std::string(kDefaultSocketPath) +
                                             " --allow-group signet");
  const std::string run_dir = fs::path(kDefaultSocketPath).parent_path().filename().string();
  for (const std::string& setting : std::vector<std::string>{
           "User=signet", "Group=signet", "StateDirectory=signet", "RuntimeDirectory=" + run_dir,
           "Restart=on-failure", "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes",
           "PrivateTmp=yes", "MemoryDenyWriteExecute=yes", "LockPersonality=yes",
           "RestrictAddressFamilies=AF_UNIX", "CapabilityBoundingSet="}) {
    EXPECT_NE(text.find("\n" + setting + "\n"), std::string::npos) << setting;
  }
}

}  // namespace
}  // namespace signet::e2e
