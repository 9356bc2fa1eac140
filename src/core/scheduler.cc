#include "core/scheduler.h"

#include <algorithm>

namespace signet::core {

Scheduler::Scheduler(Options options, PhaseCounters* counters)
    : max_queued_(options.max_queued), counters_(counters) {
  std::size_t n = options.workers;
  if (n == 0) n = std::max(1u, std::thread::hardware_concurrency());
  threads_.reserve(n);
  for (std::size_t i = 0; i < n; ++i) threads_.emplace_back([this] { WorkerLoop(); });
}

Scheduler::~Scheduler() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    exiting_ = true;
  }
  work_cv_.notify_all();
  for (auto& t : threads_) t.join();
}

bool Scheduler::Submit(QueueId queue, Task task) {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || queued_ >= max_queued_) {
      ++rejected_;
      return false;
    }
    auto& q = queues_[queue];
    if (q.empty()) ready_.push_back(queue);
    q.push_back(Item{std::move(task), NowNs(), true});
    ++queued_;
    peak_ = std::max(peak_, queued_);
  }
  work_cv_.notify_one();
  return true;
}

void Scheduler::SubmitControl(QueueId queue, Task task) {
  {
    std::lock_guard lock(mu_);
    if (!exiting_) {
      auto& q = queues_[queue];
      if (q.empty()) ready_.push_back(queue);
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
  work_cv_.notify_one();
}

bool Scheduler::TryRunOnIdleWorker(Task task) {
  {
    std::lock_guard lock(mu_);
    if (exiting_ || queued_ != 0 || running_ >= threads_.size()) return false;
    constexpr QueueId kHelperQueue = ~QueueId{0};
    auto& q = queues_[kHelperQueue];
    if (q.empty()) ready_.push_front(kHelperQueue);
    q.push_back(Item{std::move(task), NowNs(), false});
    ++queued_;
  }
  work_cv_.notify_one();
  return true;
}

bool Scheduler::TryRunHere(const Task& task) {
  {
    std::lock_guard lock(mu_);
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
    std::lock_guard lock(mu_);
    --running_;
    ++completed_;
    ++ran_here_;
  }
  idle_cv_.notify_all();
  return true;
}

std::size_t Scheduler::Cancel(QueueId queue) {
  std::deque<Item> dropped;  // destroyed outside the lock
  {
    std::lock_guard lock(mu_);
    auto it = queues_.find(queue);
    if (it == queues_.end()) return 0;
    dropped.swap(it->second);
    queues_.erase(it);
    ready_.erase(std::remove(ready_.begin(), ready_.end(), queue), ready_.end());
    queued_ -= dropped.size();
  }
  idle_cv_.notify_all();
  return dropped.size();
}

void Scheduler::WaitIdle() {
  std::unique_lock lock(mu_);
  idle_cv_.wait(lock, [this] { return queued_ == 0 && running_ == 0; });
}

void Scheduler::Stop() {
  std::lock_guard lock(mu_);
  stopping_ = true;
}

Scheduler::Stats Scheduler::stats() const {
  std::lock_guard lock(mu_);
  return Stats{threads_.size(), max_queued_, queued_, peak_, rejected_, completed_, ran_here_};
}

void Scheduler::WorkerLoop() {
  for (;;) {
    Item item;
    {
      std::unique_lock lock(mu_);
      work_cv_.wait(lock, [this] { return !ready_.empty() || exiting_; });
      if (ready_.empty()) return;  // exiting and drained
      QueueId id = ready_.front();
      ready_.pop_front();
      auto it = queues_.find(id);
      item = std::move(it->second.front());
      it->second.pop_front();
      if (it->second.empty()) {
        queues_.erase(it);
      } else {
        ready_.push_back(id);  // round robin: back of the ring
      }
      --queued_;
      ++running_;
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
      std::lock_guard lock(mu_);
      --running_;
      ++completed_;
    }
    idle_cv_.notify_all();
  }
}

}  // namespace signet::core
