// run_conformance: ctest's driver for the conformance suite. It makes a
// hermetic token and runs signet-conformance against it:
//
//   run_conformance signet  SUITE EXPECTATIONS   # signetd on a temporary token
//   run_conformance softhsm SUITE EXPECTATIONS   # SoftHSMv2 on a temporary token dir
//
// signet: `signet init --kdf-n 1024` in a temporary directory and a signetd
// serving it (the e2e tests' Daemon, ready when it says so), the module found
// through SIGNET_SOCKET. softhsm: a SOFTHSM2_CONF naming a temporary token
// directory and `softhsm2-util --init-token --free`. The suite's output goes
// to our stdout; our exit status is the suite's (77: SoftHSMv2 missing, which
// ctest reports as skipped).
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../e2e/process.h"

extern char** environ;

namespace {

using signet::e2e::BinaryPath;
using signet::e2e::Daemon;
using signet::e2e::ProgramResult;
using signet::e2e::RunProgram;
using signet::e2e::TempDir;

constexpr const char* kLabel = "conformance";
constexpr const char* kUserPin = "conf-user-pin";
constexpr const char* kSoPin = "conf-so-pin";
constexpr const char* kSoftHsmModule = "/usr/lib/softhsm/libsofthsm2.so";
constexpr int kSkipped = 77;

// RunSuite runs the suite with our stdout / stderr and environment.
int RunSuite(const std::string& suite, const std::string& module, const std::string& expect) {
  std::vector<std::string> args = {suite,  "--module",   module,          "--token",
                                   kLabel, "--user-pin", kUserPin,        "--so-pin",
                                   kSoPin, "--reinit",   "--expect-fail", expect};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid;
  if (posix_spawn(&pid, suite.c_str(), nullptr, nullptr, argv.data(), environ) != 0) {
    std::perror("posix_spawn");
    return 2;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  std::fflush(stdout);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int RunSignet(const std::string& suite, const std::string& expect) {
  TempDir dir;
  const std::string data = dir.path() + "/data", socket = dir.path() + "/s.sock";
  ProgramResult init = RunProgram({BinaryPath("signet"), "init", "--data", data, "--label", kLabel,
                                   "--so-pin", kSoPin, "--pin", kUserPin, "--kdf-n", "1024"});
  if (init.exit_code != 0) {
    std::fprintf(stderr, "signet init failed: %s\n", init.err.c_str());
    return 2;
  }
  Daemon daemon;
  std::string failure = daemon.Start(data, socket);
  if (!failure.empty()) {
    std::fprintf(stderr, "signetd did not start: %s\n", failure.c_str());
    return 2;
  }
  setenv("SIGNET_SOCKET", socket.c_str(), 1);
  int result = RunSuite(suite, std::string(SIGNET_BINARY_DIR) + "/lib/libsignet-pkcs11.so", expect);
  int status = daemon.Terminate();
  if (status != 0) {
    std::fprintf(stderr, "signetd exited with %d; its log:\n%s\n", status, daemon.log().c_str());
    return result == 0 ? 1 : result;
  }
  return result;
}

int RunSoftHsm(const std::string& suite, const std::string& expect) {
  if (access(kSoftHsmModule, R_OK) != 0) {
    std::printf("SoftHSMv2 (%s) is not installed: skipped\n", kSoftHsmModule);
    return kSkipped;
  }
  TempDir dir;
  const std::string tokens = dir.path() + "/tokens", conf = dir.path() + "/softhsm2.conf";
  mkdir(tokens.c_str(), 0700);
  FILE* file = std::fopen(conf.c_str(), "w");
  if (file == nullptr) return 2;
  std::fprintf(file, "directories.tokendir = %s\nobjectstore.backend = file\nlog.level = ERROR\n",
               tokens.c_str());
  std::fclose(file);
  setenv("SOFTHSM2_CONF", conf.c_str(), 1);
  // In a sanitizer build (make test PRESET=asan) the suite host is
  // instrumented and LeakSanitizer would report SoftHSMv2's own leaks.
  const char* asan = std::getenv("ASAN_OPTIONS");
  setenv("ASAN_OPTIONS", (std::string(asan != nullptr ? asan : "") + ":detect_leaks=0").c_str(), 1);
  ProgramResult init = RunProgram({"/usr/bin/softhsm2-util", "--init-token", "--free", "--label",
                                   kLabel, "--so-pin", kSoPin, "--pin", kUserPin});
  if (init.exit_code != 0) {
    std::fprintf(stderr, "softhsm2-util failed: %s%s\n", init.out.c_str(), init.err.c_str());
    return 2;
  }
  return RunSuite(suite, kSoftHsmModule, expect);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s signet|softhsm SUITE EXPECTATIONS\n", argv[0]);
    return 2;
  }
  const std::string target = argv[1];
  if (target == "signet") return RunSignet(argv[2], argv[3]);
  if (target == "softhsm") return RunSoftHsm(argv[2], argv[3]);
  std::fprintf(stderr, "unknown target %s\n", target.c_str());
  return 2;
}
