// local_first.h: the rule by which a consumer of waiting work takes first
// the work whose client runs on the consumer's own CPU, so that the reply
// wakes the client where it already is: a wake-up sent to another CPU costs
// a reschedule interrupt there and preempts whatever runs on it
// (docs/DESIGN.md "The shared-memory ring"). core::Scheduler applies it to
// connections, proto::ring::ServerRing to the requests of one ring.
//
// The rule bends first-come order by a few places and no more: only the
// first kLocalScan waiting items are looked at, and an item passed over
// kMaxPassed times goes before everything behind it.
#pragma once

#include <algorithm>
#include <cstddef>

namespace signet::base {

// kAnyCpu: a CPU not known (an item's, or the consumer's).
inline constexpr int kAnyCpu = -1;
// kLocalScan: how many waiting items from the oldest are looked at.
inline constexpr std::size_t kLocalScan = 8;
// kMaxPassed: how often a waiting item may be passed over for a local one.
inline constexpr int kMaxPassed = 4;

// PickLocalFirst returns the item of `waiting` to take next on CPU `here`.
// `waiting`: a random-access container, oldest first, of items with `int
// cpu` and `int passed` members. The pick is the first of the first
// kLocalScan items whose cpu is `here`, unless an item before it has been
// passed over kMaxPassed times; otherwise the oldest. Every item passed
// over has its `passed` counted (any was when the pick is not the oldest).
template <typename Container>
typename Container::iterator PickLocalFirst(Container& waiting, int here) {
  auto pick = waiting.begin();
  if (here != kAnyCpu) {
    const auto end = waiting.begin() + std::min<std::size_t>(waiting.size(), kLocalScan);
    for (auto c = waiting.begin(); c != end; ++c) {
      if (c->cpu == here) {
        pick = c;
        break;
      }
      if (c->passed >= kMaxPassed) break;  // it goes before anything behind it
    }
    for (auto c = waiting.begin(); c != pick; ++c) ++c->passed;
  }
  return pick;
}

}  // namespace signet::base
