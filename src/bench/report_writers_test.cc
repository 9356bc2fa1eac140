#include "bench/report_writers.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace signet::bench {
namespace {

Report SampleReport() {
  Report report;
  report.command = "speed";
  report.notes = {{"cycles", "TSC"}, {"keys", "10"}};
  Table table;
  table.id = "hashes";
  table.title = "hashes";
  table.chart_column = 2;
  table.label_columns = 2;
  table.columns = {{"Algorithm", 0}, {"Bytes", 0}, {"MiB/s", 1}};
  table.AddRow({std::string("MD5"), std::int64_t{1024}, 612.345678});
  table.AddRow({std::string("odd, \"name\""), std::int64_t{64}, 0.125});
  report.tables.push_back(table);
  Table second;
  second.id = "sign";
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

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

TEST(ReportWriters, EveryCsvFileHoldsOneTable) {
  const Report report = SampleReport();
  EXPECT_EQ(CsvPathFor("out/speed.csv", report, 0), "out/speed-hashes.csv");
  EXPECT_EQ(CsvPathFor("out/speed.csv", report, 1), "out/speed-sign.csv");
  EXPECT_EQ(CsvPathFor("speed", report, 1), "speed-sign");
  Report single = report;
  single.tables.resize(1);
  EXPECT_EQ(CsvPathFor("speed.csv", single, 0), "speed.csv");
  single.tables[0].id.clear();
  single.tables.push_back(single.tables[0]);
  EXPECT_EQ(CsvPathFor("x.csv", single, 1), "x-table2.csv");

  const auto dir =
      std::filesystem::temp_directory_path() / ("signet-report-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ostringstream unused;
  ASSERT_TRUE(WriteReportFile(report, (dir / "speed.csv").string(), true, unused).ok());
  EXPECT_FALSE(std::filesystem::exists(dir / "speed.csv"));
  EXPECT_EQ(ReadFile(dir / "speed-hashes.csv"),
            "Algorithm,Bytes,MiB/s\r\nMD5,1024,612.345678\r\n\"odd, \"\"name\"\"\",64,0.125\r\n");
  EXPECT_EQ(ReadFile(dir / "speed-sign.csv"), "Algorithm,ms/op\r\nRSA 2048 Sign,1.5\r\n");
  std::filesystem::remove_all(dir);
}

TEST(ReportWriters, ChartsDrawOneBarPerRowOfEachChartedTable) {
  const std::vector<BarChart> charts = ChartsOf(SampleReport());
  ASSERT_EQ(charts.size(), 1u);  // "sign" names no chart column
  EXPECT_EQ(charts[0].value_label, "MiB/s");
  ASSERT_EQ(charts[0].bars.size(), 2u);
  EXPECT_EQ(charts[0].bars[0].label, "MD5 1024");
  EXPECT_DOUBLE_EQ(charts[0].bars[0].values.at(0), 612.345678);
  std::ostringstream svg;
  WriteSvgBarCharts(charts, svg);
  std::size_t rects = 0;
  for (auto p = svg.str().find("<rect x="); p != std::string::npos;
       p = svg.str().find("<rect x=", p + 1)) {
    ++rects;
  }
  EXPECT_EQ(rects, 2u);
  EXPECT_NE(svg.str().find("odd, &quot;name&quot; 64"), std::string::npos);
}

}  // namespace
}  // namespace signet::bench
