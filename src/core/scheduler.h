// Scheduler: a fixed pool of worker threads fed by a fair, bounded queue.
//
// Each connection submits into its own FIFO queue; workers take one task at
// a time from the connection at the head of a ring of connections with work,
// then move that connection to the back. So a client pipelining a thousand
// requests gets the same share of the workers as one sending one at a time,
// and throughput does not fall as clients outnumber cores.
//
// Locality: a task may name the CPU its client runs on (a shared-memory
// ring's drain does: the client writes it into each request). A worker
// takes first, by base/local_first.h's rule, a connection whose next task
// names the CPU the worker is on, so the reply wakes the client where the
// client already is (docs/PERFORMANCE.md "Serving each client on its own
// CPU"). A client that lies about its CPU gains about what
// base::kMaxPassed more connections would give it.
//
// The total number of queued tasks is bounded: Submit refuses past the bound
// (the caller answers SIGNET_RV_BUSY), so memory never grows without limit.
//
// Thread contract: every method may be called from any thread. Tasks run on
// the workers and must not throw (a thrown exception is caught and counted,
// never propagated). The destructor stops the workers after the tasks
// already queued have run.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/local_first.h"
#include "base/mutex.h"
#include "core/stats.h"

namespace signet::core {

class Scheduler {
 public:
  using Task = std::function<void()>;
  using QueueId = std::uint64_t;

  struct Options {
    std::size_t workers = 0;        // 0: one per hardware thread
    std::size_t max_queued = 4096;  // total queued (not running) tasks
    // current_cpu: the CPU the calling worker runs on (tests replace it).
    std::function<int()> current_cpu;  // null: sched_getcpu
  };

  struct Stats {
    std::size_t workers = 0;
    std::size_t capacity = 0;
    std::size_t depth = 0;
    std::size_t peak = 0;
    std::uint64_t rejected = 0;
    std::uint64_t completed = 0;
    std::uint64_t ran_here = 0;  // of completed: through TryRunHere
    std::uint64_t ran_local = 0;  // taken past the head for the worker's CPU
  };

  // Scheduler starts the workers. `counters` (not owned, may be null) gets
  // each Submit task's queue wait; it must outlive the Scheduler.
  Scheduler(Options options, PhaseCounters* counters);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Submit queues `task` behind `queue`'s earlier tasks. Returns false, and
  // drops the task, when the bound is reached or Stop was called.
  // `one_request`: the task is one client request, whose wait here is its
  // queue_wait; a shared-memory ring's drain (many requests, each having
  // waited in the ring instead) is not. `cpu`: the CPU the task's client
  // runs on, if known (Locality above).
  [[nodiscard]] bool Submit(QueueId queue, Task task, bool one_request = true,
                            int cpu = base::kAnyCpu) EXCLUDES(mu_);

  // SubmitControl queues `task` like Submit but past the bound and after
  // Stop (connection clean-up must always run). Dropped only when the
  // scheduler is being destroyed, in which case it runs inline.
  void SubmitControl(QueueId queue, Task task) EXCLUDES(mu_);

  // TryRunOnIdleWorker runs `task` on a worker at once if one is idle and
  // nothing is queued, and returns true; otherwise returns false without
  // running it. For helper work that only pays off on a spare core (the
  // second half of a split RSA signature); the task must tolerate running
  // late, since the idle worker may be a moment from picking it up.
  bool TryRunOnIdleWorker(Task task) EXCLUDES(mu_);

  // TryRunHere runs `task` on the calling thread, counted as running, if
  // nothing is queued or running and Stop was not called, and returns true;
  // otherwise returns false without running it. For short tasks that would
  // otherwise pay a sleeping worker's wake-up, which costs more than the
  // task itself on a virtual machine.
  bool TryRunHere(const Task& task) EXCLUDES(mu_);

  // Cancel drops every task still queued for `queue` (its connection went
  // away) and returns how many; running tasks finish normally.
  std::size_t Cancel(QueueId queue) EXCLUDES(mu_);

  // WaitIdle blocks until no task is queued or running.
  void WaitIdle() EXCLUDES(mu_);

  // Stop refuses new tasks from now on; queued ones still run.
  void Stop() EXCLUDES(mu_);

  Stats stats() const EXCLUDES(mu_);
  // HasQueued: some task waits for a worker (a worker that could go on with
  // its own connection's work yields to it instead: fairness).
  bool HasQueued() const EXCLUDES(mu_);
  // Load: tasks queued plus running (a task asking counts itself).
  std::size_t Load() const EXCLUDES(mu_);
  std::size_t workers() const { return threads_.size(); }

 private:
  struct Item {
    Task task;
    std::uint64_t enqueued_ns;
    // Only client requests count as queue_wait: control tasks and split
    // helpers are not requests, and a helper's wait is inside its request's
    // execute phase already.
    bool client_request;
    int cpu = base::kAnyCpu;
  };
  // Ready: a connection with queued work, in the round-robin ring, and the
  // CPU its next task names.
  struct Ready {
    QueueId queue;
    int cpu;
    int passed = 0;  // times a connection behind it was taken first (local)
  };

  // TakeLocked takes the next task (Locality above) and moves its
  // connection to the back of the ring, or off it when it has no more.
  Item TakeLocked() REQUIRES(mu_);

  void WorkerLoop() EXCLUDES(mu_);

  const std::size_t max_queued_;
  PhaseCounters* counters_;
  const std::function<int()> current_cpu_;

  mutable base::Mutex mu_;
  base::CondVar work_cv_;
  base::CondVar idle_cv_;
  std::unordered_map<QueueId, std::deque<Item>> queues_ GUARDED_BY(mu_);
  // Connections with queued work, round-robin order.
  std::deque<Ready> ready_ GUARDED_BY(mu_);
  std::size_t queued_ GUARDED_BY(mu_) = 0;
  std::size_t running_ GUARDED_BY(mu_) = 0;
  std::size_t peak_ GUARDED_BY(mu_) = 0;
  std::uint64_t rejected_ GUARDED_BY(mu_) = 0;
  std::uint64_t completed_ GUARDED_BY(mu_) = 0;
  std::uint64_t ran_here_ GUARDED_BY(mu_) = 0;
  std::uint64_t ran_local_ GUARDED_BY(mu_) = 0;
  bool stopping_ GUARDED_BY(mu_) = false;  // no new tasks
  bool exiting_ GUARDED_BY(mu_) = false;   // workers leave when the queue is empty
  // Filled by the constructor, then only read (joined by the destructor).
  std::vector<std::thread> threads_;
};

}  // namespace signet::core
