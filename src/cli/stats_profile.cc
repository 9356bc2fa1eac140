#include "cli/stats_profile.h"

#include <charconv>
#include <cinttypes>
#include <cstdio>

namespace signet::cli {
namespace {

// Delta: after - before, 0 when a counter went back (the daemon restarted).
std::uint64_t Delta(std::uint64_t before, std::uint64_t after) {
  return after >= before ? after - before : 0;
}

// PhaseRow: one phase's change over the interval.
struct PhaseRow {
  std::string name;
  double calls_per_s = 0;
  double us_per_call = 0;
  double core_percent = 0;  // time in the phase / interval, of one core
};

std::vector<PhaseRow> PhaseRows(const client::ServerStats& before, const client::ServerStats& after,
                                double seconds) {
  std::vector<PhaseRow> rows;
  for (const client::PhaseStat& now : after.phases) {
    std::uint64_t calls = now.calls;
    std::uint64_t ns = now.total_ns;
    for (const client::PhaseStat& then : before.phases) {
      if (then.name == now.name) {
        calls = Delta(then.calls, now.calls);
        ns = Delta(then.total_ns, now.total_ns);
      }
    }
    PhaseRow row;
    row.name = now.name;
    row.calls_per_s = static_cast<double>(calls) / seconds;
    row.us_per_call = calls == 0 ? 0 : static_cast<double>(ns) / 1e3 / static_cast<double>(calls);
    row.core_percent = static_cast<double>(ns) / (seconds * 1e9) * 100;
    rows.push_back(std::move(row));
  }
  return rows;
}

// WorkersBusyPercent: the execute phase's share of all workers' time.
double WorkersBusyPercent(const std::vector<PhaseRow>& rows, const client::ServerStats& after) {
  for (const PhaseRow& row : rows) {
    if (row.name == "execute" && after.workers > 0) {
      return row.core_percent / static_cast<double>(after.workers);
    }
  }
  return 0;
}

}  // namespace

Result<std::chrono::milliseconds> ParseInterval(std::string_view text) {
  double scale = 1000;  // seconds by default
  if (text.size() > 2 && text.substr(text.size() - 2) == "ms") {
    scale = 1;
    text.remove_suffix(2);
  } else if (text.size() > 1 && text.back() == 's') {
    text.remove_suffix(1);
  }
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const double ms = value * scale;
  if (ec != std::errc() || end != text.data() + text.size() || !(ms >= 10 && ms <= 3600e3)) {
    return MakeError(CKR_ARGUMENTS_BAD,
                     "--interval wants a duration from 10ms to 3600s (e.g. 1s, 250ms)");
  }
  return std::chrono::milliseconds(static_cast<std::int64_t>(ms));
}

std::string ProfileText(const client::ServerStats& before, const client::ServerStats& after,
                        double seconds) {
  const std::vector<PhaseRow> rows = PhaseRows(before, after, seconds);
  std::string out;
  char line[256];
  std::snprintf(
      line, sizeof line,
      "--- %.2f s: %.1f requests/s, queue depth %" PRIu64 " (peak %" PRIu64
      "), busy rejections %" PRIu64 ", key cache hits %" PRIu64 " misses %" PRIu64
      ", workers busy %.1f%% of %" PRIu64 "\n",
      seconds, static_cast<double>(Delta(before.completed, after.completed)) / seconds,
      after.queue_depth, after.queue_peak, Delta(before.busy_rejections, after.busy_rejections),
      Delta(before.cache_hits, after.cache_hits), Delta(before.cache_misses, after.cache_misses),
      WorkersBusyPercent(rows, after), after.workers);
  out += line;
  std::snprintf(line, sizeof line, "%-16s %12s %12s %10s\n", "phase", "calls/s", "us/call",
                "core_%");
  out += line;
  for (const PhaseRow& row : rows) {
    std::snprintf(line, sizeof line, "%-16s %12.1f %12.2f %10.2f\n", row.name.c_str(),
                  row.calls_per_s, row.us_per_call, row.core_percent);
    out += line;
  }
  return out;
}

Json ProfileJson(const client::ServerStats& before, const client::ServerStats& after,
                 double seconds) {
  const std::vector<PhaseRow> rows = PhaseRows(before, after, seconds);
  Json phases = Json::array();
  for (const PhaseRow& row : rows) {
    phases.push_back({{"name", row.name},
                      {"calls_per_s", row.calls_per_s},
                      {"us_per_call", row.us_per_call},
                      {"core_percent", row.core_percent}});
  }
  return {
      {"seconds", seconds},
      {"requests_per_s", static_cast<double>(Delta(before.completed, after.completed)) / seconds},
      {"queue_depth", after.queue_depth},
      {"queue_peak", after.queue_peak},
      {"busy_rejections", Delta(before.busy_rejections, after.busy_rejections)},
      {"cache_hits", Delta(before.cache_hits, after.cache_hits)},
      {"cache_misses", Delta(before.cache_misses, after.cache_misses)},
      {"workers", after.workers},
      {"workers_busy_percent", WorkersBusyPercent(rows, after)},
      {"phases", std::move(phases)}};
}

}  // namespace signet::cli
