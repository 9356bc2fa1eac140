#include "bench/profile_callgraph.h"

#include <gtest/gtest.h>

namespace signet::bench {
namespace {

// 1000 requests whose latencies add up to 600 ms: the daemon's phases take
// 540 ms of it (decode 10, queue_wait 30, execute 500 of which key fetch
// 20 and sign 450), so 60 ms are outside the daemon; verify and unwrap
// have no calls and so no entry.
const std::vector<PhaseDelta> kPhases = {
    {"decode", 1000, 10'000'000},
    {"queue_wait", 1000, 30'000'000},
    {"key_fetch_hit", 990, 15'000'000},
    {"key_fetch_miss", 10, 5'000'000},
    {"unwrap", 0, 0},
    {"sign", 1000, 450'000'000},
    {"verify", 0, 0},
    {"encode", 1000, 12'000'000},
    {"execute", 1000, 500'000'000},
};

TEST(ProfileCallGraph, HasTheSeedsLayout) {
  EXPECT_EQ(FormatCallGraph(kPhases, 600e6, 1000),
            "index % time    self  children    called     name\n"
            "-----------------------------------------------\n"
            "                                             <spontaneous>\n"
            "[1]    100.0   60.00  540.00    1000         sign_request [1]\n"
            "               18.00  482.00    1000/1000        execute [2]\n"
            "               30.00    0.00    1000/1000        queue_wait [4]\n"
            "               10.00    0.00    1000/1000        decode [7]\n"
            "-----------------------------------------------\n"
            "               18.00  482.00    1000/1000        sign_request [1]\n"
            "[2]     83.3   18.00  482.00    1000         execute [2]\n"
            "              450.00    0.00    1000/1000        sign [3]\n"
            "               15.00    0.00     990/990         key_fetch_hit [5]\n"
            "               12.00    0.00    1000/1000        encode [6]\n"
            "                5.00    0.00      10/10          key_fetch_miss [8]\n"
            "-----------------------------------------------\n"
            "              450.00    0.00    1000/1000        execute [2]\n"
            "[3]     75.0  450.00    0.00    1000         sign [3]\n"
            "-----------------------------------------------\n"
            "               30.00    0.00    1000/1000        sign_request [1]\n"
            "[4]      5.0   30.00    0.00    1000         queue_wait [4]\n"
            "-----------------------------------------------\n"
            "               15.00    0.00     990/990         execute [2]\n"
            "[5]      2.5   15.00    0.00     990         key_fetch_hit [5]\n"
            "-----------------------------------------------\n"
            "               12.00    0.00    1000/1000        execute [2]\n"
            "[6]      2.0   12.00    0.00    1000         encode [6]\n"
            "-----------------------------------------------\n"
            "               10.00    0.00    1000/1000        sign_request [1]\n"
            "[7]      1.7   10.00    0.00    1000         decode [7]\n"
            "-----------------------------------------------\n"
            "                5.00    0.00      10/10          execute [2]\n"
            "[8]      0.8    5.00    0.00      10         key_fetch_miss [8]\n"
            "-----------------------------------------------\n");
}

}  // namespace
}  // namespace signet::bench
