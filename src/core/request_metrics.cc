#include "core/request_metrics.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace signet::core {
namespace {

// kRowsByType: (CKM_ value, table row) sorted by value, built at compile
// time, so MechanismSlot is a binary search of integers.
constexpr auto kRowsByType = [] {
  std::array<std::pair<CK_MECHANISM_TYPE, std::size_t>, RequestMetrics::kTableRows> rows{};
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = {kMechanismTable[i].type, i};
  std::sort(rows.begin(), rows.end());
  return rows;
}();

// ErrorKey packs (op, mechanism, rv) into one non-zero word: 8 bits of
// operation, 8 of mechanism slot, 48 of CK_RV (vendor codes are 0x8000xxxx).
constexpr std::uint64_t ErrorKey(std::size_t op, std::size_t mechanism, CK_RV rv) {
  return (std::uint64_t{op + 1} << 56) | (std::uint64_t{mechanism} << 48) |
         (static_cast<std::uint64_t>(rv) & ((std::uint64_t{1} << 48) - 1));
}
static_assert(RequestMetrics::kMaxOps < 255 && RequestMetrics::kMechanismSlots < 256);

}  // namespace

std::size_t RequestMetrics::MechanismSlot(CK_MECHANISM_TYPE type) {
  auto it = std::lower_bound(kRowsByType.begin(), kRowsByType.end(), type,
                             [](const auto& row, CK_MECHANISM_TYPE t) { return row.first < t; });
  return it != kRowsByType.end() && it->first == type ? it->second : kOtherMechanism;
}

void RequestMetrics::RecordError(std::size_t op, std::size_t mechanism, CK_RV rv) {
  const std::uint64_t key = ErrorKey(op, mechanism, rv);
  // Fibonacci hashing spreads the packed fields over the table.
  std::size_t i = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 54) % kErrorSlots;
  for (std::size_t probe = 0; probe < kErrorSlots; ++probe, i = (i + 1) % kErrorSlots) {
    ErrorSlot& slot = errors_[i];
    std::uint64_t seen = slot.key.load(std::memory_order_acquire);
    if (seen == 0) {
      std::uint64_t expected = 0;
      if (slot.key.compare_exchange_strong(expected, key, std::memory_order_acq_rel)) {
        seen = key;
      } else {
        seen = expected;  // another thread took the slot meanwhile
      }
    }
    if (seen == key) {
      slot.count.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
  dropped_errors_.fetch_add(1, std::memory_order_relaxed);
}

void RequestMetrics::ForEachCell(const std::function<void(const CellSnapshot&)>& visit) const {
  for (std::size_t op = 0; op < kMaxOps; ++op) {
    for (std::size_t m = 0; m < kMechanismSlots; ++m) {
      const Cell& cell = cells_[op * kMechanismSlots + m];
      CellSnapshot s;
      s.op = op;
      s.mechanism = m;
      std::uint64_t total = 0;
      for (std::size_t b = 0; b < kBuckets; ++b) {
        s.buckets[b] = cell.buckets[b].load(std::memory_order_relaxed);
        total += s.buckets[b];
      }
      if (total == 0) continue;
      s.sum_ns = cell.sum_ns.load(std::memory_order_relaxed);
      s.ok = cell.ok.load(std::memory_order_relaxed);
      visit(s);
    }
  }
}

std::vector<RequestMetrics::ErrorCount> RequestMetrics::Errors() const {
  std::vector<ErrorCount> out;
  for (const ErrorSlot& slot : errors_) {
    std::uint64_t key = slot.key.load(std::memory_order_acquire);
    if (key == 0) continue;
    ErrorCount e;
    e.op = static_cast<std::size_t>(key >> 56) - 1;
    e.mechanism = static_cast<std::size_t>((key >> 48) & 0xff);
    e.rv = static_cast<CK_RV>(key & ((std::uint64_t{1} << 48) - 1));
    e.count = slot.count.load(std::memory_order_relaxed);
    out.push_back(e);
  }
  std::sort(out.begin(), out.end(), [](const ErrorCount& a, const ErrorCount& b) {
    return std::tie(a.op, a.mechanism, a.rv) < std::tie(b.op, b.mechanism, b.rv);
  });
  return out;
}

}  // namespace signet::core
