// `signet bench app`: seed 003's mutable-file table (create / upload /
// download milliseconds per file) for each key type, with signetd's key
// pool on and off (issue 6). The per-file workload is app_workload.h; RSA
// under 1024 bits, which no token holds, runs the same steps in this
// process (app_in_process.h) in rows whose pool column says "in-process".
//
// Without a daemon address the command starts its own throw-away signetd
// per pool mode (local_daemon.h): "off" with no pool, "on" with
// `--pool TYPE=N,...` for every selected type (N = that type's trials) and
// waits, polling GetStats, until every pool holds N keys before timing.
// With --socket the given daemon is measured as it is (mode "given"). Each
// row also reports how many keys the daemon handed out from its pool and
// how many pooled-type requests found it empty (GetStats deltas), so a
// reader can see which rows the pool served.
// Calling thread only; the progress bar goes to stderr when it is a TTY.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "bench/backend_factory.h"
#include "bench/report.h"
#include "signet/result.hpp"

namespace signet::bench {

struct AppOptions {
  // algorithms: key types (FindSignAlgorithm names); empty: rsa:512,
  // rsa:522, rsa:1024, rsa:2048, rsa:3072, rsa:4096, ec:p256, ed25519.
  std::vector<std::string> algorithms;
  // pool: on, off or both (ignored with a given daemon), or in-process to
  // run every type in this process.
  std::string pool = "both";
  // trials: files per (type, mode); 0: 10, but 5 for RSA-3072 and 3 for
  // RSA-4096 without a pool (fresh keys take seconds there).
  int trials = 0;
  std::size_t size = 1024;  // payload bytes per upload
  bool progress = true;
  std::string csv_path;  // as in SpeedOptions
  std::string json_path;
  std::string chart_path;  // also draw the tables' bar charts here (SVG)
};

// MeasureApp runs the workload and returns the report (one table, one row
// per type and mode). CKR_ARGUMENTS_BAD for an unknown type or pool mode,
// trials < 0, a size of 0 or over 512 KiB, or a given daemon without a PIN;
// daemon start, connection and workload errors otherwise (a failed check of
// a signature or decryption fails the run).
[[nodiscard]] Result<Report> MeasureApp(const AppOptions& options, const ServiceAccess& access);

// RunApp measures and prints like RunSpeed; returns the exit code.
int RunApp(const AppOptions& options, const ServiceAccess& access, std::ostream& out,
           std::ostream& err);

}  // namespace signet::bench
