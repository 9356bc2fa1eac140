// `signet bench keygen`: seed 002's "millisec/new key" table. For each key
// type, generates a stated number of fresh keys one after another and
// reports best / mean / median / worst milliseconds per key. A progress bar
// runs on stderr when it is a terminal. Calling thread only.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "bench/report.h"
#include "signet/result.hpp"

namespace signet::bench {

struct KeygenOptions {
  // algorithms: key types by name (see FindSignAlgorithm); empty = all.
  std::vector<std::string> algorithms;
  // count: keys per type; 0 uses each type's default (10 for RSA up to
  // 2048 bits, 4 for 3072, 2 for 4096, 100 for ECDSA and Ed25519).
  int count = 0;
  bool quick = false;    // shorter cycle-counter calibration only
  bool progress = true;  // draw the progress bar (only on a TTY anyway)
  std::string csv_path;  // as in SpeedOptions
  std::string json_path;
  std::string chart_path;  // also draw the tables' bar charts here (SVG)
};

// MeasureKeygen generates the keys and returns the report: one row per
// type with the number of keys and best/mean/median/worst ms (plus the
// mean in megacycles). CKR_ARGUMENTS_BAD for an unknown name or count < 0.
[[nodiscard]] Result<Report> MeasureKeygen(const KeygenOptions& options);

// RunKeygen measures and prints like RunSpeed; returns the exit code.
int RunKeygen(const KeygenOptions& options, std::ostream& out, std::ostream& err);

}  // namespace signet::bench
