#include "bench/cycle_clock.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define SIGNET_HAVE_TSC 1
#else
#define SIGNET_HAVE_TSC 0
#endif

namespace signet::bench {

bool HasCycleCounter() { return SIGNET_HAVE_TSC != 0; }

std::uint64_t ReadCycleCounter() {
#if SIGNET_HAVE_TSC
  return __rdtsc();
#else
  return 0;
#endif
}

double MeasureCycleCounterHz(std::chrono::milliseconds window) {
  if (!HasCycleCounter()) return 0;
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const std::uint64_t c0 = ReadCycleCounter();
  auto t1 = t0;
  while (t1 - t0 < window) t1 = Clock::now();
  const std::uint64_t c1 = ReadCycleCounter();
  const double secs = std::chrono::duration<double>(t1 - t0).count();
  return secs > 0 ? static_cast<double>(c1 - c0) / secs : 0;
}

}  // namespace signet::bench
