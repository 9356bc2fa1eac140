// `bench profile --format callgraph`: seed 001's gprof call-graph layout
// (index, % time, self, children, called x/y, name) built from signetd's
// phase counters instead of a sampling profiler.
//
// The tree is fixed by where the daemon records its phases: a client's
// sign_request contains decode, queue_wait and execute; execute contains
// the key fetch, unwrap, sign, verify and encode phases. A node's self time
// is what its children do not account for (sign_request's self is the time
// outside the daemon: client work, socket transfer, client-side
// verification; execute's self is its unnamed remainder). Entries are
// sorted by self + children, as gprof sorts them, and numbered from [1];
// phases with no calls are left out. Times are milliseconds (gprof prints
// seconds; a signature run lasts about a second). Pure function: any
// thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/profile.h"

namespace signet::bench {

// FormatCallGraph renders the counters of one run (`whole_ns` = the sum of
// the clients' latencies over `requests` sign requests) as the seed's
// call graph, a header line and one dashed rule per entry.
std::string FormatCallGraph(const std::vector<PhaseDelta>& phases, double whole_ns,
                            std::uint64_t requests);

}  // namespace signet::bench
