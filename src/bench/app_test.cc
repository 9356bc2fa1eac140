// `bench app` without a daemon: RSA under 1024 bits runs in this process
// (the daemon rows are tests/e2e/bench/app_test.cc's).
#include "bench/app.h"

#include <gtest/gtest.h>

#include <map>

namespace signet::bench {
namespace {

std::map<std::string, std::string> Notes(const Report& report) {
  return {report.notes.begin(), report.notes.end()};
}

TEST(BenchApp, SmallRsaRowsRunInProcessAndTheHeaderSaysWhatRan) {
  AppOptions options;
  options.algorithms = {"rsa:512,rsa:522"};
  options.trials = 2;
  options.progress = false;
  auto report = MeasureApp(options, ServiceAccess{});
  ASSERT_TRUE(report.ok()) << report.error().message;
  const Table& table = report->tables.at(0);
  ASSERT_EQ(table.rows.size(), 2u);
  const char* keys[] = {"RSA 512", "RSA 522"};
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& row = table.rows[i];
    EXPECT_EQ(std::get<std::string>(row[0]), keys[i]);
    EXPECT_EQ(std::get<std::string>(row[1]), "in-process");
    EXPECT_EQ(std::get<std::int64_t>(row[2]), 2);
    const double create = std::get<double>(row[3]), keygen = std::get<double>(row[6]);
    EXPECT_GT(keygen, 0);
    EXPECT_GE(create, keygen);                // create = keygen + hash + signature
    EXPECT_GT(std::get<double>(row[7]), 0);   // upload
    EXPECT_GT(std::get<double>(row[10]), 0);  // download
  }
  const auto notes = Notes(*report);
  EXPECT_EQ(notes.at("pool modes"), "in-process");
  EXPECT_EQ(notes.at("files"), "2 per key type and mode");
  EXPECT_NE(notes.at("in-process").find("refuses RSA under 1024 bits"), std::string::npos);
  // Before: "mode: quick" whatever ran, and a cycle counter no column used.
  EXPECT_EQ(notes.count("mode"), 0u);
  EXPECT_EQ(notes.count("cycles"), 0u);
  EXPECT_EQ(notes.count("daemon"), 0u);  // none was started
}

TEST(BenchApp, InProcessModeAndBadModes) {
  AppOptions options;
  options.algorithms = {"ec:p384"};
  options.trials = 1;
  options.progress = false;
  options.pool = "in-process";
  auto report = MeasureApp(options, ServiceAccess{});
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(std::get<std::string>(report->tables[0].rows.at(0)[1]), "in-process");
  options.pool = "sometimes";
  auto bad = MeasureApp(options, ServiceAccess{});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("on, off, both or in-process"), std::string::npos);
}

}  // namespace
}  // namespace signet::bench
