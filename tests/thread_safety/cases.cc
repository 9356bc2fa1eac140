// Cases for clang's thread-safety analysis over base/mutex.h, compiled by
// the tests in CMakeLists.txt beside this file with -DCASE=<name>
// -Wthread-safety -Werror. CASE=clean uses every wrapper correctly and must
// compile; each other case is one mistake the CI's thread-safety step
// (scripts/thread-safety.sh) must turn into a build error.
#include <chrono>

#include "base/mutex.h"

namespace signet::base {
namespace {

class Account {
 public:
  void Deposit(int amount) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    AddLocked(amount);
    cv_.SignalAll();
  }

  int WaitForBalance(int at_least) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    while (balance_ < at_least) cv_.Wait(&mu_);
    (void)cv_.WaitFor(&mu_, std::chrono::milliseconds(1));
    lock.Unlock();  // e.g. around a slow call
    lock.Lock();
    return balance_;
  }

  int Audit() EXCLUDES(mu_, log_mu_) {
    MutexLock outer(&mu_);
    MutexLock inner(&log_mu_);  // mu_ is ACQUIRED_BEFORE log_mu_
    entries_ = balance_;
    return entries_;
  }

  int Rate() EXCLUDES(rate_mu_) {
    ReaderMutexLock lock(&rate_mu_);
    return rate_;
  }

  void SetRate(int rate) EXCLUDES(rate_mu_) {
    WriterMutexLock lock(&rate_mu_);
    rate_ = rate;
  }

#if defined(CASE_guarded_read_without_lock)
  int Peek() { return balance_; }
#elif defined(CASE_requires_without_lock)
  void Sneak() { AddLocked(1); }
#elif defined(CASE_lock_order)
  int Reverse() {
    MutexLock inner(&log_mu_);
    MutexLock outer(&mu_);
    return balance_ + entries_;
  }
#elif defined(CASE_write_under_reader_lock)
  void Bump() {
    ReaderMutexLock lock(&rate_mu_);
    ++rate_;
  }
#elif defined(CASE_wait_without_lock)
  void Sleep() { cv_.Wait(&mu_); }
#elif defined(CASE_read_after_unlock)
  int Late() {
    MutexLock lock(&mu_);
    lock.Unlock();
    return balance_;
  }
#elif !defined(CASE_clean)
#error "unknown CASE"
#endif

 private:
  void AddLocked(int amount) REQUIRES(mu_) { balance_ += amount; }

  Mutex mu_ ACQUIRED_BEFORE(log_mu_);
  CondVar cv_;
  int balance_ GUARDED_BY(mu_) = 0;
  Mutex log_mu_;
  int entries_ GUARDED_BY(log_mu_) = 0;
  SharedMutex rate_mu_;
  int rate_ GUARDED_BY(rate_mu_) = 0;
};

}  // namespace
}  // namespace signet::base
