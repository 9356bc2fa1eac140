#include "bench/bench_commands.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "bench/parallel.h"
#include "crypto/crypto_test_util.h"

namespace signet::bench {
namespace {

// Parse runs `signet <args>` against a fresh app and returns CLI11's exit
// code (0 on success), as the CLI's main would.
int Parse(std::vector<std::string> args) {
  CLI::App app("signet");
  AddBenchCommands(app);
  std::vector<const char*> argv = {"signet"};
  for (const auto& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return e.get_exit_code();
  }
  return 0;
}

TEST(BenchCommands, KeygenOptionsReachTheBenchmark) {
  crypto::testing::TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string json = dir.File("k.json");
  testing::internal::CaptureStdout();
  const int code =
      Parse({"bench", "keygen", "--algo", "rsa:1024,ec:p256", "--count", "1", "--json", json});
  const std::string text = testing::internal::GetCapturedStdout();
  ASSERT_EQ(code, 0);
  EXPECT_NE(text.find("RSA 1024"), std::string::npos);
  std::ifstream file(json);
  const auto doc = nlohmann::json::parse(file);
  ASSERT_EQ(doc["tables"][0]["rows"].size(), 2u);
  EXPECT_EQ(doc["tables"][0]["rows"][1]["Algorithm"], "ECDSA P-256");
  EXPECT_EQ(doc["tables"][0]["rows"][1]["keys"], 1);
}

// The old bench spellings still select their algorithm, with a one-line
// note naming the KeySpec name `signet keygen` takes.
TEST(BenchCommands, OldAlgorithmNamesWorkWithANote) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const int code = Parse({"bench", "keygen", "--algo", "ecp256", "--count", "1", "--quick"});
  const std::string err = testing::internal::GetCapturedStderr();
  const std::string out = testing::internal::GetCapturedStdout();
  ASSERT_EQ(code, 0) << err;
  EXPECT_NE(out.find("ECDSA P-256"), std::string::npos) << out;
  EXPECT_NE(err.find("note: algorithm 'ecp256' is now spelled 'ec:p256'\n"), std::string::npos)
      << err;
}

TEST(BenchCommands, ParallelRawFromTheCommandLine) {
  testing::internal::CaptureStdout();
  const int code = Parse({"bench", "parallel", "--raw", "--algo", "ed25519", "--clients", "1,2",
                          "-n", "4", "--no-verify"});
  const std::string text = testing::internal::GetCapturedStdout();
  ASSERT_EQ(code, 0);
  EXPECT_NE(text.find("ed25519 sigs/sec "), std::string::npos);
  EXPECT_NE(text.find("(n 4, c 2 t0 "), std::string::npos) << text;
}

TEST(BenchCommands, RunLaterDefersTheJobUntilTheCallerRunsIt) {
  BenchJob job;
  BenchHooks hooks;
  hooks.run_later = [&job](BenchJob j) { job = std::move(j); };
  CLI::App app("signet");
  AddBenchCommands(app, std::move(hooks));
  const char* argv[] = {"signet",  "bench", "parallel", "--raw",     "--algo",
                        "ec:p256", "-n",    "3",        "--clients", "1"};
  testing::internal::CaptureStdout();
  app.parse(10, argv);
  const std::string during_parse = testing::internal::GetCapturedStdout();
  EXPECT_TRUE(during_parse.empty()) << during_parse;
  ASSERT_TRUE(job);
  testing::internal::CaptureStdout();
  EXPECT_EQ(job(), 0);
  EXPECT_NE(testing::internal::GetCapturedStdout().find("ecdsa_p256 sigs/sec "), std::string::npos);
}

TEST(BenchCommands, DaemonBackendHookIsUsedWhenGiven) {
  int made = 0;
  BenchHooks hooks;
  hooks.make_daemon_backend =
      [&made](const ParallelOptions&) -> Result<std::unique_ptr<SignerBackend>> {
    ++made;
    return MakeError(CKR_DEVICE_ERROR, "no daemon here");
  };
  CLI::App app("signet");
  AddBenchCommands(app, std::move(hooks));
  const char* argv[] = {"signet", "bench", "parallel", "-n", "3"};
  testing::internal::CaptureStderr();
  int code = 0;
  try {
    app.parse(5, argv);
  } catch (const CLI::ParseError& e) {
    code = app.exit(e);
  }
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(made, 1);
  EXPECT_EQ(code, 1);
  EXPECT_EQ(err, "bench parallel: no daemon here\n");  // app.exit adds nothing
}

TEST(BenchCommands, FailuresBecomeExitCodes) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(Parse({"bench", "speed", "--quick", "--algo", "nope"}), 1);
  EXPECT_EQ(Parse({"bench", "parallel", "-n", "5"}), 2);  // no daemon backend, no --raw
  EXPECT_NE(Parse({"bench", "parallel", "-n", "0", "--raw"}), 0);
  EXPECT_NE(Parse({"bench", "keygen", "--count", "-3"}), 0);
  EXPECT_NE(Parse({"bench"}), 0);  // a bench subcommand is required
  testing::internal::GetCapturedStderr();
}

}  // namespace
}  // namespace signet::bench
