#include "base/local_first.h"

#include <gtest/gtest.h>

#include <deque>
#include <vector>

namespace signet::base {
namespace {

struct Item {
  int id;
  int cpu;
  int passed = 0;
};

// Order takes every item, one at a time, on CPU 7, and returns their ids
// in the order taken.
std::vector<int> Order(const std::vector<int>& cpus, int* local_picks = nullptr) {
  std::deque<Item> waiting;
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    waiting.push_back(Item{static_cast<int>(i) + 1, cpus[i]});
  }
  std::vector<int> order;
  int locals = 0;
  while (!waiting.empty()) {
    auto pick = PickLocalFirst(waiting, 7);
    locals += pick != waiting.begin() ? 1 : 0;
    order.push_back(pick->id);
    waiting.erase(pick);
  }
  if (local_picks != nullptr) *local_picks = locals;
  return order;
}

TEST(PickLocalFirst, TakesTheItemsOnTheConsumersCpuFirst) {
  int locals = 0;
  EXPECT_EQ(Order({3, 7, kAnyCpu, 7}, &locals), (std::vector<int>{2, 4, 1, 3}));
  EXPECT_EQ(locals, 2);
}

TEST(PickLocalFirst, WithNoLocalItemTheOrderIsOldestFirst) {
  int locals = 0;
  EXPECT_EQ(Order({3, kAnyCpu, 5}, &locals), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(locals, 0);
}

TEST(PickLocalFirst, AConsumerOnNoKnownCpuTakesOldestFirst) {
  std::deque<Item> waiting = {{1, kAnyCpu}, {2, 7}};
  EXPECT_EQ(PickLocalFirst(waiting, kAnyCpu), waiting.begin());
  EXPECT_EQ(waiting[1].passed, 0);
}

TEST(PickLocalFirst, NoItemIsPassedOverMoreThanMaxPassedTimes) {
  static_assert(kMaxPassed == 4, "the order below assumes four");
  // 1 and 2 are not local; 3-8 are. Each local one taken passes over both;
  // after four, 1 and 2 go first.
  EXPECT_EQ(Order({3, 3, 7, 7, 7, 7, 7, 7}), (std::vector<int>{3, 4, 5, 6, 1, 2, 7, 8}));
}

TEST(PickLocalFirst, OnlyTheFirstLocalScanItemsAreLookedAt) {
  std::vector<int> cpus(kLocalScan + 1, 3);
  cpus.back() = 7;  // just past the scan
  EXPECT_EQ(Order(cpus).front(), 1);
}

}  // namespace
}  // namespace signet::base
