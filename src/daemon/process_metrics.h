// ProcessMetrics: the standard Prometheus process_* values of this process,
// read from /proc when scraped (Linux only, like the daemon).
//
// Thread contract: ReadProcessMetrics may be called from any thread.
#pragma once

#include <cstdint>

namespace signet::daemon {

// ProcessMetrics: a value of -1 means it could not be read.
struct ProcessMetrics {
  double resident_memory_bytes = -1;
  double virtual_memory_bytes = -1;
  double open_fds = -1;
  double max_fds = -1;
  double start_time_seconds = -1;  // since the Unix epoch
  double cpu_seconds = -1;         // user + system
};

// ReadProcessMetrics reads /proc/self/stat, /proc/stat, /proc/self/fd and
// RLIMIT_NOFILE.
ProcessMetrics ReadProcessMetrics();

}  // namespace signet::daemon
