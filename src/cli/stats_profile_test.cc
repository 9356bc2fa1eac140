#include "cli/stats_profile.h"

#include <gtest/gtest.h>

namespace signet::cli {
namespace {

TEST(StatsProfile, IntervalsParseInSecondsOrMilliseconds) {
  EXPECT_EQ(*ParseInterval("1s"), std::chrono::milliseconds(1000));
  EXPECT_EQ(*ParseInterval("250ms"), std::chrono::milliseconds(250));
  EXPECT_EQ(*ParseInterval("1.5s"), std::chrono::milliseconds(1500));
  EXPECT_EQ(*ParseInterval("2"), std::chrono::milliseconds(2000));
  for (const char* bad : {"", "s", "1x", "5ms", "-1s", "1e9s", "one"}) {
    EXPECT_FALSE(ParseInterval(bad).ok()) << bad;
  }
}

client::ServerStats Stats(std::uint64_t completed, std::uint64_t sign_calls, std::uint64_t sign_ns,
                          std::uint64_t execute_ns) {
  client::ServerStats s;
  s.workers = 2;
  s.completed = completed;
  s.cache_hits = completed;
  s.phases = {{"sign", sign_calls, sign_ns}, {"execute", sign_calls, execute_ns}};
  return s;
}

TEST(StatsProfile, RatesAreTheCountersChangeOverTheInterval) {
  // 2 s: 4000 signatures of 250 us each (1 s in 2 s: 50% of one core); the
  // execute phase 1 s of the 2 workers' 4 s: 25% busy.
  const auto before = Stats(1000, 1000, 250'000'000, 500'000'000);
  const auto after = Stats(5000, 5000, 1'250'000'000, 1'500'000'000);
  Json j = ProfileJson(before, after, 2.0);
  EXPECT_DOUBLE_EQ(j["requests_per_s"].get<double>(), 2000);
  EXPECT_EQ(j["cache_hits"].get<std::uint64_t>(), 4000u);
  EXPECT_DOUBLE_EQ(j["workers_busy_percent"].get<double>(), 25);
  EXPECT_EQ(j["phases"][0]["name"], "sign");
  EXPECT_DOUBLE_EQ(j["phases"][0]["calls_per_s"].get<double>(), 2000);
  EXPECT_DOUBLE_EQ(j["phases"][0]["us_per_call"].get<double>(), 250);
  EXPECT_DOUBLE_EQ(j["phases"][0]["core_percent"].get<double>(), 50);
  std::string text = ProfileText(before, after, 2.0);
  EXPECT_NE(text.find("2000.0 requests/s"), std::string::npos) << text;
  EXPECT_NE(text.find("workers busy 25.0% of 2"), std::string::npos) << text;
}

TEST(StatsProfile, ACounterThatWentBackCountsAsZero) {
  Json j = ProfileJson(Stats(5000, 5000, 1, 1), Stats(10, 10, 1, 1), 1.0);
  EXPECT_DOUBLE_EQ(j["requests_per_s"].get<double>(), 0);
}

}  // namespace
}  // namespace signet::cli
