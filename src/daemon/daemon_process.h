// DaemonProcess: signetd as a child process, for the programs above the
// daemon that need one (`signet bench` without --socket, the end-to-end
// tests): the one implementation of "start signetd and wait until it is
// ready". Start runs `signetd --data DIR --socket PATH extra...` and returns
// once signetd wrote its ready line on stderr; a thread of its own keeps
// reading that stderr, so signetd never blocks on a full pipe, and keeps it
// for log(). Nothing sleeps to synchronise: readiness is the ready line,
// an exit is end-of-file on the pipe and then waitpid().
// Thread contract: Start, Terminate, Kill, running() and pid() belong to the
// owner's thread; log() may be called from any thread.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "signet/result.hpp"

namespace signet::daemon {

// kReadyLine: how the line starts that signetd writes on stderr once it
// accepts connections ("signetd: ready socket=PATH", docs/PROTOCOL.md).
inline constexpr std::string_view kReadyLine = "signetd: ready";

// ExitStatus: a waitpid() status as a shell reports it: the exit code, or
// 128 + the number of the signal that ended the process (-1 otherwise).
int ExitStatus(int wait_status);

// DaemonStartOptions: how DaemonProcess::Start waits and what it keeps.
struct DaemonStartOptions {
  // bound: how long signetd may take to get ready before Start gives up; a
  // bound on failure, not a delay: a daemon that gets ready sooner returns
  // sooner.
  std::chrono::milliseconds bound = std::chrono::seconds(60);
  // log_limit: the most bytes of signetd's stderr that log() keeps; what
  // comes after is read and dropped.
  std::size_t log_limit = std::numeric_limits<std::size_t>::max();
  // ready_line: what the child writes on stderr once it serves; signetd's
  // by default (StartProgram runs other servers, e.g. `openssl s_server`).
  std::string ready_line{kReadyLine};
};

// StatFields: the fields of a /proc/PID/stat text after the command name
// (which is in parentheses and may hold spaces), so [0] is field 3 (state);
// empty when the text has no ')'.
std::vector<std::string> StatFields(const std::string& stat);

// ProcessCpuSeconds: user + system CPU time of process `pid` from
// /proc/PID/stat, or -1.
double ProcessCpuSeconds(pid_t pid);

class DaemonProcess {
 public:
  DaemonProcess() = default;
  // ~DaemonProcess SIGKILLs a daemon still running (Terminate first to stop
  // it cleanly).
  ~DaemonProcess();
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

  // Start runs `program --data data_dir --socket socket extra...` with this
  // process's environment, stdin and stdout on /dev/null and stderr read
  // into log(), and waits for its ready line. OK once it is ready;
  // otherwise the daemon is killed and the error is CKR_DEVICE_ERROR with
  // why (it exited first, or was not ready within options.bound) followed
  // by its log. May be called again once the previous daemon was stopped
  // (log() then starts empty); CKR_GENERAL_ERROR while one is running.
  Status Start(const std::string& program, const std::string& data_dir, const std::string& socket,
               const std::vector<std::string>& extra = {}, const DaemonStartOptions& options = {});
  // StartProgram is Start for any server: it runs `argv` (argv[0] a path)
  // and waits for options.ready_line on its stderr.
  Status StartProgram(std::vector<std::string> argv, const DaemonStartOptions& options);

  // Terminate sends SIGTERM, reaps the daemon and returns its exit status
  // (128 + signal if a signal ended it; -1 if it was not running).
  int Terminate();
  // Kill sends SIGKILL and reaps the daemon (nothing if it is not running).
  void Kill();

  // running and pid: whether a daemon was started and not yet reaped, and
  // its process id (-1 when none).
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // cpu_seconds: the daemon's user + system CPU time so far (-1 when none
  // runs or /proc cannot tell).
  double cpu_seconds() const { return pid_ > 0 ? ProcessCpuSeconds(pid_) : -1; }
  // log: everything the daemon wrote to stderr so far (up to log_limit).
  std::string log() const EXCLUDES(mu_);

  // WaitForLog waits until `found(log)` is true for the log so far, the
  // daemon has closed its stderr, or `bound` has passed, and returns found's
  // last answer. Each read of the daemon's stderr wakes it: nothing polls.
  // `found` runs with the log locked, so it must not call log().
  bool WaitForLog(const std::function<bool(const std::string& log)>& found,
                  std::chrono::milliseconds bound) const EXCLUDES(mu_);

 private:
  enum class Outcome { kWaiting, kReady, kExited };

  // ReadStderr: the reader thread's body, until end-of-file.
  void ReadStderr(std::size_t log_limit, const std::string& ready_line) EXCLUDES(mu_);
  // Reap waits for the daemon, joins the reader and returns the exit status.
  int Reap();

  pid_t pid_ = -1;
  int stderr_fd_ = -1;  // the pipe's read end; the reader thread reads it
  std::thread reader_;
  mutable base::Mutex mu_;
  mutable base::CondVar changed_;  // signalled on each read and at end-of-file
  std::string log_ GUARDED_BY(mu_);
  Outcome outcome_ GUARDED_BY(mu_) = Outcome::kWaiting;
  bool closed_ GUARDED_BY(mu_) = true;  // the reader saw end-of-file (or none runs)
};

}  // namespace signet::daemon
