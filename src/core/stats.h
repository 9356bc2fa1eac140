// PhaseCounters: always-on timing counters for where a request's time goes
// (decode, queue wait, key fetch hit/miss, unwrap, sign, verify, encode).
// Each Add is two relaxed atomic increments on a counter of its own cache
// line, and time comes from steady_clock, so leaving them on in production
// costs tens of nanoseconds per phase. Safe from any thread; a snapshot is
// not atomic across counters (each counter is exact).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string_view>

namespace signet::core {

enum class Phase {
  kDecode,
  kQueueWait,
  kKeyFetchHit,
  kKeyFetchMiss,
  kUnwrap,
  kSign,
  kVerify,
  kEncode,
  kExecute,  // the whole operation on a worker, from dequeue to reply built
  kCount,
};

// PhaseName: "decode", "queue_wait", "key_fetch_hit", ... (the wire names).
std::string_view PhaseName(Phase phase);

struct PhaseSnapshot {
  std::uint64_t calls = 0;
  std::uint64_t total_ns = 0;
};

class PhaseCounters {
 public:
  void Add(Phase phase, std::uint64_t ns) {
    Slot& s = slots_[static_cast<std::size_t>(phase)];
    s.calls.fetch_add(1, std::memory_order_relaxed);
    s.total_ns.fetch_add(ns, std::memory_order_relaxed);
  }
  PhaseSnapshot Get(Phase phase) const {
    const Slot& s = slots_[static_cast<std::size_t>(phase)];
    return {s.calls.load(std::memory_order_relaxed), s.total_ns.load(std::memory_order_relaxed)};
  }

 private:
  struct alignas(64) Slot {
    std::atomic<std::uint64_t> calls{0};
    std::atomic<std::uint64_t> total_ns{0};
  };
  std::array<Slot, static_cast<std::size_t>(Phase::kCount)> slots_;
};

// NowNs: steady_clock in nanoseconds, the time base of every counter.
inline std::uint64_t NowNs() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

// ScopedPhase adds the time from construction to destruction to `phase`.
class ScopedPhase {
 public:
  ScopedPhase(PhaseCounters& counters, Phase phase)
      : counters_(counters), phase_(phase), start_(NowNs()) {}
  ~ScopedPhase() { counters_.Add(phase_, NowNs() - start_); }
  ScopedPhase(const ScopedPhase&) = delete;
  ScopedPhase& operator=(const ScopedPhase&) = delete;

 private:
  PhaseCounters& counters_;
  Phase phase_;
  std::uint64_t start_;
};

}  // namespace signet::core
