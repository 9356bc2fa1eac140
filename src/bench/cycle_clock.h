// Cycle counting for the speed tables (cycles/byte, megacycles/op).
//
// On x86-64 the counter is the time-stamp counter (RDTSC). On current CPUs
// (constant_tsc) it ticks at a fixed reference rate, not at the core's
// actual clock, so "cycles" here are reference cycles; the speed command
// prints the measured TSC rate beside its tables so readers can tell. On
// other architectures there is no counter and the cycle columns read 0.
// Thread-safe: reads a per-core register, no shared state.
#pragma once

#include <chrono>
#include <cstdint>

namespace signet::bench {

// HasCycleCounter: true when ReadCycleCounter returns real ticks (x86-64).
bool HasCycleCounter();

// ReadCycleCounter returns the current TSC value, or 0 without a counter.
std::uint64_t ReadCycleCounter();

// MeasureCycleCounterHz estimates the counter's rate against
// std::chrono::steady_clock over `window` (spinning, not sleeping, so a
// frequency-scaled core stays awake). Returns 0 without a counter.
double MeasureCycleCounterHz(std::chrono::milliseconds window);

}  // namespace signet::bench
