#include "daemon/log.h"

#include <unistd.h>

#include <string>

namespace signet::daemon {

void Log(std::string_view line) {
  std::string out = "signetd: ";
  out.append(line);
  out.push_back('\n');
  // One write(2): atomic for lines under PIPE_BUF on pipes, and never
  // interleaved within a line by stdio buffering.
  ssize_t ignored = ::write(STDERR_FILENO, out.data(), out.size());
  (void)ignored;
}

}  // namespace signet::daemon
