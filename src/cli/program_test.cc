// The `signet` program's argument handling, in-process through RunSignet
// (cli/program.h): usage errors, option errors found before any connection
// is made, where the daemon is looked for, and what is printed. Nothing here
// starts signetd; every daemon address points at nothing.
#include "cli/program.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/sign_input.h"
#include "signet/paths.hpp"
#include "signet/version.hpp"

namespace signet::cli {
namespace {

struct ProgramRun {
  int exit_code = -1;
  std::string out;
  std::string err;
  std::vector<std::string> argv_after;  // the argument area after the run
};

constexpr const char* kEnvironment[] = {"SIGNET_SOCKET", "SIGNET_DATA", "SIGNET_PIN",
                                        "SIGNET_SO_PIN"};

class SignetProgramTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : kEnvironment) {
      if (const char* value = std::getenv(name)) saved_.emplace_back(name, value);
      unsetenv(name);
    }
    std::string pattern = (std::filesystem::temp_directory_path() / "signet-cli-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    for (const char* name : kEnvironment) unsetenv(name);
    for (const auto& [name, value] : saved_) setenv(name.c_str(), value.c_str(), 1);
    std::filesystem::remove_all(dir_);
  }

  // Run runs `signet args...` and captures what it prints.
  ProgramRun Run(std::vector<std::string> args) {
    args.insert(args.begin(), "signet");
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ProgramRun run;
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    run.exit_code = RunSignet(static_cast<int>(args.size()), argv.data());
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    run.err = ::testing::internal::GetCapturedStderr();
    run.out = ::testing::internal::GetCapturedStdout();
    run.argv_after = args;
    return run;
  }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  std::string WriteFile(const std::string& name, std::size_t size) {
    std::ofstream(Path(name), std::ios::binary) << std::string(size, 'm');
    return Path(name);
  }

  std::string NoDaemon() const { return Path("no-daemon.sock"); }

  std::string dir_;
  std::vector<std::pair<std::string, std::string>> saved_;
};

// Every usage error exits 2 (issue 14: CLI11's own 106 and 109 were what
// the program returned), whatever CLI11 calls it.
constexpr int kUsage = 2;
constexpr int kRequiredError = kUsage;
constexpr int kExtrasError = kUsage;
constexpr int kValidationError = kUsage;

// ---------------------------------------------------------------- usage

TEST_F(SignetProgramTest, HelpListsTheCommandsAndSucceeds) {
  ProgramRun run = Run({"--help"});
  EXPECT_EQ(run.exit_code, 0);
  for (const char* command :
       {"init", "keygen", "import", "list", "pubkey", "delete", "sign", "verify", "set-pin",
        "init-pin", "random", "stats", "tokens", "info", "admin", "bench"}) {
    EXPECT_NE(run.out.find(command), std::string::npos) << command << " in\n" << run.out;
  }
}

TEST_F(SignetProgramTest, VersionIsTheProjectVersion) {
  ProgramRun run = Run({"--version"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out, std::string("signet ") + kVersionString + "\n");
}

// Issue 14: `signet init --help` showed neither --pin nor --data. Every
// command's help, at any depth, lists the global options.
TEST_F(SignetProgramTest, EveryCommandsHelpListsTheGlobalOptions) {
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{{"init"},
                                             {"keygen"},
                                             {"list"},
                                             {"sign"},
                                             {"stats"},
                                             {"admin", "unlock-so"},
                                             {"bench", "parallel"}}) {
    std::vector<std::string> args = command;
    args.push_back("--help");
    ProgramRun run = Run(args);
    EXPECT_EQ(run.exit_code, 0) << command.front();
    for (const char* option : {"--data", "--socket", "--token", "--pin", "--tls-ca"}) {
      EXPECT_NE(run.out.find(option), std::string::npos)
          << option << " missing in the help of " << args[0] << " " << args[1] << ":\n"
          << run.out;
    }
    EXPECT_NE(run.out.find("Global options"), std::string::npos) << run.out;
  }
}

// Bad usage exits 2 (not 1, which means the operation failed) and says
// what is wrong.
TEST_F(SignetProgramTest, NoSubcommandIsAUsageError) {
  ProgramRun run = Run({});
  EXPECT_EQ(run.exit_code, kRequiredError);
  EXPECT_NE(run.err.find("subcommand"), std::string::npos) << run.err;
}

TEST_F(SignetProgramTest, MissingRequiredOptionIsNamed) {
  ProgramRun run = Run({"sign", "--label", "k", "--in", "m", "--out", "s"});
  EXPECT_EQ(run.exit_code, kRequiredError);
  EXPECT_NE(run.err.find("--mech"), std::string::npos) << run.err;
}

TEST_F(SignetProgramTest, UnknownOptionIsRefused) {
  ProgramRun flag = Run({"list", "--bogus"});
  EXPECT_EQ(flag.exit_code, kExtrasError);
  EXPECT_NE(flag.err.find("--bogus"), std::string::npos) << flag.err;
}

// An unknown word where a subcommand goes is named (CLI11 alone says only
// that a subcommand is required), with the usage error's exit code.
TEST_F(SignetProgramTest, UnknownCommandIsNamed) {
  ProgramRun command = Run({"frobnicate"});
  EXPECT_EQ(command.exit_code, kRequiredError);
  EXPECT_NE(command.err.find("signet: unknown command 'frobnicate'"), std::string::npos)
      << command.err;
  ProgramRun after_options = Run({"--socket", NoDaemon(), "frobnicate"});
  EXPECT_EQ(after_options.exit_code, kRequiredError);
  EXPECT_NE(after_options.err.find("unknown command 'frobnicate'"), std::string::npos)
      << after_options.err;
  ProgramRun nested = Run({"admin", "frobnicate"});
  EXPECT_EQ(nested.exit_code, kRequiredError);
  EXPECT_NE(nested.err.find("signet admin: unknown command 'frobnicate'"), std::string::npos)
      << nested.err;
  // Control characters in the word are escaped, as in every other error.
  ProgramRun escaped = Run({"frob\x1b[2Jnicate"});
  EXPECT_EQ(escaped.err.find('\x1b'), std::string::npos) << escaped.err;
  EXPECT_NE(escaped.err.find("unknown command 'frob\\x1b[2Jnicate'"), std::string::npos)
      << escaped.err;
}

TEST_F(SignetProgramTest, RandomByteCountMustBeInRange) {
  for (const char* bad : {"0", "2000000000", "many"}) {
    ProgramRun run = Run({"random", "--bytes", bad, "--socket", NoDaemon()});
    EXPECT_NE(run.exit_code, 0) << bad;
    EXPECT_NE(run.exit_code, 1) << bad << ": reached the daemon step: " << run.err;
    EXPECT_NE(run.err.find("--bytes"), std::string::npos) << bad << ": " << run.err;
  }
  EXPECT_EQ(Run({"random", "--bytes", "0"}).exit_code, kValidationError);
}

// ---------------------------------------------------------------- errors before connecting

// Moved here from tests/e2e/cli_flow_test.cc (CliFlowTest.UnknownMechanism-
// ListsTheValidOnes): the name is checked before the daemon is involved.
TEST_F(SignetProgramTest, UnknownMechanismListsTheValidOnes) {
  std::string message = WriteFile("m", 1);
  for (const char* command : {"sign", "verify"}) {
    std::vector<std::string> args = {command, "--label",  "k",        "--mech", "rsa-md5", "--in",
                                     message, "--socket", NoDaemon(), "--pin",  "1234"};
    args.insert(args.end(), {command == std::string("sign") ? "--out" : "--sig", Path("s")});
    ProgramRun run = Run(args);
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_NE(run.err.find(std::string("signet ") + command +
                           ": CKR_MECHANISM_INVALID: unknown mechanism 'rsa-md5' (want "),
              std::string::npos)
        << run.err;
    EXPECT_NE(run.err.find("rsa-pss-sha256"), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("cannot connect"), std::string::npos) << run.err;
  }
}

TEST_F(SignetProgramTest, MissingInputFilesAreNamed) {
  ProgramRun sign = Run({"sign", "--label", "k", "--mech", "ed25519", "--in", Path("absent"),
                         "--out", Path("s"), "--socket", NoDaemon()});
  EXPECT_EQ(sign.exit_code, 1);
  EXPECT_NE(sign.err.find("signet sign: CKR_ARGUMENTS_BAD: cannot read " + Path("absent")),
            std::string::npos)
      << sign.err;
  std::string message = WriteFile("m", 10);
  ProgramRun verify = Run({"verify", "--label", "k", "--mech", "ed25519", "--in", message, "--sig",
                           Path("no-sig"), "--socket", NoDaemon()});
  EXPECT_EQ(verify.exit_code, 1);
  EXPECT_NE(verify.err.find("cannot read " + Path("no-sig")), std::string::npos) << verify.err;
  ProgramRun import = Run(
      {"import", "--in", Path("no-key"), "--label", "k", "--socket", NoDaemon(), "--pin", "1234"});
  EXPECT_EQ(import.exit_code, 1);
  EXPECT_NE(import.err.find("cannot read " + Path("no-key")), std::string::npos) << import.err;
}

TEST_F(SignetProgramTest, OversizedEd25519MessageIsRefusedBeforeConnecting) {
  std::string message = WriteFile("big", kInlineLimit + 1);
  ProgramRun run = Run({"sign", "--label", "k", "--mech", "ed25519", "--in", message, "--out",
                        Path("s"), "--socket", NoDaemon(), "--pin", "1234"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("CKR_DATA_LEN_RANGE: ed25519 signs whole messages"), std::string::npos)
      << run.err;
}

TEST_F(SignetProgramTest, BadKeyTypeIsRefusedBeforeConnecting) {
  for (const char* type : {"dsa:1024", "rsa:big", "ec:p999", ""}) {
    ProgramRun run = Run({"keygen", "--type", type, "--label", "k", "--pin", "1234"});
    EXPECT_EQ(run.exit_code, 1) << type;
    EXPECT_NE(run.err.find("signet keygen: CKR_ARGUMENTS_BAD: "), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("cannot connect"), std::string::npos) << run.err;
  }
}

// ---------------------------------------------------------------- where the daemon is

// Without any address the CLI tries the installed service's socket; when
// that does not answer, the error names it and the other sources.
TEST_F(SignetProgramTest, WithoutAnyAddressTheErrorNamesTheSources) {
  if (std::filesystem::exists(kDefaultSocketPath)) {
    GTEST_SKIP() << "a signet service runs on this machine (" << kDefaultSocketPath << ")";
  }
  ProgramRun run = Run({"stats"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(run.err.starts_with("signet stats: CKR_DEVICE_ERROR: cannot connect to signetd at " +
                                  std::string(kDefaultSocketPath)))
      << run.err;
  EXPECT_NE(run.err.find("(the service's socket; another daemon: --socket, SIGNET_SOCKET, "
                         "--data or SIGNET_DATA)\n"),
            std::string::npos)
      << run.err;
}

// Global options may come before or after the subcommand (fallthrough).
TEST_F(SignetProgramTest, GlobalOptionsBeforeOrAfterTheSubcommand) {
  for (bool after : {false, true}) {
    std::vector<std::string> args = {"random", "--bytes", "4"};
    std::vector<std::string> global = {"--socket", NoDaemon()};
    args.insert(after ? args.end() : args.begin(), global.begin(), global.end());
    ProgramRun run = Run(args);
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_NE(
        run.err.find("signet random: CKR_DEVICE_ERROR: cannot connect to signetd at " + NoDaemon()),
        std::string::npos)
        << run.err;
  }
}

TEST_F(SignetProgramTest, SocketFromTheEnvironmentOrTheDataDirectory) {
  setenv("SIGNET_DATA", dir_.c_str(), 1);
  ProgramRun data = Run({"stats"});
  EXPECT_NE(data.err.find("cannot connect to signetd at " + dir_ + "/signetd.sock"),
            std::string::npos)
      << data.err;
  setenv("SIGNET_SOCKET", NoDaemon().c_str(), 1);
  ProgramRun socket = Run({"stats"});
  EXPECT_NE(socket.err.find("cannot connect to signetd at " + NoDaemon()), std::string::npos)
      << socket.err;
  ProgramRun flag = Run({"stats", "--socket", Path("flag.sock")});
  EXPECT_NE(flag.err.find("cannot connect to signetd at " + Path("flag.sock")), std::string::npos)
      << flag.err;
  ProgramRun bad = Run({"stats", "--socket", "tcp://no-port"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("CKR_ARGUMENTS_BAD: bad address"), std::string::npos) << bad.err;
}

// ---------------------------------------------------------------- secrets and output

TEST_F(SignetProgramTest, PinOnTheCommandLineWarnsIsScrubbedAndNeverPrinted) {
  ProgramRun run = Run({"list", "--pin", "s3cret-pin", "--socket", NoDaemon()});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("signet: warning: --pin on the command line is visible"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(run.argv_after[3], "xxxxxxxxxx");  // signet list --pin <here>
  EXPECT_EQ(run.err.find("s3cret"), std::string::npos) << run.err;
  EXPECT_EQ(run.out.find("s3cret"), std::string::npos) << run.out;
}

// A client-chosen string in an error stays on its line: control bytes are
// escaped, so it cannot forge a second line of output.
TEST_F(SignetProgramTest, ErrorsEscapeControlCharactersInArguments) {
  std::string message = WriteFile("m", 1);
  ProgramRun run = Run({"sign", "--label", "k", "--mech", "x\nsignet sign: forged", "--in", message,
                        "--out", Path("s")});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_NE(run.err.find("x\\x0asignet sign: forged"), std::string::npos) << run.err;
}

// ---------------------------------------------------------------- offline commands

// Moved here from tests/e2e/cli_flow_test.cc (CliInit.WithoutADataDirectory-
// Explains).
TEST_F(SignetProgramTest, InitWithoutADataDirectoryExplains) {
  ProgramRun run = Run({"init", "--label", "x", "--so-pin", "so-pin-1", "--pin", "user-pin"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("signet init: CKR_ARGUMENTS_BAD: give --data DIR (or SIGNET_DATA), or "
                         "--socket"),
            std::string::npos)
      << run.err;
}

TEST_F(SignetProgramTest, InitRefusesAKdfCostThatIsNotAPowerOfTwo) {
  ProgramRun run = Run({"init", "--data", Path("data"), "--label", "x", "--so-pin", "so-pin-1",
                        "--pin", "user-pin", "--kdf-n", "1000"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("--kdf-n must be a power of two"), std::string::npos) << run.err;
  EXPECT_FALSE(std::filesystem::exists(Path("data")) && !std::filesystem::is_empty(Path("data")))
      << "a token was written";
}

TEST_F(SignetProgramTest, AdminNeedsASubcommandAndADataDirectory) {
  EXPECT_EQ(Run({"admin"}).exit_code, kRequiredError);
  ProgramRun run = Run({"admin", "unlock-so"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("signet admin: CKR_ARGUMENTS_BAD: give --data DIR (or SIGNET_DATA)"),
            std::string::npos)
      << run.err;
}

}  // namespace
}  // namespace signet::cli
