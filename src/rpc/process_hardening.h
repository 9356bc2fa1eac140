// HardenProcess: what signetd does to its own process before it unwraps a
// key, so unwrapped keys in its memory do not leak through the process:
//   - PR_SET_DUMPABLE 0: no core dump, and no ptrace attach or
//     /proc/PID/mem read by other processes of the same user (as ssh-agent
//     does for its keys);
//   - RLIMIT_CORE 0: no core file even if something makes it dumpable again.
// Returns CKR_GENERAL_ERROR naming the call that failed (signetd logs it
// and goes on: neither failure exposes a key by itself).
#pragma once

#include "signet/result.hpp"

namespace signet::rpc {

Status HardenProcess();

}  // namespace signet::rpc
