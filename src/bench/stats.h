// Robust summary statistics over benchmark samples (latencies, per-key
// times). Pure functions of their input: safe from any thread.
#pragma once

#include <cstddef>
#include <span>

namespace signet::bench {

// Summary of a sample set. All fields are 0 when count == 0.
struct Summary {
  std::size_t count = 0;
  double mean = 0;
  double median = 0;  // same as p50; kept by name for the keygen table
  double p50 = 0;
  double p99 = 0;
  double best = 0;   // smallest sample
  double worst = 0;  // largest sample
};

// Percentile returns the q-th quantile (0 <= q <= 1) of `sorted`, linearly
// interpolated between the two nearest ranks (numpy's default), so the
// median of an even-sized set is the mean of the middle two.
// REQUIRES: `sorted` ascending and non-empty; q in [0, 1].
double Percentile(std::span<const double> sorted, double q);

// Summarize computes a Summary of `samples` (any order; not modified).
Summary Summarize(std::span<const double> samples);

}  // namespace signet::bench
