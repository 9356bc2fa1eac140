// `signet stats --profile --interval 1s`: the view `signet bench profile`
// gives of a benchmark, taken from a live daemon under whatever load it
// has: every interval, what the daemon's always-on counters (GetStats: the
// phases of docs/DESIGN.md "Metrics", the queue, the key cache) moved by,
// as rates and shares of one core. Pure formatting here; the loop is in
// cmd_info.cc. Single-threaded.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "cli/output.h"
#include "signet/client.hpp"
#include "signet/result.hpp"

namespace signet::cli {

// ParseInterval reads "1s", "250ms", "1.5s" or a bare number of seconds;
// CKR_ARGUMENTS_BAD below 10 ms or above an hour, or when it does not parse.
Result<std::chrono::milliseconds> ParseInterval(std::string_view text);

// ProfileText: what changed from `before` to `after`, `seconds` apart: a
// summary line (requests completed per second, queue depth and peak, busy
// rejections, key-cache hits and misses, workers' busy share) and a table
// of phases (calls per second, microseconds per call, % of one core).
std::string ProfileText(const client::ServerStats& before, const client::ServerStats& after,
                        double seconds);

// ProfileJson: the same as one JSON object (--json prints one per line).
Json ProfileJson(const client::ServerStats& before, const client::ServerStats& after,
                 double seconds);

}  // namespace signet::cli
