// `signet bench seeds` end to end, against the throw-away signetd it starts:
// every row of the seed-figure data file (src/bench/seed_figures.json, read
// here from the repository) appears in the output beside a figure from this
// machine and a ratio, unless the file says it has no counterpart; the
// CSV, JSON, SVG and HTML forms are written. No timing assertions.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../daemon_fixture.h"

namespace signet::e2e {
namespace {

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);  // throws if malformed
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(BenchSeedsTest, EverySeedRowHasThisMachinesFigure) {
  TempDir dir;
  const std::string json_path = dir.path() + "/seeds.json";
  const std::string html_path = dir.path() + "/seeds.html";
  const std::string svg_path = dir.path() + "/seeds.svg";
  ProgramResult r =
      RunProgram({BinaryPath("signet"), "bench", "seeds", "--json", json_path, "--html", html_path,
                  "--chart", svg_path, "--csv", dir.path() + "/seeds.csv"},
                 {{"SIGNET_SOCKET", ""}});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("summary"), std::string::npos) << r.out;

  const nlohmann::json figures = ReadJson(SIGNET_SEED_FIGURES_FILE);
  const nlohmann::json out = ReadJson(json_path);
  std::map<std::string, const nlohmann::json*> tables;
  for (const auto& table : out["tables"]) tables[table["title"]] = &table;
  int rows_checked = 0;
  for (const auto& seed : figures["seeds"]) {
    for (const auto& seed_table : seed["tables"]) {
      const std::string title =
          "seed " + seed["id"].get<std::string>() + ": " + seed_table["title"].get<std::string>();
      ASSERT_TRUE(tables.count(title)) << title << " missing";
      const auto& rows = (*tables[title])["rows"];
      ASSERT_EQ(rows.size(), seed_table["rows"].size()) << title;
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& want = seed_table["rows"][i];
        const auto& got = rows[i];
        EXPECT_EQ(got["seed row"], want["name"]) << title;
        for (std::size_t c = 0; c < seed_table["columns"].size(); ++c) {
          const std::string column = seed_table["columns"][c]["name"];
          EXPECT_DOUBLE_EQ(got[column + " seed"].get<double>(), want["values"][c].get<double>());
          if (want["here"].is_null()) {
            EXPECT_EQ(got[column + " here"], "-") << want;
            continue;
          }
          ASSERT_TRUE(got[column + " here"].is_number()) << title << ": " << got;
          ASSERT_TRUE(got[column + " x"].is_number()) << title << ": " << got;
          // Shares of the time can be 0 (seed 001's key unwrap: signet's
          // key cache keeps it off the signing path); rates and times not.
          if (column == "% time") continue;
          EXPECT_GT(got[column + " here"].get<double>(), 0) << title << ": " << got;
          EXPECT_GT(got[column + " x"].get<double>(), 0) << title << ": " << got;
        }
        ++rows_checked;
      }
    }
  }
  EXPECT_EQ(rows_checked, 24 + 6 + 21 + 6);

  const std::string html = ReadFile(html_path);
  for (const char* seed : {"000", "001", "002", "003"}) {
    EXPECT_NE(html.find(std::string("<h2>Seed ") + seed), std::string::npos) << seed;
  }
  EXPECT_EQ(ReadFile(svg_path).rfind("<svg", 0), 0u);
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/seeds-002-sign.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/seeds-summary.csv"));
}

}  // namespace
}  // namespace signet::e2e
