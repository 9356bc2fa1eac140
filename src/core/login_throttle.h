// LoginThrottle: slows PIN guessing down. Each failed PIN check counts
// against two keys, the token (its serial and user type) and the peer
// (ClientState::peer_identity: the uid on the Unix socket, the address over
// TCP); after a key's n-th consecutive failure, n > free_failures, further
// PIN checks under that key are refused for min(base * 2^(n-free-1), cap)
// without looking at the PIN. A success clears both keys. A key quiet for kForgetAfter is
// forgotten, so the table stays small.
//
// Refusals are immediate (no thread sleeps): the caller answers at once and
// says how long to wait. The persistent lockout (keystore max_pin_failures)
// is separate and unchanged: the throttle only spaces the guesses out.
//
// Thread contract: all methods may be called from any thread (one mutex).
// The clock is injected so tests need no sleeps.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/mutex.h"

namespace signet::core {

class LoginThrottle {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // kForgetAfter: a key with no failure for this long starts again at 0.
  static constexpr std::chrono::minutes kForgetAfter{15};

  LoginThrottle(int free_failures, std::chrono::milliseconds base, std::chrono::milliseconds cap,
                Clock clock);

  // Wait returns how long the caller must still wait before a PIN check
  // under any of `keys` is allowed; zero when it may go ahead now.
  std::chrono::milliseconds Wait(const std::vector<std::string>& keys) const EXCLUDES(mu_);

  // Failed records one failed PIN check under each of `keys`.
  void Failed(const std::vector<std::string>& keys) EXCLUDES(mu_);

  // Succeeded clears `keys`.
  void Succeeded(const std::vector<std::string>& keys) EXCLUDES(mu_);

  // failures: the consecutive failures counted for `key` (tests, status).
  int failures(const std::string& key) const EXCLUDES(mu_);

 private:
  struct Entry {
    int failures = 0;
    std::chrono::steady_clock::time_point last_failure;
    std::chrono::steady_clock::time_point allowed_at;
  };
  void ForgetQuietLocked(std::chrono::steady_clock::time_point now) REQUIRES(mu_);

  const int free_failures_;
  const std::chrono::milliseconds base_;
  const std::chrono::milliseconds cap_;
  const Clock clock_;
  mutable base::Mutex mu_;
  std::unordered_map<std::string, Entry> entries_ GUARDED_BY(mu_);
};

}  // namespace signet::core
