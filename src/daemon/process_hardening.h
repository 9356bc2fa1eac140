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

namespace signet::daemon {

Status HardenProcess();

// BindSymbolsAtStart makes the dynamic linker resolve every symbol of the
// program and of every library at start (and at each later dlopen), not at
// each function's first call: it re-executes the program (/proc/self/exe,
// same argv, same pid) with LD_BIND_NOW=1 unless that is set already. Lazy
// binding runs _dl_runtime_resolve_xsavec on the first call of each
// function, which saves every vector register on the calling thread's stack
// and leaves that image there; right after a memcpy of a request those
// registers hold its bytes, so an imported key stayed readable in signetd's
// memory (issue 10). Call it first thing in main, before anything secret
// exists. Returns only when nothing was to be done (OK) or the exec failed
// (CKR_GENERAL_ERROR naming it; the caller logs it and goes on with lazy
// binding). Not thread-safe: call it while the process has one thread.
Status BindSymbolsAtStart(char** argv);

}  // namespace signet::daemon
