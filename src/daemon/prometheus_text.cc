#include "daemon/prometheus_text.h"

#include <charconv>
#include <cmath>

namespace signet::daemon {

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatSampleValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[64];
  // Counters and sizes are integers: written exactly up to 2^53.
  if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0) {
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, static_cast<long long>(value));
    return std::string(buffer, end);
  }
  // Shortest digits, %g's choice of notation (0.0001 but 1e-05), as Go's
  // and Python's clients write bucket bounds, so `le` values match theirs.
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general);
  return std::string(buffer, end);
}

void PrometheusText::Family(std::string_view name, std::string_view type, std::string_view help) {
  out_ += "# HELP ";
  out_ += name;
  out_ += ' ';
  for (char c : help) {
    if (c == '\\') {
      out_ += "\\\\";
    } else if (c == '\n') {
      out_ += "\\n";
    } else {
      out_ += c;
    }
  }
  out_ += "\n# TYPE ";
  out_ += name;
  out_ += ' ';
  out_ += type;
  out_ += '\n';
}

void PrometheusText::Line(std::string_view name, std::string_view suffix, const Labels& labels,
                          std::string_view extra_name, std::string_view extra_value,
                          std::string_view value) {
  out_ += name;
  out_ += suffix;
  if (!labels.empty() || !extra_name.empty()) {
    out_ += '{';
    bool first = true;
    auto label = [&](std::string_view n, std::string_view v) {
      if (!first) out_ += ',';
      first = false;
      out_ += n;
      out_ += "=\"";
      out_ += EscapeLabelValue(v);
      out_ += '"';
    };
    for (const auto& [n, v] : labels) label(n, v);
    if (!extra_name.empty()) label(extra_name, extra_value);
    out_ += '}';
  }
  out_ += ' ';
  out_ += value;
  out_ += '\n';
}

void PrometheusText::Sample(std::string_view name, const Labels& labels, double value) {
  Line(name, "", labels, "", "", FormatSampleValue(value));
}

void PrometheusText::Histogram(std::string_view name, const Labels& labels,
                               std::span<const double> bounds,
                               std::span<const std::uint64_t> counts, double sum) {
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < bounds.size() && i < counts.size(); ++i) {
    cumulative += counts[i];
    Line(name, "_bucket", labels, "le", FormatSampleValue(bounds[i]),
         FormatSampleValue(static_cast<double>(cumulative)));
  }
  for (std::size_t i = bounds.size(); i < counts.size(); ++i) cumulative += counts[i];
  const std::string total = FormatSampleValue(static_cast<double>(cumulative));
  Line(name, "_bucket", labels, "le", "+Inf", total);
  Line(name, "_sum", labels, "", "", FormatSampleValue(sum));
  Line(name, "_count", labels, "", "", total);
}

}  // namespace signet::daemon
