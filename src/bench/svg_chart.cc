#include "bench/svg_chart.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace signet::bench {
namespace {

constexpr double kWidth = 720, kHeight = 440;
constexpr double kLeft = 70, kRight = 170, kTop = 40, kBottom = 50;
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;
constexpr std::array<const char*, 8> kColors = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                                "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

// NiceStep picks a 1/2/5 x 10^k tick step giving about five ticks to `max`.
double NiceStep(double max) {
  const double raw = max / 5;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * mag >= raw) return m * mag;
  }
  return 10 * mag;
}

struct Scale {
  double x_max = 1, y_max = 1, x_step = 1, y_step = 1;
  double X(double x) const { return kLeft + x / x_max * kPlotW; }
  double Y(double y) const { return kTop + kPlotH - y / y_max * kPlotH; }
};

Scale MakeScale(const LineChart& chart) {
  Scale s;
  double x_max = 0, y_max = 0;
  for (const auto& series : chart.series) {
    for (const auto& [x, y] : series.points) {
      x_max = std::max(x_max, x);
      y_max = std::max(y_max, y);
    }
  }
  s.x_step = x_max > 0 ? NiceStep(x_max) : 1;
  s.y_step = y_max > 0 ? NiceStep(y_max) : 1;
  s.x_max = std::ceil(std::max(x_max, 1e-9) / s.x_step) * s.x_step;
  s.y_max = std::ceil(std::max(y_max, 1e-9) / s.y_step) * s.y_step;
  return s;
}

void WriteAxes(const LineChart& chart, const Scale& s, std::ostream& out) {
  out << "<g stroke=\"#888\" stroke-width=\"1\">\n";
  out << "<line x1=\"" << kLeft << "\" y1=\"" << kTop + kPlotH << "\" x2=\"" << kLeft + kPlotW
      << "\" y2=\"" << kTop + kPlotH << "\"/>\n";
  out << "<line x1=\"" << kLeft << "\" y1=\"" << kTop << "\" x2=\"" << kLeft << "\" y2=\""
      << kTop + kPlotH << "\"/>\n</g>\n";
  out << "<g font-family=\"sans-serif\" font-size=\"12\" fill=\"#333\">\n";
  for (double x = 0; x <= s.x_max + s.x_step / 2; x += s.x_step) {
    out << "<text x=\"" << Num(s.X(x)) << "\" y=\"" << kTop + kPlotH + 18
        << "\" text-anchor=\"middle\">" << Num(x) << "</text>\n";
  }
  for (double y = 0; y <= s.y_max + s.y_step / 2; y += s.y_step) {
    out << "<text x=\"" << kLeft - 8 << "\" y=\"" << Num(s.Y(y) + 4) << "\" text-anchor=\"end\">"
        << Num(y) << "</text>\n";
  }
  out << "<text x=\"" << kLeft + kPlotW / 2 << "\" y=\"" << kHeight - 12
      << "\" text-anchor=\"middle\">" << XmlEscape(chart.x_label) << "</text>\n";
  out << "<text transform=\"translate(16 " << kTop + kPlotH / 2
      << ") rotate(-90)\" text-anchor=\"middle\">" << XmlEscape(chart.y_label) << "</text>\n";
  out << "<text x=\"" << kWidth / 2 << "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">"
      << XmlEscape(chart.title) << "</text>\n</g>\n";
}

}  // namespace

std::string XmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void WriteSvgLineChart(const LineChart& chart, std::ostream& out) {
  const Scale s = MakeScale(chart);
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" viewBox=\"0 0 " << kWidth << ' ' << kHeight << "\">\n";
  out << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  WriteAxes(chart, s, out);
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const ChartSeries& series = chart.series[i];
    const char* color = kColors[i % kColors.size()];
    if (!series.points.empty()) {
      out << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"2\" points=\"";
      for (const auto& [x, y] : series.points) out << Num(s.X(x)) << ',' << Num(s.Y(y)) << ' ';
      out << "\"><title>" << XmlEscape(series.name) << "</title></polyline>\n";
    }
    const double ly = kTop + 10 + 20 * static_cast<double>(i);
    out << "<line x1=\"" << kLeft + kPlotW + 15 << "\" y1=\"" << ly << "\" x2=\""
        << kLeft + kPlotW + 40 << "\" y2=\"" << ly << "\" stroke=\"" << color
        << "\" stroke-width=\"2\"/>\n";
    out << "<text x=\"" << kLeft + kPlotW + 46 << "\" y=\"" << ly + 4
        << "\" font-family=\"sans-serif\" font-size=\"12\">" << XmlEscape(series.name)
        << "</text>\n";
  }
  out << "</svg>\n";
}

}  // namespace signet::bench
