#include "bench/parallel_line.h"

#include <cmath>
#include <cstdio>
#include <ctime>

#include "bench/stats.h"

namespace signet::bench {

ParallelFigures ComputeFigures(const ParallelRun& run) {
  ParallelFigures f;
  const double elapsed = std::chrono::duration<double>(run.t1 - run.t0).count();
  if (elapsed > 0) f.sigs_per_sec = static_cast<double>(run.n) / elapsed;
  if (run.n > 0 && elapsed > 0) f.secs_per_sig = elapsed / static_cast<double>(run.n);
  const Summary s = Summarize(run.latencies_s);
  f.mean_s = s.mean;
  f.p50_s = s.p50;
  f.p99_s = s.p99;
  return f;
}

std::string FormatDuration(double seconds) {
  const auto micros = seconds > 0 ? static_cast<std::int64_t>(std::llround(seconds * 1e6)) : 0;
  const std::int64_t whole = micros / 1000000;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%lld:%02lld:%02lld.%06lld", static_cast<long long>(whole / 3600),
                static_cast<long long>(whole / 60 % 60), static_cast<long long>(whole % 60),
                static_cast<long long>(micros % 1000000));
  return buf;
}

std::string FormatWallTime(WallTime t) {
  using std::chrono::duration_cast;
  using std::chrono::microseconds;
  const auto since_epoch = duration_cast<microseconds>(t.time_since_epoch()).count();
  // Floor division, so instants before 1970 still print sensibly.
  std::int64_t secs = since_epoch / 1000000;
  std::int64_t micros = since_epoch % 1000000;
  if (micros < 0) {
    micros += 1000000;
    secs -= 1;
  }
  const std::time_t tt = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02d %02d:%02d:%02d.%06lld", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(micros));
  return buf;
}

std::string FormatSigsPerSec(double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.12g", value);
  return buf;
}

std::string FormatParallelLine(const ParallelRun& run) {
  const ParallelFigures f = ComputeFigures(run);
  std::string line = run.algo;
  line += " sigs/sec " + FormatSigsPerSec(f.sigs_per_sec);
  line += " secs/sig " + FormatDuration(f.secs_per_sig);
  line += " mean " + FormatDuration(f.mean_s);
  line += " (n " + std::to_string(run.n) + ", c " + std::to_string(run.clients);
  line += " t0 " + FormatWallTime(run.t0) + " t1 " + FormatWallTime(run.t1) + ")";
  line += " p50 " + FormatDuration(f.p50_s) + " p99 " + FormatDuration(f.p99_s);
  return line;
}

}  // namespace signet::bench
