#include "bench/seeds.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "bench/report_writers.h"

namespace signet::bench {
namespace {

std::vector<Seed> Figures() {
  auto seeds = ParseSeedFigures(SeedFiguresJson());
  EXPECT_TRUE(seeds.ok()) << seeds.error().message;
  return seeds.ok() ? *seeds : std::vector<Seed>{};
}

std::size_t RowCount(const Seed& seed) {
  std::size_t n = 0;
  for (const auto& t : seed.tables) n += t.rows.size();
  return n;
}

// The program carries the repository's file, and the file carries every
// row of the four seed reports (docs/SEEDS.md describes them).
TEST(SeedFigures, TheCompiledInFiguresAreTheFileAndHoldEverySeedRow) {
  std::ifstream file(SIGNET_SEED_FIGURES_FILE, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(file)), {});
  EXPECT_EQ(std::string(SeedFiguresJson()), text);
  const auto seeds = Figures();
  ASSERT_EQ(seeds.size(), 4u);
  EXPECT_EQ(seeds[0].id, "000");
  EXPECT_EQ(RowCount(seeds[0]), 24u);  // rsa_1024/2048/4096 at c = 1..8
  EXPECT_EQ(RowCount(seeds[1]), 6u);   // five call-graph entries and the throughput
  EXPECT_EQ(RowCount(seeds[2]), 21u);  // 5 hashes/ciphers, 10 signatures, 6 key generations
  EXPECT_EQ(RowCount(seeds[3]), 6u);   // 3 key sizes on 2 setups
  for (const Seed& seed : seeds) {
    EXPECT_FALSE(seed.source.empty()) << seed.id;
    for (const auto& table : seed.tables) {
      for (const auto& row : table.rows) {
        EXPECT_TRUE(!row.here.empty() || !row.why.empty())
            << row.name << ": no counterpart, no why";
      }
    }
  }
}

TEST(SeedFigures, MalformedFilesAreErrors) {
  EXPECT_FALSE(ParseSeedFigures("{").ok());
  EXPECT_FALSE(ParseSeedFigures(R"({"seeds": [{"id": "9", "title": "t", "source": "s", "tables": [
      {"id": "x", "title": "x", "bench": "nosuch", "table": "t", "columns": [], "rows": []}]}]})")
                   .ok());
  EXPECT_FALSE(ParseSeedFigures(R"({"seeds": [{"id": "9", "title": "t", "source": "s", "tables": [
      {"id": "x", "title": "x", "bench": "speed", "table": "t",
       "columns": [{"name": "a", "here": "a", "ratio": "here/seed"}],
       "rows": [{"name": "r", "values": [1, 2], "here": null}]}]}]})")
                   .ok());
}

// A made-up seed with a rate, a time, a summed counterpart and a row with
// none, against a made-up bench report.
TEST(SeedsReport, RatiosAreOrientedSoAboveOneIsBetterAndMissingRowsAreCounted) {
  Seed seed;
  seed.id = "x1";
  seed.title = "test";
  seed.source = "here";
  SeedTable t;
  t.id = "t";
  t.title = "rates and times";
  t.bench = "speed";
  t.table = "sign";
  t.columns = {{"ops/s", "rate", true}, {"ms", "time", false}};
  t.rows = {{"fast", {10, 4}, {{{"Algorithm", "A"}}}, "", ""},
            {"summed", {10, 4}, {{{"Algorithm", "A"}}, {{"Algorithm", "B"}}}, "", ""},
            {"absent", {1, 1}, {{{"Algorithm", "Z"}}}, "", ""},
            {"none", {1, 1}, {}, "", "no such thing here"}};
  seed.tables = {t};
  Table here;
  here.id = "sign";
  here.columns = {{"Algorithm", 0}, {"rate", 2}, {"time", 2}};
  here.AddRow({std::string("A"), 50.0, 2.0});
  here.AddRow({std::string("B"), std::int64_t{30}, 6.0});
  Report bench;
  bench.tables = {here};
  const Report report = SeedsReport({seed}, {{"speed", bench}}, false);
  ASSERT_EQ(report.tables.size(), 2u);  // the seed table and the summary
  const Table& out = report.tables[0];
  EXPECT_EQ(out.id, "x1-t");
  ASSERT_EQ(out.rows.size(), 4u);
  EXPECT_DOUBLE_EQ(std::get<double>(out.rows[0][2]), 50);
  EXPECT_DOUBLE_EQ(std::get<double>(out.rows[0][3]), 5);    // 50 ops/s against 10
  EXPECT_DOUBLE_EQ(std::get<double>(out.rows[0][6]), 2);    // 2 ms against 4
  EXPECT_DOUBLE_EQ(std::get<double>(out.rows[1][2]), 80);   // A + B
  EXPECT_DOUBLE_EQ(std::get<double>(out.rows[1][6]), 0.5);  // 8 ms against 4
  EXPECT_EQ(std::get<std::string>(out.rows[2][2]), "missing");
  EXPECT_EQ(std::get<std::string>(out.rows[3][2]), "-");
  EXPECT_NE(std::get<std::string>(out.rows[3][7]).find("no such thing here"), std::string::npos);
  EXPECT_EQ(MissingFigures(report), 2);  // both columns of "absent"
  const Table& summary = report.tables[1];
  EXPECT_EQ(std::get<std::int64_t>(summary.rows[0][3]), 2);  // rows measured
  EXPECT_DOUBLE_EQ(std::get<double>(summary.rows[0][4]), 6.5);

  const auto charts = SeedCharts({seed}, report);
  ASSERT_EQ(charts.at("x1").size(), 1u);
  EXPECT_EQ(charts.at("x1")[0].bars.size(), 4u);
  std::ostringstream html;
  WriteSeedsHtml({seed}, report, charts, html);
  EXPECT_NE(html.str().find("<h2>Seed x1: test</h2>"), std::string::npos);
  EXPECT_NE(html.str().find("<svg"), std::string::npos);
  EXPECT_NE(html.str().find("<caption>summary"), std::string::npos);
}

}  // namespace
}  // namespace signet::bench
