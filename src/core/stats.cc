#include "core/stats.h"

namespace signet::core {

std::string_view PhaseName(Phase phase) {
  static constexpr std::string_view kNames[] = {
      "decode", "queue_wait", "key_fetch_hit", "key_fetch_miss", "unwrap",
      "sign",   "verify",     "encode",        "execute",
  };
  static_assert(std::size(kNames) == static_cast<std::size_t>(Phase::kCount));
  return kNames[static_cast<std::size_t>(phase)];
}

}  // namespace signet::core
