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

// The bar chart's geometry: label column, plot width, one band per bar.
constexpr double kBarWidth = 760, kBarLabelW = 230, kBarPlotW = 400, kBarBand = 18;
constexpr double kBarTop = 50, kBarBottom = 40;

double BarChartHeight(const BarChart& chart) {
  const double per_bar =
      kBarBand * static_cast<double>(std::max<std::size_t>(chart.series.size(), 1));
  return kBarTop + kBarBottom + per_bar * static_cast<double>(chart.bars.size()) +
         4 * static_cast<double>(chart.bars.size());
}

// BarAxis maps a value to a length along the plot: linear from zero, or
// log10 between the powers of ten that enclose the data.
struct BarAxis {
  bool log = false;
  double lo = 0, hi = 1;  // data range (log: exponents)
  double Length(double v) const {
    if (v <= 0) return 0;
    const double t = log ? (std::log10(v) - lo) / (hi - lo) : v / hi;
    return std::clamp(t, 0.0, 1.0) * kBarPlotW;
  }
};

BarAxis MakeBarAxis(const BarChart& chart) {
  double min_positive = 0, max = 0;
  for (const Bar& bar : chart.bars) {
    for (double v : bar.values) {
      if (v <= 0) continue;
      min_positive = min_positive == 0 ? v : std::min(min_positive, v);
      max = std::max(max, v);
    }
  }
  BarAxis axis;
  axis.log = chart.log_scale;
  if (axis.log) {
    axis.lo = min_positive > 0 ? std::floor(std::log10(min_positive)) : 0;
    axis.hi = max > 0 ? std::ceil(std::log10(max)) : 1;
    if (axis.hi <= axis.lo) axis.hi = axis.lo + 1;
  } else {
    const double step = max > 0 ? NiceStep(max) : 1;
    axis.hi = std::ceil(std::max(max, 1e-9) / step) * step;
  }
  return axis;
}

void WriteBarAxis(const BarAxis& axis, double plot_h, std::ostream& out) {
  const double x0 = kBarLabelW, y1 = kBarTop + plot_h;
  out << "<line x1=\"" << x0 << "\" y1=\"" << kBarTop << "\" x2=\"" << x0 << "\" y2=\"" << y1
      << "\" stroke=\"#888\"/>\n";
  std::vector<double> ticks;
  if (axis.log) {
    for (double e = axis.lo; e <= axis.hi + 0.5; e += 1) ticks.push_back(std::pow(10, e));
  } else {
    const double step = NiceStep(axis.hi);
    for (double v = 0; v <= axis.hi + step / 2; v += step) ticks.push_back(v);
  }
  for (double v : ticks) {
    const double x = x0 + (axis.log ? axis.Length(v) : v / axis.hi * kBarPlotW);
    out << "<line x1=\"" << Num(x) << "\" y1=\"" << kBarTop << "\" x2=\"" << Num(x) << "\" y2=\""
        << y1 << "\" stroke=\"#eee\"/>\n";
    out << "<text x=\"" << Num(x) << "\" y=\"" << y1 + 16 << "\" text-anchor=\"middle\">" << Num(v)
        << "</text>\n";
  }
}

void WriteBarChart(const BarChart& chart, double top, std::ostream& out) {
  const BarAxis axis = MakeBarAxis(chart);
  const std::size_t per_bar = std::max<std::size_t>(chart.series.size(), 1);
  const double plot_h = BarChartHeight(chart) - kBarTop - kBarBottom;
  out << "<g transform=\"translate(0 " << top
      << ")\" font-family=\"sans-serif\" font-size=\"12\" fill=\"#333\">\n";
  out << "<text x=\"" << kBarWidth / 2 << "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">"
      << XmlEscape(chart.title) << "</text>\n";
  WriteBarAxis(axis, plot_h, out);
  out << "<text x=\"" << kBarLabelW + kBarPlotW / 2 << "\" y=\"" << kBarTop + plot_h + 32
      << "\" text-anchor=\"middle\">" << XmlEscape(chart.value_label)
      << (chart.log_scale ? " (log scale)" : "") << "</text>\n";
  double y = kBarTop + 2;
  for (const Bar& bar : chart.bars) {
    const double band = kBarBand * static_cast<double>(per_bar);
    out << "<text x=\"" << kBarLabelW - 6 << "\" y=\"" << Num(y + band / 2 + 4)
        << "\" text-anchor=\"end\">" << XmlEscape(bar.label) << "</text>\n";
    for (std::size_t i = 0; i < bar.values.size() && i < per_bar; ++i) {
      const double length = axis.Length(bar.values[i]);
      if (length <= 0) continue;
      const double by = y + kBarBand * static_cast<double>(i);
      out << "<rect x=\"" << kBarLabelW << "\" y=\"" << Num(by + 2) << "\" width=\"" << Num(length)
          << "\" height=\"" << kBarBand - 4 << "\" fill=\"" << kColors[i % kColors.size()]
          << "\"><title>" << Num(bar.values[i]) << "</title></rect>\n";
      out << "<text x=\"" << Num(kBarLabelW + length + 4) << "\" y=\"" << Num(by + kBarBand - 5)
          << "\" font-size=\"10\">" << Num(bar.values[i]) << "</text>\n";
    }
    y += band + 4;
  }
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const double ly = kBarTop + 20 * static_cast<double>(i);
    const double lx = kBarLabelW + kBarPlotW + 40;
    out << "<rect x=\"" << lx << "\" y=\"" << ly << "\" width=\"12\" height=\"12\" fill=\""
        << kColors[i % kColors.size()] << "\"/>\n";
    out << "<text x=\"" << lx + 18 << "\" y=\"" << ly + 10 << "\">" << XmlEscape(chart.series[i])
        << "</text>\n";
  }
  out << "</g>\n";
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

void WriteSvgBarCharts(const std::vector<BarChart>& charts, std::ostream& out) {
  double height = 0;
  for (const BarChart& chart : charts) height += BarChartHeight(chart);
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kBarWidth << "\" height=\""
      << Num(height) << "\" viewBox=\"0 0 " << kBarWidth << ' ' << Num(height) << "\">\n";
  out << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  double top = 0;
  for (const BarChart& chart : charts) {
    WriteBarChart(chart, top, out);
    top += BarChartHeight(chart);
  }
  out << "</svg>\n";
}

}  // namespace signet::bench
