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

TEST(SvgChart, XmlEscape) { EXPECT_EQ(XmlEscape("a&b<'\">"), "a&amp;b&lt;&apos;&quot;&gt;"); }

}  // namespace
}  // namespace signet::bench
