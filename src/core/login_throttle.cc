#include "core/login_throttle.h"

#include <algorithm>

namespace signet::core {

LoginThrottle::LoginThrottle(int free_failures, std::chrono::milliseconds base,
                             std::chrono::milliseconds cap, Clock clock)
    : free_failures_(free_failures), base_(base), cap_(cap), clock_(std::move(clock)) {}

std::chrono::milliseconds LoginThrottle::Wait(const std::vector<std::string>& keys) const {
  auto now = clock_();
  std::chrono::milliseconds wait{0};
  base::MutexLock lock(&mu_);
  for (const std::string& key : keys) {
    auto it = entries_.find(key);
    if (it == entries_.end() || it->second.allowed_at <= now) continue;
    auto left = std::chrono::ceil<std::chrono::milliseconds>(it->second.allowed_at - now);
    wait = std::max(wait, left);
  }
  return wait;
}

void LoginThrottle::Failed(const std::vector<std::string>& keys) {
  auto now = clock_();
  base::MutexLock lock(&mu_);
  ForgetQuietLocked(now);
  for (const std::string& key : keys) {
    Entry& e = entries_[key];
    if (e.failures > 0 && now - e.last_failure >= kForgetAfter) e.failures = 0;
    e.failures = std::min(e.failures + 1, 62);
    e.last_failure = now;
    // base * 2^(failures-free-1), saturating at cap without overflow.
    if (e.failures <= free_failures_) {
      e.allowed_at = now;
      continue;
    }
    std::chrono::milliseconds delay = base_;
    for (int i = free_failures_ + 1; i < e.failures && delay < cap_; ++i) delay *= 2;
    e.allowed_at = now + std::min(delay, cap_);
  }
}

void LoginThrottle::Succeeded(const std::vector<std::string>& keys) {
  base::MutexLock lock(&mu_);
  for (const std::string& key : keys) entries_.erase(key);
}

int LoginThrottle::failures(const std::string& key) const {
  base::MutexLock lock(&mu_);
  auto it = entries_.find(key);
  return it == entries_.end() ? 0 : it->second.failures;
}

// ForgetQuietLocked drops keys quiet for kForgetAfter once the table is
// large, so peers that guessed once long ago cost no memory. REQUIRES: mu_.
void LoginThrottle::ForgetQuietLocked(std::chrono::steady_clock::time_point now) {
  constexpr std::size_t kSweepAbove = 4096;
  if (entries_.size() < kSweepAbove) return;
  std::erase_if(entries_,
                [&](const auto& kv) { return now - kv.second.last_failure >= kForgetAfter; });
}

}  // namespace signet::core
