// Mutex, SharedMutex, their scoped guards and CondVar: std::mutex,
// std::shared_mutex and std::condition_variable with the capability
// attributes of base/thread_annotations.h, so that clang's -Wthread-safety
// checks every GUARDED_BY member and REQUIRES / EXCLUDES function (the
// shape of LevelDB's port::Mutex and Abseil's absl::Mutex). libstdc++'s own
// types carry no attributes, so code that guards state with a lock uses
// these instead. Every method is an inline call of the std type: the same
// speed, and the same behaviour (no recursion, no fairness).
//
//   class Counter {
//    public:
//     void Add() EXCLUDES(mu_) { base::MutexLock lock(&mu_); ++n_; }
//    private:
//     base::Mutex mu_;
//     int n_ GUARDED_BY(mu_) = 0;
//   };
//
// Thread contract: Mutex and SharedMutex are shared by the threads they
// serialise; a MutexLock / ReaderMutexLock / WriterMutexLock belongs to the
// thread that made it; a CondVar is shared like the mutex it is used with.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>

#include "base/thread_annotations.h"

namespace signet::base {

// Mutex: an exclusive lock (std::mutex). Prefer MutexLock to Lock/Unlock.
class CAPABILITY("mutex") Mutex {
 public:
  // constexpr like std::mutex's: a global Mutex is constant-initialised.
  constexpr Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  // TryLock takes the lock if it is free; true when taken.
  bool TryLock() TRY_ACQUIRE(true) { return mu_.try_lock(); }
  // AssertHeld tells the analysis the caller holds the lock where it cannot
  // see it (a callback run under the lock); it checks nothing at run time.
  void AssertHeld() const ASSERT_CAPABILITY(this) {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

// MutexLock holds `mu` from construction to destruction. Unlock() / Lock()
// release and take it again within the scope (a lock dropped around a slow
// call); the destructor releases it only if held.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() RELEASE() {
    if (held_) mu_->Unlock();
  }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void Unlock() RELEASE() {
    mu_->Unlock();
    held_ = false;
  }
  void Lock() ACQUIRE() {
    mu_->Lock();
    held_ = true;
  }

 private:
  Mutex* const mu_;
  bool held_ = true;
};

// CondVar: a condition variable (std::condition_variable) waited on with a
// base::Mutex held. Waits may wake spuriously: loop on the condition,
//   while (!ready_) cv_.Wait(&mu_);
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  // Wait releases `mu`, sleeps until signalled, and takes `mu` again.
  void Wait(Mutex* mu) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();
  }
  // WaitUntil is Wait with a deadline: false when it passed unsignalled.
  template <class Clock, class Duration>
  bool WaitUntil(Mutex* mu, const std::chrono::time_point<Clock, Duration>& deadline) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const bool signalled = cv_.wait_until(lock, deadline) == std::cv_status::no_timeout;
    lock.release();
    return signalled;
  }
  // WaitFor is Wait with a timeout: false when it passed unsignalled.
  template <class Rep, class Period>
  bool WaitFor(Mutex* mu, const std::chrono::duration<Rep, Period>& timeout) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const bool signalled = cv_.wait_for(lock, timeout) == std::cv_status::no_timeout;
    lock.release();
    return signalled;
  }
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

// SharedMutex: a reader-writer lock (std::shared_mutex): many readers or one
// writer. Prefer ReaderMutexLock / WriterMutexLock to the methods.
class CAPABILITY("shared_mutex") SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  void ReaderLock() ACQUIRE_SHARED() { mu_.lock_shared(); }
  void ReaderUnlock() RELEASE_SHARED() { mu_.unlock_shared(); }
  void AssertHeld() const ASSERT_CAPABILITY(this) {}
  void AssertReaderHeld() const ASSERT_SHARED_CAPABILITY(this) {}

 private:
  std::shared_mutex mu_;
};

// WriterMutexLock holds `mu` exclusively for its scope.
class SCOPED_CAPABILITY WriterMutexLock {
 public:
  explicit WriterMutexLock(SharedMutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~WriterMutexLock() RELEASE() { mu_->Unlock(); }
  WriterMutexLock(const WriterMutexLock&) = delete;
  WriterMutexLock& operator=(const WriterMutexLock&) = delete;

 private:
  SharedMutex* const mu_;
};

// ReaderMutexLock holds `mu` shared (for reading) for its scope.
class SCOPED_CAPABILITY ReaderMutexLock {
 public:
  explicit ReaderMutexLock(SharedMutex* mu) ACQUIRE_SHARED(mu) : mu_(mu) { mu_->ReaderLock(); }
  ~ReaderMutexLock() RELEASE() { mu_->ReaderUnlock(); }
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;

 private:
  SharedMutex* const mu_;
};

}  // namespace signet::base
