// ProgressBar: a one-line terminal progress bar for long benchmark runs,
// redrawn in place with '\r'. It draws only when its stream is a terminal
// (ForStderr checks isatty), so logs and pipes stay clean. Thread contract:
// one thread calls Update/Finish (the load generator's coordinating thread).
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace signet::bench {

class ProgressBar {
 public:
  // ProgressBar draws to `out` when it is non-null; nullptr makes a silent
  // bar. `total` is the number of steps (0 is treated as 1).
  ProgressBar(std::string label, std::uint64_t total, std::ostream* out);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // ForStderr returns a bar drawing to std::cerr only if stderr is a TTY.
  static ProgressBar ForStderr(std::string label, std::uint64_t total);

  // Update records `done` steps; redraws at most ten times per second (and
  // always when done reaches total).
  void Update(std::uint64_t done);

  // Finish erases the bar so the next output starts on a clean line.
  // Idempotent; the destructor calls it.
  void Finish();

  // Render returns the bar's text for `done` steps (no '\r'); pure.
  static std::string Render(const std::string& label, std::uint64_t done, std::uint64_t total,
                            int width);

 private:
  std::string label_;
  std::uint64_t total_;
  std::ostream* out_;
  std::chrono::steady_clock::time_point last_draw_{};
  bool drawn_ = false;
};

}  // namespace signet::bench
