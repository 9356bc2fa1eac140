#include "bench/report_writers.h"

#include <gtest/gtest.h>

#include <sstream>

namespace signet::bench {
namespace {

Report SampleReport() {
  Report report;
  report.command = "speed";
  report.notes = {{"cycles", "TSC"}, {"keys", "10"}};
  Table table;
  table.title = "hashes";
  table.columns = {{"Algorithm", 0}, {"Bytes", 0}, {"MiB/s", 1}};
  table.AddRow({std::string("MD5"), std::int64_t{1024}, 612.345678});
  table.AddRow({std::string("odd, \"name\""), std::int64_t{64}, 0.125});
  report.tables.push_back(table);
  Table second;
  second.title = "sign";
  second.columns = {{"Algorithm", 0}, {"ms/op", 3}};
  second.AddRow({std::string("RSA 2048 Sign"), 1.5});
  report.tables.push_back(second);
  return report;
}

TEST(ReportWriters, CsvQuotesAndKeepsPrecision) {
  std::ostringstream out;
  WriteCsv(SampleReport(), out);
  EXPECT_EQ(out.str(),
            "Algorithm,Bytes,MiB/s\r\n"
            "MD5,1024,612.345678\r\n"
            "\"odd, \"\"name\"\"\",64,0.125\r\n"
            "\r\n"
            "Algorithm,ms/op\r\n"
            "RSA 2048 Sign,1.5\r\n");
}

TEST(ReportWriters, JsonParsesBackWithTypedCells) {
  const std::string text = ToJson(SampleReport()).dump();
  const nlohmann::json doc = nlohmann::json::parse(text);  // throws if malformed
  EXPECT_EQ(doc["command"], "speed");
  EXPECT_EQ(doc["notes"]["cycles"], "TSC");
  ASSERT_EQ(doc["tables"].size(), 2u);
  const auto& rows = doc["tables"][0]["rows"];
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["Algorithm"], "MD5");
  EXPECT_EQ(rows[0]["Bytes"].get<int>(), 1024);
  EXPECT_DOUBLE_EQ(rows[0]["MiB/s"].get<double>(), 612.345678);
  EXPECT_EQ(rows[1]["Algorithm"], "odd, \"name\"");
  EXPECT_EQ(doc["tables"][1]["columns"][1], "ms/op");
}

TEST(ReportWriters, TextAlignsLikeTheSeedTables) {
  std::ostringstream out;
  WriteText(SampleReport(), out);
  const std::string text = out.str();
  EXPECT_NE(text.find("# cycles: TSC\n"), std::string::npos);
  EXPECT_NE(text.find("Algorithm    Bytes  MiB/s\n"
                      "---------    -----  -----\n"
                      "MD5           1024  612.3\n"
                      "odd, \"name\"     64    0.1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("RSA 2048 Sign  1.500\n"), std::string::npos) << text;
}

TEST(ReportWriters, FileErrorsAreReported) {
  std::ostringstream unused;
  Status status = WriteReportFile(SampleReport(), "/nonexistent-dir/x.json", false, unused);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, CKR_FUNCTION_FAILED);
  ASSERT_TRUE(WriteReportFile(SampleReport(), "-", true, unused).ok());
  EXPECT_EQ(unused.str().rfind("Algorithm,Bytes", 0), 0u);
}

}  // namespace
}  // namespace signet::bench
