#include "core/request_metrics.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <vector>

namespace signet::core {
namespace {

std::vector<RequestMetrics::CellSnapshot> Cells(const RequestMetrics& m) {
  std::vector<RequestMetrics::CellSnapshot> out;
  m.ForEachCell([&](const RequestMetrics::CellSnapshot& c) { out.push_back(c); });
  return out;
}

TEST(RequestMetrics, MechanismSlotIsTheTableRow) {
  for (std::size_t i = 0; i < RequestMetrics::kTableRows; ++i) {
    EXPECT_EQ(RequestMetrics::MechanismSlot(kMechanismTable[i].type), i);
  }
  EXPECT_EQ(RequestMetrics::MechanismSlot(0x7fffffff), RequestMetrics::kOtherMechanism);
}

TEST(RequestMetrics, BucketBoundsAreInclusiveUpperBounds) {
  EXPECT_EQ(RequestMetrics::BucketOf(0), 0u);
  EXPECT_EQ(RequestMetrics::BucketOf(10'000), 0u);
  EXPECT_EQ(RequestMetrics::BucketOf(10'001), 1u);
  EXPECT_EQ(RequestMetrics::BucketOf(10'000'000'000), kLatencyBoundsNs.size() - 1);
  EXPECT_EQ(RequestMetrics::BucketOf(10'000'000'001), kLatencyBoundsNs.size());  // +Inf
}

TEST(RequestMetrics, CountsOkAndErrorsPerOperationAndMechanism) {
  auto m = std::make_unique<RequestMetrics>();
  const std::size_t ecdsa = RequestMetrics::MechanismSlot(CKM_ECDSA);
  m->Record(3, ecdsa, CKR_OK, 30'000);
  m->Record(3, ecdsa, CKR_OK, 40'000);
  m->Record(3, ecdsa, CKR_KEY_HANDLE_INVALID, 5'000);
  m->Record(5, RequestMetrics::kNoMechanism, CKR_PIN_INCORRECT, 100'000'000);
  m->Record(RequestMetrics::kMaxOps, ecdsa, CKR_OK, 1);  // out of range: ignored

  auto cells = Cells(*m);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(cells[0].op, 3u);
  EXPECT_EQ(cells[0].mechanism, ecdsa);
  EXPECT_EQ(cells[0].ok, 2u);
  EXPECT_EQ(cells[0].buckets[0], 1u);  // 5 us
  EXPECT_EQ(cells[0].buckets[2], 2u);  // 30 and 40 us: <= 50 us
  EXPECT_EQ(cells[0].sum_ns, 75'000u);
  EXPECT_EQ(cells[1].op, 5u);
  EXPECT_EQ(cells[1].ok, 0u);

  auto errors = m->Errors();
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].op, 3u);
  EXPECT_EQ(errors[0].rv, static_cast<CK_RV>(CKR_KEY_HANDLE_INVALID));
  EXPECT_EQ(errors[0].count, 1u);
  EXPECT_EQ(errors[1].mechanism, RequestMetrics::kNoMechanism);
  EXPECT_EQ(errors[1].rv, static_cast<CK_RV>(CKR_PIN_INCORRECT));
}

TEST(RequestMetrics, ConcurrentRecordsAreAllCounted) {
  auto m = std::make_unique<RequestMetrics>();
  constexpr int kThreads = 4;
  constexpr int kEach = 20'000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&m, t] {
      for (int i = 0; i < kEach; ++i) {
        m->Record(1, 0, i % 2 == 0 ? CKR_OK : CKR_DATA_INVALID + static_cast<CK_RV>(t), 1000);
      }
    });
  }
  for (auto& t : threads) t.join();
  auto cells = Cells(*m);
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_EQ(cells[0].ok, std::uint64_t{kThreads} * kEach / 2);
  EXPECT_EQ(cells[0].buckets[0], std::uint64_t{kThreads} * kEach);
  auto errors = m->Errors();
  ASSERT_EQ(errors.size(), std::size_t{kThreads});  // one slot per distinct rv
  for (const auto& e : errors) EXPECT_EQ(e.count, std::uint64_t{kEach} / 2);
}

TEST(RequestMetrics, ErrorCombinationsPastTheTableAreCountedAsDropped) {
  auto m = std::make_unique<RequestMetrics>();
  for (std::size_t i = 0; i < RequestMetrics::kErrorSlots + 10; ++i) {
    m->Record(1, 0, static_cast<CK_RV>(0x1000 + i), 1);
  }
  EXPECT_EQ(m->Errors().size(), RequestMetrics::kErrorSlots);
  EXPECT_EQ(m->dropped_errors(), 10u);
}

}  // namespace
}  // namespace signet::core
