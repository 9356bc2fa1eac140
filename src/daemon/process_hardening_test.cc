// HardenProcess runs in a forked child (it changes the whole process), which
// reports through its exit code what the kernel says afterwards.
#include "daemon/process_hardening.h"

#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace signet::daemon {
namespace {

// ExitCodeOf runs `body` in a child and returns its exit code.
template <typename Body>
int ExitCodeOf(Body body) {
  pid_t pid = fork();
  if (pid == 0) _exit(body());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

TEST(ProcessHardening, LeavesTheProcessNotDumpableWithoutCoreFiles) {
  ASSERT_EQ(prctl(PR_GET_DUMPABLE), 1);  // so the child's 0 is HardenProcess's doing
  int code = ExitCodeOf([] {
    if (!HardenProcess().ok()) return 1;
    if (prctl(PR_GET_DUMPABLE) != 0) return 2;
    rlimit core{};
    if (getrlimit(RLIMIT_CORE, &core) != 0 || core.rlim_cur != 0 || core.rlim_max != 0) return 3;
    return 0;
  });
  EXPECT_EQ(code, 0) << "1: HardenProcess failed, 2: still dumpable, 3: core limit not 0";
}

}  // namespace
}  // namespace signet::daemon
