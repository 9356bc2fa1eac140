#include "core/scheduler.h"

#include <sched.h>

#include <algorithm>

namespace signet::core {

Scheduler::Scheduler(Options options, PhaseCounters* counters)
    : max_queued_(options.max_queued),
      counters_(counters),
      current_cpu_(options.current_cpu ? std::move(options.current_cpu)
                                       : std::function<int()>([] { return sched_getcpu(); })) {
  std::size_t n = options.workers;
  if (n == 0) n = std::max(1u, std::thread::hardware_concurrency());
  threads_.reserve(n);
  for (std::size_t i = 0; i < n; ++i) threads_.emplace_back([this] { WorkerLoop(); });
}

Scheduler::~Scheduler() {
  {
    base::MutexLock lock(&mu_);
    stopping_ = true;
    exiting_ = true;
  }
  work_cv_.SignalAll();
  for (auto& t : threads_) t.join();
}

bool Scheduler::Submit(QueueId queue, Task task, bool one_request, int cpu) {
  {
    base::MutexLock lock(&mu_);
    if (stopping_ || queued_ >= max_queued_) {
      ++rejected_;
      return false;
    }
    auto& q = queues_[queue];
    if (q.empty()) ready_.push_back(Ready{queue, cpu});
    q.push_back(Item{std::move(task), NowNs(), one_request, cpu});
    ++queued_;
    peak_ = std::max(peak_, queued_);
  }
  work_cv_.Signal();
  return true;
}

void Scheduler::SubmitControl(QueueId queue, Task task) {
  {
    base::MutexLock lock(&mu_);
    if (!exiting_) {
      auto& q = queues_[queue];
      if (q.empty()) ready_.push_back(Ready{queue, base::kAnyCpu});
      q.push_back(Item{std::move(task), NowNs(), false});
      ++queued_;
      peak_ = std::max(peak_, queued_);
      task = nullptr;
    }
  }
  if (task) {
    task();
    return;
  }
  work_cv_.Signal();
}

bool Scheduler::TryRunOnIdleWorker(Task task) {
  {
    base::MutexLock lock(&mu_);
    if (exiting_ || queued_ != 0 || running_ >= threads_.size()) return false;
    constexpr QueueId kHelperQueue = ~QueueId{0};
    auto& q = queues_[kHelperQueue];
    if (q.empty()) ready_.push_front(Ready{kHelperQueue, base::kAnyCpu});
    q.push_back(Item{std::move(task), NowNs(), false});
    ++queued_;
  }
  work_cv_.Signal();
  return true;
}

bool Scheduler::TryRunHere(const Task& task) {
  {
    base::MutexLock lock(&mu_);
    if (stopping_ || queued_ != 0 || running_ != 0) return false;
    ++running_;
  }
  if (counters_ != nullptr) counters_->Add(Phase::kQueueWait, 0);
  try {
    task();
  } catch (...) {
    // As in WorkerLoop: never propagated.
  }
  {
    base::MutexLock lock(&mu_);
    --running_;
    ++completed_;
    ++ran_here_;
  }
  idle_cv_.SignalAll();
  return true;
}

std::size_t Scheduler::Cancel(QueueId queue) {
  std::deque<Item> dropped;  // destroyed outside the lock
  {
    base::MutexLock lock(&mu_);
    auto it = queues_.find(queue);
    if (it == queues_.end()) return 0;
    dropped.swap(it->second);
    queues_.erase(it);
    std::erase_if(ready_, [queue](const Ready& r) { return r.queue == queue; });
    queued_ -= dropped.size();
  }
  idle_cv_.SignalAll();
  return dropped.size();
}

void Scheduler::WaitIdle() {
  base::MutexLock lock(&mu_);
  while (queued_ != 0 || running_ != 0) idle_cv_.Wait(&mu_);
}

void Scheduler::Stop() {
  base::MutexLock lock(&mu_);
  stopping_ = true;
}

Scheduler::Stats Scheduler::stats() const {
  base::MutexLock lock(&mu_);
  return Stats{threads_.size(), max_queued_, queued_,   peak_,
               rejected_,       completed_,  ran_here_, ran_local_};
}

bool Scheduler::HasQueued() const {
  base::MutexLock lock(&mu_);
  return queued_ != 0;
}

std::size_t Scheduler::Load() const {
  base::MutexLock lock(&mu_);
  return queued_ + running_;
}

Scheduler::Item Scheduler::TakeLocked() {
  auto pick = base::PickLocalFirst(ready_, current_cpu_());
  if (pick != ready_.begin()) ++ran_local_;
  const QueueId id = pick->queue;
  ready_.erase(pick);
  auto it = queues_.find(id);
  Item item = std::move(it->second.front());
  it->second.pop_front();
  if (it->second.empty()) {
    queues_.erase(it);
  } else {
    ready_.push_back(Ready{id, it->second.front().cpu});  // round robin: back of the ring
  }
  --queued_;
  ++running_;
  return item;
}

void Scheduler::WorkerLoop() {
  for (;;) {
    Item item;
    {
      base::MutexLock lock(&mu_);
      while (ready_.empty() && !exiting_) work_cv_.Wait(&mu_);
      if (ready_.empty()) return;  // exiting and drained
      item = TakeLocked();
    }
    if (counters_ != nullptr && item.client_request) {
      counters_->Add(Phase::kQueueWait, NowNs() - item.enqueued_ns);
    }
    try {
      item.task();
    } catch (...) {
      // Tasks report errors through their replies; an escaped exception is
      // a bug, but must not take the daemon down.
    }
    item.task = nullptr;  // release captures before reporting idle
    {
      base::MutexLock lock(&mu_);
      --running_;
      ++completed_;
    }
    idle_cv_.SignalAll();
  }
}

}  // namespace signet::core
