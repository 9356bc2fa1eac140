#include "bench/profile.h"

#include <gtest/gtest.h>

#include <variant>

namespace signet::bench {
namespace {

double Share(const Table& table, const std::string& phase) {
  for (const auto& row : table.rows) {
    if (std::get<std::string>(row[0]) == phase) return std::get<double>(row[4]);
  }
  ADD_FAILURE() << phase << " missing";
  return 0;
}

TEST(ProfileReport, LeafRowsAddUpToTheWholeAndExecuteSplitsIntoItsParts) {
  const std::vector<PhaseDelta> phases = {
      {"decode", 10, 1000},     {"queue_wait", 10, 4000}, {"key_fetch_hit", 10, 500},
      {"key_fetch_miss", 0, 0}, {"unwrap", 0, 0},         {"sign", 10, 30000},
      {"verify", 0, 0},         {"encode", 10, 500},      {"execute", 10, 35000},
  };
  ProfileOptions options;
  options.n = 10;
  Report report = ProfileReport(phases, 50000, options, 20.0, 1e6);
  ASSERT_EQ(report.tables.size(), 1u);
  const Table& t = report.tables[0];
  EXPECT_DOUBLE_EQ(Share(t, "sign"), 60.0);
  EXPECT_DOUBLE_EQ(Share(t, "execute"), 70.0);
  EXPECT_DOUBLE_EQ(Share(t, "execute_other"), 8.0);    // 35000 - 31000
  EXPECT_DOUBLE_EQ(Share(t, "outside_daemon"), 20.0);  // 50000 - 40000
  double leaves = 0;
  for (const char* p : {"decode", "queue_wait", "key_fetch_hit", "key_fetch_miss", "unwrap", "sign",
                        "verify", "encode", "execute_other", "outside_daemon"}) {
    leaves += Share(t, p);
  }
  EXPECT_DOUBLE_EQ(leaves, 100.0);
  EXPECT_DOUBLE_EQ(Share(t, "whole"), 100.0);
  // 60 records over 10 requests at 20 ns = 120 ns of a 1 ms signature.
  bool found = false;
  for (const auto& [key, value] : report.notes) {
    if (key == "counter cost per request") {
      found = true;
      EXPECT_NE(value.find("6.00 records/request"), std::string::npos) << value;
      EXPECT_NE(value.find("= 120 ns/request = 0.0120%"), std::string::npos) << value;
    }
  }
  EXPECT_TRUE(found);
}

// CSV and JSON readers get plain phase names; the containment is a column.
TEST(ProfileReport, PhaseNamesArePlainAndWithinSaysWhatContainsThem) {
  ProfileOptions options;
  Report report = ProfileReport({{"sign", 1, 10}, {"execute", 1, 20}}, 40, options, 20.0, 1e6);
  bool saw_sign = false;
  for (const auto& row : report.tables.at(0).rows) {
    const std::string& name = std::get<std::string>(row[0]);
    EXPECT_NE(name.front(), ' ') << name;
    if (name == "sign") {
      saw_sign = true;
      EXPECT_EQ(std::get<std::string>(row[1]), "execute");
    }
    if (name == "decode") {
      EXPECT_EQ(std::get<std::string>(row[1]), "");
    }
  }
  EXPECT_TRUE(saw_sign);
}

TEST(ProfileReport, CounterCostIsMeasuredAndPositive) { EXPECT_GT(MeasureCounterCost(1000), 0.0); }

}  // namespace
}  // namespace signet::bench
