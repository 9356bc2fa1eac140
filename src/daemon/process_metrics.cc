#include "daemon/process_metrics.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "daemon/daemon_process.h"

namespace signet::daemon {
namespace {

// BootTimeSeconds: the "btime" line of /proc/stat, or -1.
double BootTimeSeconds() {
  std::ifstream in("/proc/stat");
  std::string key;
  double value = 0;
  while (in >> key) {
    if (key == "btime" && in >> value) return value;
    in.ignore(1 << 16, '\n');
  }
  return -1;
}

// OpenDescriptors: the entries of /proc/self/fd (less the one reading it).
double OpenDescriptors() {
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  double count = 0;
  while (dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] != '.') ++count;
  }
  ::closedir(dir);
  return count - 1;
}

}  // namespace

ProcessMetrics ReadProcessMetrics() {
  ProcessMetrics m;
  m.open_fds = OpenDescriptors();
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    m.max_fds = static_cast<double>(limit.rlim_cur);
  }
  std::ifstream in("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> f = StatFields(stat);  // f[0] is field 3 (state)
  if (f.size() < 22) return m;
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(::sysconf(_SC_PAGESIZE));
  m.cpu_seconds = (std::stod(f[11]) + std::stod(f[12])) / ticks;  // utime, stime
  m.virtual_memory_bytes = std::stod(f[20]);                      // vsize
  m.resident_memory_bytes = std::stod(f[21]) * page;              // rss
  if (double boot = BootTimeSeconds(); boot >= 0) {
    m.start_time_seconds = boot + std::stod(f[19]) / ticks;  // starttime
  }
  return m;
}

}  // namespace signet::daemon
