#include "bench/parallel.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "bench/raw_backend.h"
#include "crypto/crypto_test_util.h"

namespace signet::bench {
namespace {

const std::regex kLine(
    R"(^(\S+) sigs/sec [0-9.e+]+ secs/sig \d+:\d\d:\d\d\.\d{6} mean \d+:\d\d:\d\d\.\d{6} )"
    R"(\(n (\d+), c (\d+) t0 \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6} )"
    R"(t1 \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}\) p50 \d+:\d\d:\d\d\.\d{6} p99 \d+:\d\d:\d\d\.\d{6}$)");

ParallelOptions SmallRun() {
  ParallelOptions options;
  options.algorithms = {"ecp256", "rsa1024"};
  options.clients = {1, 2};
  options.n = 12;
  options.raw = true;
  options.progress = false;
  return options;
}

// SeedLines reads `text` as a parser of seed 000 would: it skips empty
// lines and '#' notes, and every other line must be in the seed's format.
std::vector<std::string> SeedLines(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.starts_with('#')) continue;
    EXPECT_TRUE(std::regex_match(line, kLine)) << line;
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> Notes(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> notes;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with('#')) notes.push_back(line);
  }
  return notes;
}

// Every operation besides signing runs in-process (--raw) under the same
// load generator and prints the same line, under the operation's label.
TEST(BenchParallel, RawRunMeasuresEveryOtherOperation) {
  ParallelOptions options = SmallRun();
  options.algorithms.clear();
  for (const BenchOperation& op : AllBenchOperations()) options.algorithms.emplace_back(op.id);
  options.clients = {2};
  options.n = 6;
  std::ostringstream out, err;
  ASSERT_EQ(RunParallel(options, nullptr, out, err), 0) << err.str();
  const auto lines = SeedLines(out.str());
  ASSERT_EQ(lines.size(), AllBenchOperations().size()) << out.str();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(lines[i], m, kLine)) << lines[i];
    EXPECT_EQ(m[1].str(), AllBenchOperations()[i].label);
  }
  options.algorithms = {"aes-gcm-2k"};
  EXPECT_NE(RunParallel(options, nullptr, out, err), 0);
}

TEST(BenchParallel, RawRunPrintsOneSeedLinePerAlgorithmAndClientCount) {
  crypto::testing::TempDir dir;
  ASSERT_TRUE(dir.ok());
  ParallelOptions options = SmallRun();
  options.json_path = dir.File("p.json");
  options.chart_path = dir.File("p.svg");
  std::ostringstream out, err;
  ASSERT_EQ(RunParallel(options, nullptr, out, err), 0) << err.str();

  const auto lines = SeedLines(out.str());
  ASSERT_EQ(lines.size(), 4u) << out.str();
  const char* expected[][2] = {
      {"ecdsa_p256", "1"}, {"ecdsa_p256", "2"}, {"rsa_1024", "1"}, {"rsa_1024", "2"}};
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(lines[i], m, kLine)) << lines[i];
    EXPECT_EQ(m[1], expected[i][0]);
    EXPECT_EQ(m[2], "12");
    EXPECT_EQ(m[3], expected[i][1]);
  }

  std::ifstream json_file(options.json_path);
  const auto doc = nlohmann::json::parse(json_file);
  const auto& rows = doc["tables"][0]["rows"];
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) {
    EXPECT_EQ(row["backend"], "raw");
    EXPECT_EQ(row["n"], 12);
    EXPECT_GT(row["sigs/sec"].get<double>(), 0);
  }

  std::ifstream svg_file(options.chart_path);
  const std::string svg((std::istreambuf_iterator<char>(svg_file)), {});
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  std::size_t polylines = 0;
  for (auto p = svg.find("<polyline"); p != std::string::npos; p = svg.find("<polyline", p + 1)) {
    ++polylines;
  }
  EXPECT_EQ(polylines, 2u);  // one per algorithm
}

// Stands in for the daemon backend (not built yet) by delegating to the
// real raw backend under another name, to exercise the two-backend layout.
class RenamedBackend : public SignerBackend {
 public:
  std::string_view name() const override { return "daemon"; }
  Result<WorkerFactory> Prepare(const SignAlgorithm& algo, bool verify) override {
    return inner_->Prepare(algo, verify);
  }

 private:
  std::unique_ptr<SignerBackend> inner_ = MakeRawBackend();
};

TEST(BenchParallel, WithTwoBackendsRawLinesAreTaggedAndRatiosAreNotes) {
  ParallelOptions options = SmallRun();
  options.algorithms = {"ed25519"};
  options.clients = {1, 2};
  options.verify = false;
  RenamedBackend daemon;
  std::ostringstream out, err;
  ASSERT_EQ(RunParallel(options, &daemon, out, err), 0) << err.str();
  const auto lines = SeedLines(out.str());
  ASSERT_EQ(lines.size(), 4u) << out.str();
  EXPECT_EQ(lines[0].rfind("ed25519 sigs/sec ", 0), 0u);
  EXPECT_EQ(lines[1].rfind("ed25519/raw sigs/sec ", 0), 0u);
  const auto notes = Notes(out.str());
  ASSERT_EQ(notes.size(), 5u) << out.str();
  EXPECT_NE(notes[0].find("UTC"), std::string::npos) << notes[0];
  for (int i = 1; i <= 2; ++i) {
    const std::regex ratio("^# ratio daemon/raw ed25519 c " + std::to_string(i) +
                           R"( sigs/sec \d+\.\d{3}$)");
    EXPECT_TRUE(std::regex_match(notes[i], ratio)) << notes[i];
  }
  // c = 1 ran on both: the latency against raw plus a process round trip.
  EXPECT_TRUE(std::regex_match(
      notes[3], std::regex(R"(^# socketpair round trip between two processes: median \d+\.\d us, )"
                           R"(mean \d+\.\d us \(2000 round trips\)$)")))
      << notes[3];
  EXPECT_TRUE(std::regex_match(
      notes[4],
      std::regex(R"(^# c = 1 ed25519: daemon mean \d+\.\d us; raw mean \d+\.\d us )"
                 R"(\+ round trip \d+\.\d us = \d+\.\d us; (within|over) by \d+\.\d us$)")))
      << notes[4];
}

TEST(BenchParallel, WithoutDaemonOrRawItRefuses) {
  ParallelOptions options = SmallRun();
  options.raw = false;
  std::ostringstream out, err;
  EXPECT_EQ(RunParallel(options, nullptr, out, err), 2);
  EXPECT_NE(err.str().find("--raw"), std::string::npos);
  EXPECT_TRUE(out.str().empty());
}

TEST(BenchParallel, BadOptionsAreErrors) {
  auto raw = MakeRawBackend();
  std::ostringstream out;
  ParallelOptions options = SmallRun();
  options.clients = {};
  EXPECT_EQ(MeasureParallel(options, {raw.get()}, out).error().code, CKR_ARGUMENTS_BAD);
  options.clients = {0};
  EXPECT_EQ(MeasureParallel(options, {raw.get()}, out).error().code, CKR_ARGUMENTS_BAD);
  options = SmallRun();
  options.n = 0;
  EXPECT_EQ(MeasureParallel(options, {raw.get()}, out).error().code, CKR_ARGUMENTS_BAD);
  options = SmallRun();
  options.algorithms = {"rsa:511"};  // benches take RSA of 512-4096 bits
  EXPECT_EQ(MeasureParallel(options, {raw.get()}, out).error().code, CKR_ARGUMENTS_BAD);
}

}  // namespace
}  // namespace signet::bench
