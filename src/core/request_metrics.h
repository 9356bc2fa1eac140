// RequestMetrics: per-request counters for the Prometheus endpoint: how many
// requests of each operation and mechanism ended with which CK_RV, and how
// long they took (a histogram per operation and mechanism).
//
// Built for the signing path: Record is a handful of relaxed atomic
// increments into fixed arrays indexed by operation (the wire's request
// type, a small integer) and mechanism-table row (base/mechanism_table.h);
// no lock, no allocation, no lookup by string. Errors, rarer, go to a fixed
// open-addressing table keyed by (operation, mechanism, CK_RV) that is filled
// with compare-and-swap, so it is lock-free too; when all its slots are taken
// a new combination is counted in dropped_errors() instead.
//
// Thread contract: Record may be called from any thread concurrently; the
// readers (ForEachCell, Errors) may run at the same time and see each
// counter exact, though not all counters at one instant.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <vector>

#include "base/mechanism_table.h"
#include "signet/types.hpp"

namespace signet::core {

// kLatencyBoundsNs: the histogram's bucket upper bounds, 10 us to 10 s in
// 1-2.5-5 steps (a P-256 signature takes ~30 us, an RSA-4096 key generation
// seconds); one more bucket (+Inf) takes everything slower.
inline constexpr std::array<std::uint64_t, 19> kLatencyBoundsNs = {
    10'000,        25'000,        50'000,        100'000,       250'000,
    500'000,       1'000'000,     2'500'000,     5'000'000,     10'000'000,
    25'000'000,    50'000'000,    100'000'000,   250'000'000,   500'000'000,
    1'000'000'000, 2'500'000'000, 5'000'000'000, 10'000'000'000};

class RequestMetrics {
 public:
  // kMaxOps: operations are 0 .. kMaxOps-1 (the daemon checks that its
  // request types fit).
  static constexpr std::size_t kMaxOps = 48;
  static constexpr std::size_t kTableRows = std::size(kMechanismTable);
  // kNoMechanism: the operation takes no mechanism (Login, FindObjects ...).
  static constexpr std::size_t kNoMechanism = kTableRows;
  // kOtherMechanism: a mechanism that is not in the table (refused).
  static constexpr std::size_t kOtherMechanism = kTableRows + 1;
  static constexpr std::size_t kMechanismSlots = kTableRows + 2;
  static constexpr std::size_t kBuckets = kLatencyBoundsNs.size() + 1;
  // kErrorSlots: distinct (operation, mechanism, CK_RV) error combinations kept.
  static constexpr std::size_t kErrorSlots = 1024;

  // MechanismSlot: `type`'s row in kMechanismTable, or kOtherMechanism.
  static std::size_t MechanismSlot(CK_MECHANISM_TYPE type);

  // Record counts one request of operation `op` (< kMaxOps; larger ones are
  // ignored) and mechanism slot `mechanism` that ended with `rv` after `ns`.
  void Record(std::size_t op, std::size_t mechanism, CK_RV rv, std::uint64_t ns) {
    if (op >= kMaxOps || mechanism >= kMechanismSlots) return;
    Cell& cell = cells_[op * kMechanismSlots + mechanism];
    cell.buckets[BucketOf(ns)].fetch_add(1, std::memory_order_relaxed);
    cell.sum_ns.fetch_add(ns, std::memory_order_relaxed);
    if (rv == CKR_OK) {
      cell.ok.fetch_add(1, std::memory_order_relaxed);
    } else {
      RecordError(op, mechanism, rv);
    }
  }

  // BucketOf: the index of the first bucket whose bound is >= ns.
  static std::size_t BucketOf(std::uint64_t ns) {
    std::size_t i = 0;
    while (i < kLatencyBoundsNs.size() && ns > kLatencyBoundsNs[i]) ++i;
    return i;
  }

  // CellSnapshot: one operation and mechanism's counts (buckets are per
  // bucket, not cumulative).
  struct CellSnapshot {
    std::size_t op = 0;
    std::size_t mechanism = 0;
    std::uint64_t ok = 0;
    std::array<std::uint64_t, kBuckets> buckets{};
    std::uint64_t sum_ns = 0;
  };
  // ForEachCell calls `visit` for every operation and mechanism that has
  // seen a request.
  void ForEachCell(const std::function<void(const CellSnapshot&)>& visit) const;

  // ErrorCount: requests of one operation and mechanism that ended with rv.
  struct ErrorCount {
    std::size_t op = 0;
    std::size_t mechanism = 0;
    CK_RV rv = CKR_OK;
    std::uint64_t count = 0;
  };
  std::vector<ErrorCount> Errors() const;

  // dropped_errors: errors not counted by combination because every error
  // slot was taken.
  std::uint64_t dropped_errors() const { return dropped_errors_.load(std::memory_order_relaxed); }

 private:
  struct Cell {
    std::array<std::atomic<std::uint64_t>, kBuckets> buckets{};
    std::atomic<std::uint64_t> sum_ns{0};
    std::atomic<std::uint64_t> ok{0};
  };
  struct ErrorSlot {
    std::atomic<std::uint64_t> key{0};  // 0: free; else ErrorKey
    std::atomic<std::uint64_t> count{0};
  };

  void RecordError(std::size_t op, std::size_t mechanism, CK_RV rv);

  std::array<Cell, kMaxOps * kMechanismSlots> cells_{};
  std::array<ErrorSlot, kErrorSlots> errors_{};
  std::atomic<std::uint64_t> dropped_errors_{0};
};

}  // namespace signet::core
