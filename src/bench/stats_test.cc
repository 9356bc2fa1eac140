#include "bench/stats.h"

#include <gtest/gtest.h>

#include <vector>

namespace signet::bench {
namespace {

TEST(Stats, OddSampleSet) {
  const std::vector<double> samples = {5, 1, 3, 2, 4};
  const Summary s = Summarize(samples);
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.p50, 3);
  EXPECT_DOUBLE_EQ(s.p99, 4.96);  // rank 0.99 * 4 = 3.96 between 4 and 5
  EXPECT_DOUBLE_EQ(s.best, 1);
  EXPECT_DOUBLE_EQ(s.worst, 5);
}

TEST(Stats, EvenSampleSetMedianIsMeanOfMiddle) {
  const std::vector<double> samples = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(Summarize(samples).median, 2.5);
}

TEST(Stats, OneSampleAndNone) {
  const std::vector<double> one = {7};
  const Summary s = Summarize(one);
  EXPECT_EQ(s.count, 1u);
  EXPECT_DOUBLE_EQ(s.mean, 7);
  EXPECT_DOUBLE_EQ(s.p99, 7);
  EXPECT_DOUBLE_EQ(s.worst, 7);
  const Summary none = Summarize({});
  EXPECT_EQ(none.count, 0u);
  EXPECT_EQ(none.mean, 0);
}

TEST(Stats, PercentileEndpoints) {
  const std::vector<double> sorted = {10, 20, 30};
  EXPECT_DOUBLE_EQ(Percentile(sorted, 0), 10);
  EXPECT_DOUBLE_EQ(Percentile(sorted, 1), 30);
  EXPECT_DOUBLE_EQ(Percentile(sorted, 0.25), 15);
}

TEST(Stats, OutlierMovesMeanNotMedian) {
  const std::vector<double> samples = {1, 1, 1, 1, 100};
  const Summary s = Summarize(samples);
  EXPECT_DOUBLE_EQ(s.median, 1);
  EXPECT_DOUBLE_EQ(s.mean, 20.8);
}

}  // namespace
}  // namespace signet::bench
