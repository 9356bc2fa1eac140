#include "daemon/prometheus_text.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>

namespace signet::daemon {
namespace {

TEST(PrometheusText, EscapesBackslashQuoteAndNewlineInLabelValues) {
  EXPECT_EQ(EscapeLabelValue("plain"), "plain");
  EXPECT_EQ(EscapeLabelValue("a\\b"), "a\\\\b");
  EXPECT_EQ(EscapeLabelValue("say \"hi\""), "say \\\"hi\\\"");
  EXPECT_EQ(EscapeLabelValue("two\nlines"), "two\\nlines");
  // A label cannot end the sample line or forge another one.
  PrometheusText out;
  out.Sample("m", {{"token", "x\"} 1\nforged 2"}}, 3);
  EXPECT_EQ(out.text(), "m{token=\"x\\\"} 1\\nforged 2\"} 3\n");
}

TEST(PrometheusText, HelpIsEscapedAndTypeFollows) {
  PrometheusText out;
  out.Family("signet_x_total", "counter", "a \\ and a\nnewline");
  EXPECT_EQ(out.text(),
            "# HELP signet_x_total a \\\\ and a\\nnewline\n# TYPE signet_x_total counter\n");
}

TEST(PrometheusText, SampleValuesAreExactIntegersOrShortestFloats) {
  EXPECT_EQ(FormatSampleValue(0), "0");
  EXPECT_EQ(FormatSampleValue(12345678901234.0), "12345678901234");
  EXPECT_EQ(FormatSampleValue(0.25), "0.25");
  EXPECT_EQ(FormatSampleValue(1e-05), "1e-05");
  EXPECT_EQ(FormatSampleValue(0.0001), "0.0001");
  EXPECT_EQ(FormatSampleValue(2.5e-05), "2.5e-05");
  EXPECT_EQ(FormatSampleValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatSampleValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatSampleValue(std::nan("")), "NaN");
}

TEST(PrometheusText, HistogramBucketsAreCumulativeWithSumAndCount) {
  const std::array<double, 3> bounds = {0.001, 0.01, 0.1};
  const std::array<std::uint64_t, 4> counts = {2, 0, 5, 1};  // the last: above 0.1
  PrometheusText out;
  out.Histogram("lat_seconds", {{"op", "sign"}}, bounds, counts, 0.75);
  EXPECT_EQ(out.text(),
            "lat_seconds_bucket{op=\"sign\",le=\"0.001\"} 2\n"
            "lat_seconds_bucket{op=\"sign\",le=\"0.01\"} 2\n"
            "lat_seconds_bucket{op=\"sign\",le=\"0.1\"} 7\n"
            "lat_seconds_bucket{op=\"sign\",le=\"+Inf\"} 8\n"
            "lat_seconds_sum{op=\"sign\"} 0.75\n"
            "lat_seconds_count{op=\"sign\"} 8\n");
}

TEST(PrometheusText, SampleWithoutLabelsHasNoBraces) {
  PrometheusText out;
  out.Sample("up", {}, 1);
  EXPECT_EQ(out.text(), "up 1\n");
}

}  // namespace
}  // namespace signet::daemon
