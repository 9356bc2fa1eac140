// `signet bench parallel`: seeds 000/001's parallel-signatures table. For
// each algorithm and each client count c, c client threads sign n digests
// in total (verifying each unless --no-verify) and one line per run is
// printed in the seed's format (parallel_line.h) as soon as it finishes.
//
// Backends: the daemon backend (when the caller supplies one) and/or the
// raw backend (in-process crypto/). With both, each (algorithm, c) runs on
// the daemon, then raw; raw lines are then labelled "<algo>/raw", and after
// the last line one "# ratio daemon/raw <algo> c <c> sigs/sec <x>" note per
// pair follows. Every line that is not in the seed's format starts with '#'
// (the first says that t0 and t1 are UTC), so a parser of seed 000's lines
// can skip them. Reports: CSV/JSON rows per run and an SVG of
// sigs/sec against clients, one line per (algorithm, backend).
// Thread contract: RunParallel blocks its caller and starts its own threads.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "bench/parallel_line.h"
#include "bench/report.h"
#include "bench/signer_backend.h"
#include "bench/svg_chart.h"

namespace signet::bench {

struct ParallelOptions {
  std::vector<std::string> algorithms = {"rsa:1024", "rsa:2048", "rsa:4096"};
  std::vector<int> clients = {1, 2, 3, 4, 5, 6, 7, 8};
  std::uint64_t n = 1000;  // operations per (algorithm, c) run
  bool verify = true;      // false: --no-verify
  bool raw = false;        // also (or, without a daemon, only) run in-process
  bool progress = true;    // progress bar on a TTY stderr
  std::string csv_path;    // as in SpeedOptions
  std::string json_path;
  std::string chart_path;  // SVG file; empty = none
  // The non-raw backend (backend_factory.h): "daemon" (signetd through the
  // client library), "pkcs11" (any PKCS#11 module, module_path) or
  // "cryptech" (signetd's Cryptech listener, libhal's RPC).
  std::string via = "daemon";
  std::string module_path;  // --module, with via "pkcs11"
  std::string token_label;  // --token-label: which token of the module
  int pipeline = 1;         // daemon: Sign requests in flight per client
  int batch = 1;            // daemon: digests per SignBatch request
};

// BackendRun: one measured run and the backend that produced it.
struct BackendRun {
  std::string backend;  // SignerBackend::name(): "daemon", "cryptech", "raw" ...
  ParallelRun run;
};

// MeasureParallel runs every (algorithm, c) on each backend in `backends`
// (daemon first, so ratios read daemon/raw), printing each line to `out` as
// it completes. CKR_ARGUMENTS_BAD for bad names, empty client lists,
// c < 1 or n < 1; otherwise the first error a backend reports.
[[nodiscard]] Result<std::vector<BackendRun>> MeasureParallel(
    const ParallelOptions& options, const std::vector<SignerBackend*>& backends, std::ostream& out);

// ParallelReport / ParallelChart turn runs into the CSV/JSON table and the
// SVG chart.
// `latency_lines` become "latency" notes (RunParallel's c = 1 comparison).
Report ParallelReport(const std::vector<BackendRun>& runs, const ParallelOptions& options,
                      const std::vector<std::string>& latency_lines = {});
LineChart ParallelChart(const std::vector<BackendRun>& runs);

// RunParallel is the command: `daemon` may be null (no daemon backend
// yet); then options.raw must be set. Returns the process exit code.
int RunParallel(const ParallelOptions& options, SignerBackend* daemon, std::ostream& out,
                std::ostream& err);

}  // namespace signet::bench
