#include "bench/speed.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace signet::bench {
namespace {

SpeedOptions QuickOptions() {
  SpeedOptions options;
  options.quick = true;
  options.algorithms = {"rsa:1024,ec:p256"};
  return options;
}

TEST(BenchSpeed, QuickRunHasBothTablesWithSaneNumbers) {
  auto report = MeasureSpeed(QuickOptions());
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_EQ(report->tables.size(), 2u);
  const Table& bulk = report->tables[0];
  ASSERT_EQ(bulk.rows.size(), 8u * 3u);  // 8 algorithms x 3 default sizes
  EXPECT_EQ(std::get<std::string>(bulk.rows[0][0]), "MD5");
  EXPECT_EQ(std::get<std::string>(bulk.rows.back()[0]), "Salsa20/12");
  for (const auto& row : bulk.rows) {
    EXPECT_GT(std::get<double>(row[2]), 0) << std::get<std::string>(row[0]);  // MiB/s
    EXPECT_GE(std::get<double>(row[3]), 0) << std::get<std::string>(row[0]);  // cycles/byte
  }
  const Table& sign = report->tables[1];
  ASSERT_EQ(sign.rows.size(), 8u);
  const char* names[] = {"RSA 1024 Sign",       "RSA 1024 Sign/pre",     "RSA 1024 Verify",
                         "RSA 1024 Verify/pre", "ECDSA P-256 Sign",      "ECDSA P-256 Sign/pre",
                         "ECDSA P-256 Verify",  "ECDSA P-256 Verify/pre"};
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(std::get<std::string>(sign.rows[i][0]), names[i]);
    EXPECT_GT(std::get<double>(sign.rows[i][1]), 0);        // ms/op
    EXPECT_GE(std::get<std::int64_t>(sign.rows[i][3]), 2);  // ops
  }
}

TEST(BenchSpeed, TextOutputStatesHowCyclesAreCounted) {
  std::ostringstream out, err;
  SpeedOptions options = QuickOptions();
  options.sizes = {256};
  ASSERT_EQ(RunSpeed(options, out, err), 0) << err.str();
  const std::string text = out.str();
  EXPECT_NE(text.find("# cycles: "), std::string::npos);
#if defined(__x86_64__)
  EXPECT_NE(text.find("time-stamp counter (RDTSC) at "), std::string::npos);
  EXPECT_NE(text.find("GHz measured against steady_clock"), std::string::npos);
#endif
  EXPECT_NE(text.find("Algorithm    Bytes"), std::string::npos) << text;
  EXPECT_NE(text.find("cycles/byte"), std::string::npos);
  EXPECT_NE(text.find("Mcycles/op"), std::string::npos);
  EXPECT_NE(text.find("\nAES-256-GCM    256"), std::string::npos) << text;
}

TEST(BenchSpeed, JsonToStdoutParses) {
  std::ostringstream out, err;
  SpeedOptions options = QuickOptions();
  options.skip_bulk = true;
  options.json_path = "-";
  ASSERT_EQ(RunSpeed(options, out, err), 0) << err.str();
  const auto doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc["command"], "speed");
  ASSERT_EQ(doc["tables"].size(), 1u);
  EXPECT_EQ(doc["tables"][0]["rows"][0]["Algorithm"], "RSA 1024 Sign");
  EXPECT_GT(doc["tables"][0]["rows"][0]["ms/op"].get<double>(), 0);
}

// Seed 002's rows: secp192r1 and P-521 sign and verify in-process; RSA of
// a size outside the table (seed 002's is 2056; 1032 keeps the test short).
TEST(BenchSpeed, SeedRowsForOtherCurvesAndRsaSizes) {
  SpeedOptions options = QuickOptions();
  options.skip_bulk = true;
  options.algorithms = {"ec:secp192r1,ec:p521,rsa:1032"};
  auto report = MeasureSpeed(options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  const Table& sign = report->tables.at(0);
  ASSERT_EQ(sign.rows.size(), 12u);
  EXPECT_EQ(std::get<std::string>(sign.rows[1][0]), "ECDSA secp192r1 Sign/pre");
  EXPECT_EQ(std::get<std::string>(sign.rows[7][0]), "ECDSA P-521 Verify/pre");
  EXPECT_EQ(std::get<std::string>(sign.rows[8][0]), "RSA 1032 Sign");
}

TEST(BenchSpeed, UnknownAlgorithmIsAnError) {
  std::ostringstream out, err;
  SpeedOptions options = QuickOptions();
  options.algorithms = {"rsa:4100"};
  EXPECT_EQ(RunSpeed(options, out, err), 1);
  EXPECT_NE(err.str().find("unknown algorithm 'rsa:4100'"), std::string::npos) << err.str();
  options.algorithms = {};
  options.sizes = {0};
  EXPECT_EQ(MeasureSpeed(options).error().code, CKR_ARGUMENTS_BAD);
}

}  // namespace
}  // namespace signet::bench
