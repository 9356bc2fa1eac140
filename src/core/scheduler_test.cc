#include "core/scheduler.h"

#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <vector>

namespace signet::core {
namespace {

// Gate: blocks the single worker until opened, so the test controls what is
// queued before anything runs (no sleeps).
// Gate holds one worker busy: Block submits (to `queue`) a task that waits
// for open.set_value(), and returns once that task is running.
struct Gate {
  std::promise<void> open;
  std::shared_future<void> opened = open.get_future().share();
  std::promise<void> blocked;

  void Block(Scheduler& s, Scheduler::QueueId queue = 1) {
    ASSERT_TRUE(s.Submit(queue, [this] {
      blocked.set_value();
      opened.wait();
    }));
    blocked.get_future().wait();
  }
};

TEST(Scheduler, RoundRobinAcrossQueues) {
  PhaseCounters counters;
  Scheduler s({1, 1000}, &counters);
  Gate gate;
  gate.Block(s, 99);
  std::mutex mu;
  std::vector<int> order;
  // Queue 1 pipelines 50 tasks before queue 2 submits its one.
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(s.Submit(1, [&] {
      std::lock_guard l(mu);
      order.push_back(1);
    }));
  }
  ASSERT_TRUE(s.Submit(2, [&] {
    std::lock_guard l(mu);
    order.push_back(2);
  }));
  gate.open.set_value();
  s.WaitIdle();
  ASSERT_EQ(order.size(), 51u);
  // Fair: queue 2 runs second, not after queue 1's 50.
  EXPECT_EQ(order[1], 2);
  EXPECT_GE(counters.Get(Phase::kQueueWait).calls, 52u);
}

// OrderOf runs one task on each of `cpus.size()` queues (queue i + 1 names
// cpus[i]) on a single worker that says it is on CPU 7, and returns the
// queues in the order they ran.
std::vector<int> OrderOf(const std::vector<int>& cpus, Scheduler::Stats* stats) {
  Scheduler s({.workers = 1, .max_queued = 1000, .current_cpu = [] { return 7; }}, nullptr);
  Gate gate;
  gate.Block(s, 99);
  std::mutex mu;
  std::vector<int> order;
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    const int queue = static_cast<int>(i) + 1;
    EXPECT_TRUE(s.Submit(
        queue,
        [&, queue] {
          std::lock_guard l(mu);
          order.push_back(queue);
        },
        true, cpus[i]));
  }
  gate.open.set_value();
  s.WaitIdle();
  *stats = s.stats();
  return order;
}

TEST(Scheduler, AWorkerTakesAConnectionOnItsCpuFirst) {
  Scheduler::Stats stats;
  // Queues 2 and 4 name the worker's CPU; 1 another; 3 none.
  EXPECT_EQ(OrderOf({3, 7, base::kAnyCpu, 7}, &stats), (std::vector<int>{2, 4, 1, 3}));
  EXPECT_EQ(stats.ran_local, 2u);
}

TEST(Scheduler, WithoutALocalConnectionTheOrderIsRoundRobin) {
  Scheduler::Stats stats;
  EXPECT_EQ(OrderOf({3, base::kAnyCpu, 5}, &stats), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(stats.ran_local, 0u);
}

TEST(Scheduler, BoundRefusesAndCountsRejections) {
  Scheduler s({1, 3}, nullptr);
  Gate gate;
  gate.Block(s);
  EXPECT_TRUE(s.Submit(1, [] {}));
  EXPECT_TRUE(s.Submit(2, [] {}));
  EXPECT_TRUE(s.Submit(3, [] {}));
  EXPECT_FALSE(s.Submit(4, [] {}));  // 3 queued: full
  auto stats = s.stats();
  EXPECT_EQ(stats.depth, 3u);
  EXPECT_EQ(stats.rejected, 1u);
  EXPECT_EQ(stats.capacity, 3u);
  gate.open.set_value();
  s.WaitIdle();
  EXPECT_EQ(s.stats().completed, 4u);
  EXPECT_TRUE(s.Submit(4, [] {}));  // room again
}

TEST(Scheduler, CancelDropsOnlyThatQueue) {
  Scheduler s({1, 100}, nullptr);
  Gate gate;
  gate.Block(s);
  int ran_a = 0, ran_b = 0;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(s.Submit(7, [&] { ++ran_a; }));
  ASSERT_TRUE(s.Submit(8, [&] { ++ran_b; }));
  EXPECT_EQ(s.Cancel(7), 5u);
  gate.open.set_value();
  s.WaitIdle();
  EXPECT_EQ(ran_a, 0);
  EXPECT_EQ(ran_b, 1);
}

TEST(Scheduler, StopRefusesButControlTasksRun) {
  Scheduler s({2, 10}, nullptr);
  s.Stop();
  EXPECT_FALSE(s.Submit(1, [] {}));
  std::promise<void> ran;
  s.SubmitControl(1, [&] { ran.set_value(); });
  ran.get_future().wait();
  s.WaitIdle();
}

TEST(Scheduler, EscapedExceptionDoesNotKillWorker) {
  Scheduler s({1, 10}, nullptr);
  ASSERT_TRUE(s.Submit(1, [] { throw std::runtime_error("bug"); }));
  std::promise<void> ran;
  ASSERT_TRUE(s.Submit(1, [&] { ran.set_value(); }));
  ran.get_future().wait();
}

TEST(Scheduler, TryRunOnIdleWorkerOnlyWhenOneIsIdle) {
  Scheduler s({1, 10}, nullptr);
  Gate gate;
  gate.Block(s);
  bool ran = false;
  EXPECT_FALSE(s.TryRunOnIdleWorker([&] { ran = true; }));  // the only worker is busy
  gate.open.set_value();
  s.WaitIdle();
  EXPECT_FALSE(ran);
  std::promise<void> helper;
  EXPECT_TRUE(s.TryRunOnIdleWorker([&] { helper.set_value(); }));
  helper.get_future().wait();
}

// queue_wait is a client request's wait: control tasks (connection
// clean-up) and split helpers are not counted.
TEST(Scheduler, QueueWaitCountsOnlyClientRequests) {
  PhaseCounters counters;
  Scheduler s({2, 10}, &counters);
  ASSERT_TRUE(s.Submit(1, [] {}));
  s.SubmitControl(1, [] {});
  s.WaitIdle();
  std::promise<void> helper;
  ASSERT_TRUE(s.TryRunOnIdleWorker([&] { helper.set_value(); }));
  helper.get_future().wait();
  s.WaitIdle();
  EXPECT_EQ(counters.Get(Phase::kQueueWait).calls, 1u);
}

TEST(Scheduler, TryRunHereOnlyWhenNothingQueuedOrRunning) {
  Scheduler s({2, 10}, nullptr);
  const std::thread::id caller = std::this_thread::get_id();
  std::thread::id ran_on;
  EXPECT_TRUE(s.TryRunHere([&] { ran_on = std::this_thread::get_id(); }));
  EXPECT_EQ(ran_on, caller);
  EXPECT_EQ(s.stats().completed, 1u);

  Gate gate;
  gate.Block(s);
  bool ran = false;
  EXPECT_FALSE(s.TryRunHere([&] { ran = true; }));  // a worker is busy, one is idle
  gate.open.set_value();
  s.WaitIdle();
  s.Stop();
  EXPECT_FALSE(s.TryRunHere([&] { ran = true; }));  // stopping: nothing new runs
  EXPECT_FALSE(ran);
}

}  // namespace
}  // namespace signet::core
