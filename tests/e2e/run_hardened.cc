// run_hardened PROGRAM ARGS...: runs PROGRAM under the restrictions of
// signetd.service that a process can put on itself without systemd, so a
// test can show signetd works under them (tests/e2e/hardened_daemon_test.cc).
// Each unit setting (names are systemd's) and what stands in for it here:
//   NoNewPrivileges=yes              PR_SET_NO_NEW_PRIVS  (check-docs: ok)
//   MemoryDenyWriteExecute=yes       PR_SET_MDWE with     (check-docs: ok)
//                                    PR_MDWE_REFUSE_EXEC_GAIN, the kernel's
//                                    own form of it (no mapping both
//                                    writable and executable, none made
//                                    executable later): stricter than
//                                    systemd 252's seccomp filter
//   RestrictAddressFamilies=AF_UNIX  one seccomp filter   (check-docs: ok)
//   LockPersonality=yes              as systemd installs  (check-docs: ok)
//   SystemCallArchitectures=native   them: socket() of    (check-docs: ok)
//                                    another family fails with EAFNOSUPPORT,
//                                    changing the personality with EPERM, a
//                                    foreign architecture's system call
//                                    kills
// Exit 125 with a message when one cannot be applied (126 when the kernel
// predates PR_SET_MDWE, Linux 6.3), else it becomes PROGRAM.
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>

#ifndef PR_SET_MDWE
#define PR_SET_MDWE 65
#endif
#ifndef PR_MDWE_REFUSE_EXEC_GAIN
#define PR_MDWE_REFUSE_EXEC_GAIN 1UL
#endif

#if defined(__x86_64__)
#define SIGNET_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SIGNET_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "run_hardened: add this architecture's AUDIT_ARCH_"
#endif

namespace {

int Fail(const char* what) {
  std::fprintf(stderr, "run_hardened: %s: %s\n", what, std::strerror(errno));
  return 125;
}

// kPersonalityQuery and kPerLinux: the personality() arguments systemd's
// locked personality lets through (read the current one; the default).
constexpr unsigned kPersonalityQuery = 0xffffffffU;
constexpr unsigned kPerLinux = 0;

int InstallFilter() {
  constexpr unsigned kErrnoAf = SECCOMP_RET_ERRNO | (EAFNOSUPPORT & SECCOMP_RET_DATA);
  constexpr unsigned kErrnoPerm = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SIGNET_AUDIT_ARCH, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 5, 0),
      BPF_STMT(BPF_RET | BPF_K, kErrnoAf),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_personality, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kPersonalityQuery, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kPerLinux, 1, 2),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, kErrnoPerm),
  };
  sock_fprog program{static_cast<unsigned short>(sizeof(filter) / sizeof(filter[0])), filter};
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) != 0) {
    return Fail("seccomp filter");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: run_hardened PROGRAM ARGS...\n");
    return 2;
  }
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return Fail("PR_SET_NO_NEW_PRIVS");
  if (::prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0) {
    Fail("PR_SET_MDWE (MDWE needs Linux 6.3)");
    return 126;
  }
  if (int failed = InstallFilter(); failed != 0) return failed;
  ::execv(argv[1], argv + 1);
  return Fail(argv[1]);
}
