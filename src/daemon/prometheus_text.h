// PrometheusText: writes the Prometheus text exposition format, version
// 0.0.4 (what GET /metrics answers): one `# HELP` and `# TYPE` line per
// family, then its samples, label values escaped (backslash, double quote,
// newline), histograms as cumulative `_bucket{le=...}` lines ending in
// `le="+Inf"`, then `_sum` and `_count`.
//
// Thread contract: one writer per thread; nothing shared.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace signet::daemon {

// kPrometheusContentType: the Content-Type of the format written here.
inline constexpr std::string_view kPrometheusContentType =
    "text/plain; version=0.0.4; charset=utf-8";

// Labels: name="value" pairs of one sample, in order.
using Labels = std::vector<std::pair<std::string_view, std::string_view>>;

// EscapeLabelValue: `value` with \ " and newline written as \\ \" \n.
std::string EscapeLabelValue(std::string_view value);

// FormatSampleValue: a value as the format spells it: integers exactly,
// others in the shortest form that reads back the same, +Inf, -Inf, NaN.
std::string FormatSampleValue(double value);

class PrometheusText {
 public:
  // Family starts a metric family `name` of `type` ("counter", "gauge",
  // "histogram", "summary") with its help text (backslash and newline
  // escaped).
  void Family(std::string_view name, std::string_view type, std::string_view help);

  // Sample writes one line `name{labels} value`.
  void Sample(std::string_view name, const Labels& labels, double value);

  // Histogram writes the samples of one histogram: `bounds` are the bucket
  // upper bounds (ascending), `counts` one count per bucket plus one for
  // +Inf (bounds.size() + 1 entries, not cumulative).
  void Histogram(std::string_view name, const Labels& labels, std::span<const double> bounds,
                 std::span<const std::uint64_t> counts, double sum);

  // text: everything written so far.
  const std::string& text() const { return out_; }

 private:
  void Line(std::string_view name, std::string_view suffix, const Labels& labels,
            std::string_view extra_name, std::string_view extra_value, std::string_view value);

  std::string out_;
};

}  // namespace signet::daemon
