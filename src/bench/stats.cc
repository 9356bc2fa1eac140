#include "bench/stats.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>
#include <vector>

namespace signet::bench {

double Percentile(std::span<const double> sorted, double q) {
  assert(!sorted.empty() && q >= 0 && q <= 1);
  const double rank = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

Summary Summarize(std::span<const double> samples) {
  Summary s;
  if (samples.empty()) return s;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  s.count = sorted.size();
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(s.count);
  s.p50 = Percentile(sorted, 0.5);
  s.median = s.p50;
  s.p99 = Percentile(sorted, 0.99);
  s.best = sorted.front();
  s.worst = sorted.back();
  return s;
}

}  // namespace signet::bench
