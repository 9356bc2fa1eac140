// TimeRepeated: runs one operation back to back for a minimum time and
// counts iterations, wall time (steady_clock) and time-stamp-counter ticks.
// The clock is read once per batch, and batches double while short, so the
// clock's own cost stays out of sub-microsecond operations (a 64-byte hash).
// Runs on the calling thread; no shared state.
#pragma once

#include <cstdint>
#include <functional>

#include "signet/result.hpp"

namespace signet::bench {

struct TimedSample {
  std::uint64_t iterations = 0;
  double seconds = 0;
  double cycles = 0;  // 0 when there is no cycle counter

  double SecondsPerOp() const { return iterations ? seconds / iterations : 0; }
  double CyclesPerOp() const { return iterations ? cycles / iterations : 0; }
};

// TimeRepeated calls `op` once untimed (warm-up, and to surface errors),
// then repeatedly until both `min_seconds` and `min_iterations` are reached.
// Returns the first Error `op` returns.
[[nodiscard]] Result<TimedSample> TimeRepeated(const std::function<Status()>& op,
                                               double min_seconds,
                                               std::uint64_t min_iterations = 1);

}  // namespace signet::bench
