#include "daemon/process_hardening.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace signet::daemon {

Status HardenProcess() {
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
    return MakeError(CKR_GENERAL_ERROR,
                     std::string("prctl(PR_SET_DUMPABLE): ") + std::strerror(errno));
  }
  const rlimit no_core{0, 0};
  if (::setrlimit(RLIMIT_CORE, &no_core) != 0) {
    return MakeError(CKR_GENERAL_ERROR,
                     std::string("setrlimit(RLIMIT_CORE): ") + std::strerror(errno));
  }
  return OkStatus();
}

Status BindSymbolsAtStart(char** argv) {
  const char* bind_now = std::getenv("LD_BIND_NOW");
  if (bind_now != nullptr && *bind_now != '\0') return OkStatus();
  if (::setenv("LD_BIND_NOW", "1", 1) != 0) {
    return MakeError(CKR_GENERAL_ERROR,
                     std::string("setenv(LD_BIND_NOW): ") + std::strerror(errno));
  }
  ::execv("/proc/self/exe", argv);
  const int exec_errno = errno;
  ::unsetenv("LD_BIND_NOW");
  return MakeError(CKR_GENERAL_ERROR,
                   std::string("execv(/proc/self/exe): ") + std::strerror(exec_errno));
}

}  // namespace signet::daemon
