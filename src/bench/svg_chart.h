// A dependency-free SVG line chart: one polyline per series, linear axes
// from zero, tick labels, a legend. Used for `bench parallel --chart`
// (sigs/sec against clients, one line per algorithm). Pure function of its
// input: safe from any thread for distinct streams.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace signet::bench {

// ChartSeries: one line; points are (x, y), drawn in the order given.
struct ChartSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;
};

struct LineChart {
  std::string title;
  std::string x_label;  // "clients"
  std::string y_label;  // "sigs/sec"
  std::vector<ChartSeries> series;
};

// WriteSvgLineChart writes a standalone <svg> document (no XML prolog) of
// `chart`. Empty series draw no polyline; text is XML-escaped.
void WriteSvgLineChart(const LineChart& chart, std::ostream& out);

// XmlEscape replaces & < > " ' with their entities.
std::string XmlEscape(const std::string& text);

}  // namespace signet::bench
