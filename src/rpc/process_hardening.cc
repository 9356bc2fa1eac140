#include "rpc/process_hardening.h"

#include <sys/prctl.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace signet::rpc {

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

}  // namespace signet::rpc
