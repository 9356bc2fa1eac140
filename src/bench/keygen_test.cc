#include "bench/keygen.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "crypto/crypto_test_util.h"

namespace signet::bench {
namespace {

KeygenOptions OneKeyEach() {
  KeygenOptions options;
  options.algorithms = {"rsa:1024", "ec:p256"};
  options.count = 1;
  options.quick = true;
  options.progress = false;
  return options;
}

TEST(BenchKeygen, OneKeyPerTypeGivesEqualSummaries) {
  auto report = MeasureKeygen(OneKeyEach());
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_EQ(report->tables.size(), 1u);
  const Table& table = report->tables[0];
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(std::get<std::string>(table.rows[0][0]), "RSA 1024");
  EXPECT_EQ(std::get<std::string>(table.rows[1][0]), "ECDSA P-256");
  for (const auto& row : table.rows) {
    EXPECT_EQ(std::get<std::int64_t>(row[1]), 1);
    const double best = std::get<double>(row[2]);
    EXPECT_GT(best, 0);
    for (int col = 3; col <= 5; ++col) EXPECT_DOUBLE_EQ(std::get<double>(row[col]), best);
  }
  bool stated = false;
  for (const auto& [key, value] : report->notes) stated |= key == "keys" && value == "1 per type";
  EXPECT_TRUE(stated);
}

TEST(BenchKeygen, CsvFileAndTextAreWellFormed) {
  crypto::testing::TempDir dir;
  ASSERT_TRUE(dir.ok());
  KeygenOptions options = OneKeyEach();
  options.csv_path = dir.File("keygen.csv");
  std::ostringstream out, err;
  ASSERT_EQ(RunKeygen(options, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("Algorithm    keys  best ms  mean ms  median ms  worst ms"),
            std::string::npos)
      << out.str();
  std::ifstream csv(options.csv_path);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(csv, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "Algorithm,keys,best ms,mean ms,median ms,worst ms,Mcycles/key\r");
  EXPECT_EQ(lines[1].rfind("RSA 1024,1,", 0), 0u);
  EXPECT_EQ(lines[2].rfind("ECDSA P-256,1,", 0), 0u);
}

// Seed 002's key-generation rows: secp192r1, and RSA of a size outside the
// table (2056 there; 600 here, generated in-process below the token minimum).
TEST(BenchKeygen, Secp192r1AndRsaOfAnySize) {
  KeygenOptions options = OneKeyEach();
  options.algorithms = {"ec:secp192r1", "rsa:600"};
  auto report = MeasureKeygen(options);
  ASSERT_TRUE(report.ok()) << report.error().message;
  const Table& table = report->tables.at(0);
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(std::get<std::string>(table.rows[0][0]), "ECDSA secp192r1");
  EXPECT_EQ(std::get<std::string>(table.rows[1][0]), "RSA 600");
}

TEST(BenchKeygen, BadArgumentsAreErrors) {
  KeygenOptions options = OneKeyEach();
  options.count = -1;
  EXPECT_EQ(MeasureKeygen(options).error().code, CKR_ARGUMENTS_BAD);
  options.count = 1;
  options.algorithms = {"dsa"};
  EXPECT_EQ(MeasureKeygen(options).error().code, CKR_ARGUMENTS_BAD);
  std::ostringstream out, err;
  options.json_path = "/nonexistent-dir/k.json";
  options.algorithms = {"ec:p256"};
  EXPECT_EQ(RunKeygen(options, out, err), 1);
  EXPECT_NE(err.str().find("cannot write"), std::string::npos);
}

}  // namespace
}  // namespace signet::bench
