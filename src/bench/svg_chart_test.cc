#include "bench/svg_chart.h"

#include <gtest/gtest.h>

#include <sstream>

namespace signet::bench {
namespace {

std::size_t Count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = haystack.find(needle); pos != std::string::npos;
       pos = haystack.find(needle, pos + 1)) {
    ++n;
  }
  return n;
}

TEST(SvgChart, OnePolylinePerSeriesAndBalancedTags) {
  LineChart chart;
  chart.title = "sigs/sec <raw>";
  chart.x_label = "clients";
  chart.y_label = "sigs/sec";
  chart.series = {{"rsa_1024", {{1, 31}, {2, 62}, {4, 121}}},
                  {"rsa_2048", {{1, 10.4}, {2, 20.7}, {4, 40.9}}},
                  {"empty", {}}};
  std::ostringstream out;
  WriteSvgLineChart(chart, out);
  const std::string svg = out.str();
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  EXPECT_EQ(Count(svg, "<polyline"), 2u);
  EXPECT_EQ(Count(svg, "<text"), Count(svg, "</text>"));
  EXPECT_EQ(Count(svg, "<title>"), Count(svg, "</title>"));
  EXPECT_NE(svg.find("sigs/sec &lt;raw&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("<raw>"), std::string::npos);
  EXPECT_NE(svg.find(">rsa_2048</text>"), std::string::npos);  // legend
}

TEST(SvgChart, PointsStayInsideTheViewBox) {
  LineChart chart;
  chart.series = {{"a", {{0, 0}, {8, 1234.5}}}};
  std::ostringstream out;
  WriteSvgLineChart(chart, out);
  const std::string svg = out.str();
  const auto start = svg.find("points=\"") + 8;
  std::istringstream points(svg.substr(start, svg.find('"', start) - start));
  std::string pair;
  while (points >> pair) {
    const double x = std::stod(pair.substr(0, pair.find(',')));
    const double y = std::stod(pair.substr(pair.find(',') + 1));
    EXPECT_GE(x, 0);
    EXPECT_LE(x, 720);
    EXPECT_GE(y, 0);
    EXPECT_LE(y, 440);
  }
}

// Two charts stack in one document; on a log axis a value a thousand times
// smaller than the largest still draws a bar, and no bar leaves the plot.
TEST(SvgChart, BarChartsStackAndLogAxesKeepSmallValuesVisible) {
  BarChart seeds;
  seeds.title = "seed 002";
  seeds.value_label = "ms/op";
  seeds.series = {"seed", "here"};
  seeds.bars = {{"RSA 2056 Sig", {950.0, 0.9}}, {"secp256k1 Sig", {49.05, 0.02}}};
  seeds.log_scale = true;
  BarChart plain = seeds;
  plain.title = "linear";
  plain.log_scale = false;
  std::ostringstream out;
  WriteSvgBarCharts({seeds, plain}, out);
  const std::string svg = out.str();
  EXPECT_EQ(Count(svg, "<svg"), 1u);
  EXPECT_EQ(Count(svg, "<g transform=\"translate(0 "), 2u);
  EXPECT_NE(svg.find("ms/op (log scale)"), std::string::npos);
  // Log: all four bars; linear: 0.02 of 950 is under a pixel but still a bar.
  EXPECT_EQ(Count(svg, "fill=\"#1f77b4\"><title>"), 4u);
  EXPECT_EQ(Count(svg, "fill=\"#d62728\"><title>"), 4u);
  for (auto p = svg.find(" width=\""); p != std::string::npos; p = svg.find(" width=\"", p + 1)) {
    const std::string value = svg.substr(p + 8, svg.find('"', p + 8) - p - 8);
    if (value.back() != '%') EXPECT_LE(std::stod(value), 760) << value;
  }
}

TEST(SvgChart, XmlEscape) { EXPECT_EQ(XmlEscape("a&b<'\">"), "a&amp;b&lt;&apos;&quot;&gt;"); }

}  // namespace
}  // namespace signet::bench
