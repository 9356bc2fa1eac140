#include "client/node_choice.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <random>

#include "base/mutex.h"

namespace signet::client {
namespace {

using Clock = std::chrono::steady_clock;

struct Marks {
  base::Mutex mu;
  std::map<std::string, Clock::time_point> down_since GUARDED_BY(mu);
};

// TheMarks: a function-local static, not a leaked pointer: the PKCS#11
// module holding it may be dlclose()d, which must free it.
Marks& TheMarks() {
  static Marks marks;
  return marks;
}

// NextStart: the rotating position, starting at random in each process.
std::size_t NextStart() {
  static std::atomic<std::size_t> next{std::random_device{}() ^
                                       static_cast<std::size_t>(::getpid())};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

std::vector<std::string> SplitAddresses(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
  }
  return out;
}

std::vector<std::string> ConnectOrder(const std::vector<std::string>& addresses) {
  if (addresses.size() <= 1) return addresses;
  const std::size_t start = NextStart() % addresses.size();
  std::vector<std::string> healthy;
  std::vector<std::pair<Clock::time_point, std::string>> down;
  Marks& marks = TheMarks();
  base::MutexLock lock(&marks.mu);
  const Clock::time_point now = Clock::now();
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    const std::string& address = addresses[(start + i) % addresses.size()];
    auto it = marks.down_since.find(address);
    if (it != marks.down_since.end() && now - it->second < kNodeRetryAfter) {
      down.emplace_back(it->second, address);
    } else {
      healthy.push_back(address);
    }
  }
  std::stable_sort(down.begin(), down.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [since, address] : down) healthy.push_back(std::move(address));
  return healthy;
}

void MarkNodeDown(const std::string& address) {
  Marks& marks = TheMarks();
  base::MutexLock lock(&marks.mu);
  marks.down_since[address] = Clock::now();
}

void MarkNodeUp(const std::string& address) {
  Marks& marks = TheMarks();
  base::MutexLock lock(&marks.mu);
  marks.down_since.erase(address);
}

}  // namespace signet::client
