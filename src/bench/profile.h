// `signet bench profile`: where a signature's time goes inside signetd, in
// the spirit of seed 001's call graph. It runs one parallel load through the
// daemon backend, reads the daemon's always-on phase counters before and
// after (Client::GetStats; the "before" is taken once every client has
// connected and logged in, so set-up requests stay out), and prints for each
// phase: calls, total time, % of the whole and microseconds per call.
//
// "The whole" is the sum of the clients' own latencies, so the rows that do
// not contain others (decode, queue wait, the parts of execute, and what
// lies outside the daemon: socket transfer, client encoding, client-side
// verification) add up to 100%. It then states the counters' own cost,
// measured in this process: one phase record (two steady_clock reads and
// two relaxed atomic adds) in ns, per request, and as a share of one
// RSA-2048 signature. `--format callgraph` prints the same counters in seed
// 001's call-graph layout instead (profile_callgraph.h).
// Thread contract: RunProfile blocks its caller.
#pragma once

#include <ostream>
#include <string>

#include "bench/daemon_backend.h"
#include "bench/report.h"

namespace signet::bench {

// ProfilePhase: a daemon phase counter (core/stats.h's wire name) and
// whether it is recorded inside `execute` (the others lie directly inside
// a client's sign request).
struct ProfilePhase {
  const char* name;
  bool in_execute;
};
inline constexpr ProfilePhase kProfilePhases[] = {
    {"decode", false},       {"queue_wait", false},    {"execute", false},
    {"key_fetch_hit", true}, {"key_fetch_miss", true}, {"unwrap", true},
    {"sign", true},          {"verify", true},         {"encode", true},
};

struct ProfileOptions {
  std::string algorithm = "rsa:2048";
  int clients = 2;
  std::uint64_t n = 1000;
  bool verify = true;
  std::string format = "table";  // or "callgraph" (seed 001's layout)
  bool progress = true;          // a progress bar on stderr when it is a TTY
  std::string csv_path;
  std::string json_path;
  std::string chart_path;  // also draw the tables' bar charts here (SVG)
};

// PhaseDelta: one phase's counters over the run (after - before).
struct PhaseDelta {
  std::string name;
  std::uint64_t calls = 0;
  std::uint64_t total_ns = 0;
};

// ProfileReport builds the table from the counter deltas, the sum of the
// clients' latencies (whole_ns), the run's size and the measured counter
// cost. Pure: testable without a daemon.
Report ProfileReport(const std::vector<PhaseDelta>& phases, double whole_ns,
                     const ProfileOptions& options, double record_ns, double rsa2048_sign_ns);

// MeasureCounterCost returns the ns of one phase record, timed in-process
// over `iterations` records.
double MeasureCounterCost(int iterations = 1000000);

// ProfileRun: what one profiled load measured.
struct ProfileRun {
  ParallelRun run;                 // the clients' side: the seed-format line
  std::vector<PhaseDelta> phases;  // the daemon's counters over the run
  double whole_ns = 0;             // sum of the clients' latencies
  std::uint64_t workers = 0;       // signetd's worker threads
  Report report;                   // ProfileReport plus the daemon's notes
};

// MeasureProfile runs the load on `backend` and reads the counters around
// it. CKR_ARGUMENTS_BAD for an unknown algorithm; the backend's errors.
[[nodiscard]] Result<ProfileRun> MeasureProfile(const ProfileOptions& options,
                                                DaemonBackend& backend);

// RunProfile runs the load on `backend` and prints the report to `out` (CSV
// / JSON to the paths); errors to `err`. Returns the exit code.
int RunProfile(const ProfileOptions& options, DaemonBackend& backend, std::ostream& out,
               std::ostream& err);

}  // namespace signet::bench
