// MeasureProcessRoundTrip: the physical cost of leaving the process, the
// yardstick of issue 17's latency target: a one-byte ping-pong over a
// socketpair between this process and a forked child, timed per round trip.
// `bench parallel` prints it beside the c = 1 latencies of the same run.
// Calling thread only; the child does nothing but echo, then exits.
#pragma once

#include <cstddef>

#include "signet/result.hpp"

namespace signet::bench {

struct RoundTrip {
  double median_us = 0;
  double mean_us = 0;
  std::size_t round_trips = 0;
};

// MeasureProcessRoundTrip times `round_trips` ping-pongs (after a warm-up).
// CKR_DEVICE_ERROR when the socketpair or the fork fails.
Result<RoundTrip> MeasureProcessRoundTrip(std::size_t round_trips);

}  // namespace signet::bench
