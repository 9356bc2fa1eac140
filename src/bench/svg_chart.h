// Dependency-free SVG charts, pure functions of their input (safe from any
// thread for distinct streams):
//  - a line chart: one polyline per series, linear axes from zero, tick
//    labels, a legend (`bench parallel --chart`: sigs/sec against clients);
//  - horizontal bar charts, one bar per row and series, on a linear or a
//    log10 axis, several stacked in one document (`--chart` of the other
//    benches, one chart per table; `bench seeds`: seed against here).
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

// Bar: one labelled row of a bar chart; values[i] belongs to series[i]
// (a missing or non-positive value draws no bar).
struct Bar {
  std::string label;
  std::vector<double> values;
};

struct BarChart {
  std::string title;
  std::string value_label;          // the axis: "MiB/s", "ms/op"
  std::vector<std::string> series;  // legend; one name per value of a bar
  std::vector<Bar> bars;
  bool log_scale = false;  // for values that span orders of magnitude
};

// WriteSvgBarCharts writes one standalone <svg> document holding `charts`
// one below the other (an empty list writes an empty document).
void WriteSvgBarCharts(const std::vector<BarChart>& charts, std::ostream& out);

// XmlEscape replaces & < > " ' with their entities.
std::string XmlEscape(const std::string& text);

}  // namespace signet::bench
