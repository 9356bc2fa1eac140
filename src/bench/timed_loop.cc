#include "bench/timed_loop.h"

#include <chrono>

#include "bench/cycle_clock.h"

namespace signet::bench {

Result<TimedSample> TimeRepeated(const std::function<Status()>& op, double min_seconds,
                                 std::uint64_t min_iterations) {
  SIGNET_TRY(op());
  using Clock = std::chrono::steady_clock;
  // A batch long enough that two clock reads per batch are noise.
  constexpr double kTargetBatchSeconds = 0.002;
  TimedSample sample;
  std::uint64_t batch = 1;
  const std::uint64_t c0 = ReadCycleCounter();
  const auto t0 = Clock::now();
  for (;;) {
    const auto batch_start = Clock::now();
    for (std::uint64_t i = 0; i < batch; ++i) SIGNET_TRY(op());
    const auto now = Clock::now();
    sample.iterations += batch;
    sample.seconds = std::chrono::duration<double>(now - t0).count();
    if (sample.seconds >= min_seconds && sample.iterations >= min_iterations) break;
    if (std::chrono::duration<double>(now - batch_start).count() < kTargetBatchSeconds) {
      batch *= 2;
    }
  }
  sample.cycles = static_cast<double>(ReadCycleCounter() - c0);
  return sample;
}

}  // namespace signet::bench
