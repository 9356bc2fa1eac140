// The parallel-signatures result line of seeds 000/001 (Cryptech's
// parallel-signatures.py), extended with p50/p99 latency:
//
//   rsa_2048 sigs/sec 10.3966848881 secs/sig 0:00:00.096184 mean 0:00:00.095938
//   (n 1000, c 1 t0 2018-05-14 00:20:49.541663 t1 2018-05-14 00:22:25.726169)
//   p50 0:00:00.095812 p99 0:00:00.099120      (all on one line)
//
// sigs/sec = n / (t1 - t0) is total throughput; secs/sig is its inverse;
// mean is the average single-operation latency. Everything here is a pure
// function of a ParallelRun, so the arithmetic is testable without timing.
// Thread-safe: no shared state.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace signet::bench {

using WallTime = std::chrono::system_clock::time_point;

// ParallelRun: what one (algorithm, clients) load run measured.
struct ParallelRun {
  std::string algo;                 // "rsa_2048"
  std::uint64_t n = 0;              // operations completed
  int clients = 0;                  // c: concurrent clients
  WallTime t0;                      // wall clock when the load started
  WallTime t1;                      // wall clock when the last op finished
  std::vector<double> latencies_s;  // one per op, seconds
};

// ParallelFigures: the derived numbers of a line (all in seconds or 1/s).
struct ParallelFigures {
  double sigs_per_sec = 0;  // n / (t1 - t0); 0 when t1 <= t0
  double secs_per_sig = 0;  // (t1 - t0) / n; 0 when n == 0
  double mean_s = 0;
  double p50_s = 0;
  double p99_s = 0;
};

// ComputeFigures derives the line's numbers from `run`.
ParallelFigures ComputeFigures(const ParallelRun& run);

// FormatDuration prints seconds as Python's str(timedelta) does, but always
// with six fractional digits: H:MM:SS.ffffff, rounded to the microsecond;
// hours grow past 24 rather than printing days. Negative input prints as 0.
std::string FormatDuration(double seconds);

// FormatWallTime prints `t` in UTC as YYYY-MM-DD HH:MM:SS.ffffff (truncated
// to the microsecond, like Python's datetime).
std::string FormatWallTime(WallTime t);

// FormatSigsPerSec prints like Python 2's str(float): 12 significant digits.
std::string FormatSigsPerSec(double value);

// FormatParallelLine renders the seed's line plus " p50 ... p99 ...",
// without a trailing newline.
std::string FormatParallelLine(const ParallelRun& run);

}  // namespace signet::bench
