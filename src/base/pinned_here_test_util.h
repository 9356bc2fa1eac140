// PinnedHere, for tests: keeps the calling thread on the CPU it is on for
// the helper's lifetime, so the CPU a request names (base/local_first.h)
// is known.
#pragma once

#include <sched.h>

namespace signet::base::testing {

class PinnedHere {
 public:
  PinnedHere() : cpu_(sched_getcpu()) {
    sched_getaffinity(0, sizeof(saved_), &saved_);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu_, &one);
    pinned_ = cpu_ >= 0 && sched_setaffinity(0, sizeof(one), &one) == 0;
  }
  ~PinnedHere() { sched_setaffinity(0, sizeof(saved_), &saved_); }
  PinnedHere(const PinnedHere&) = delete;
  PinnedHere& operator=(const PinnedHere&) = delete;

  int cpu() const { return cpu_; }
  bool pinned() const { return pinned_; }

 private:
  int cpu_;
  cpu_set_t saved_;
  bool pinned_ = false;
};

}  // namespace signet::base::testing
