#include "daemon/daemon_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <iterator>
#include <sstream>

namespace signet::daemon {

int ExitStatus(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return -1;
}

DaemonProcess::~DaemonProcess() {
  Kill();
  if (reader_.joinable()) reader_.join();
}

Status DaemonProcess::Start(const std::string& program, const std::string& data_dir,
                            const std::string& socket, const std::vector<std::string>& extra,
                            const DaemonStartOptions& options) {
  std::vector<std::string> argv = {program, "--data", data_dir, "--socket", socket};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return StartProgram(std::move(argv), options);
}

Status DaemonProcess::StartProgram(std::vector<std::string> argv,
                                   const DaemonStartOptions& options) {
  if (running()) return MakeError(CKR_GENERAL_ERROR, argv[0] + " is already running");
  if (reader_.joinable()) reader_.join();
  // Everything the child needs is built before fork: it only calls
  // async-signal-safe functions.
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) return MakeError(CKR_DEVICE_ERROR, "pipe failed");
  {
    base::MutexLock lock(&mu_);
    log_.clear();
    outcome_ = Outcome::kWaiting;
    closed_ = false;
  }
  pid_ = fork();
  if (pid_ == 0) {
    int null_fd = open("/dev/null", O_RDWR);
    dup2(null_fd, 0);
    dup2(null_fd, 1);
    dup2(err_pipe[1], 2);
    execv(args[0], args.data());
    _exit(127);
  }
  close(err_pipe[1]);
  if (pid_ < 0) {
    pid_ = -1;
    close(err_pipe[0]);
    base::MutexLock lock(&mu_);
    closed_ = true;
    return MakeError(CKR_DEVICE_ERROR, "fork failed");
  }
  stderr_fd_ = err_pipe[0];
  reader_ = std::thread(
      [this, limit = options.log_limit, ready = options.ready_line] { ReadStderr(limit, ready); });

  base::MutexLock lock(&mu_);
  const auto deadline = std::chrono::steady_clock::now() + options.bound;
  while (outcome_ == Outcome::kWaiting && changed_.WaitUntil(&mu_, deadline)) {
  }
  const Outcome outcome = outcome_;
  lock.Unlock();
  if (outcome == Outcome::kReady) return OkStatus();
  Kill();
  std::string why =
      argv[0] + " " +
      (outcome == Outcome::kExited ? "exited before it was ready" : "was not ready in time");
  return MakeError(CKR_DEVICE_ERROR, why + "; its log:\n" + log());
}

void DaemonProcess::ReadStderr(std::size_t log_limit, const std::string& ready_line) {
  char buffer[4096];
  ssize_t n;
  while ((n = read(stderr_fd_, buffer, sizeof(buffer))) > 0) {
    base::MutexLock lock(&mu_);
    const std::size_t room = log_limit - std::min(log_limit, log_.size());
    log_.append(buffer, std::min(room, static_cast<std::size_t>(n)));
    if (outcome_ == Outcome::kWaiting && log_.find(ready_line) != std::string::npos) {
      outcome_ = Outcome::kReady;
    }
    changed_.SignalAll();
  }
  base::MutexLock lock(&mu_);
  if (outcome_ == Outcome::kWaiting) outcome_ = Outcome::kExited;
  closed_ = true;
  changed_.SignalAll();
}

int DaemonProcess::Reap() {
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (reader_.joinable()) reader_.join();
  if (stderr_fd_ >= 0) close(stderr_fd_);
  stderr_fd_ = -1;
  return ExitStatus(status);
}

int DaemonProcess::Terminate() {
  if (!running()) return -1;
  kill(pid_, SIGTERM);
  return Reap();
}

void DaemonProcess::Kill() {
  if (!running()) return;
  kill(pid_, SIGKILL);
  Reap();
}

std::string DaemonProcess::log() const {
  base::MutexLock lock(&mu_);
  return log_;
}

bool DaemonProcess::WaitForLog(const std::function<bool(const std::string& log)>& found,
                               std::chrono::milliseconds bound) const {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  base::MutexLock lock(&mu_);
  while (!found(log_)) {
    if (closed_ || !changed_.WaitUntil(&mu_, deadline)) return found(log_);
  }
  return true;
}

std::vector<std::string> StatFields(const std::string& stat) {
  std::vector<std::string> fields;
  auto close = stat.rfind(')');
  if (close == std::string::npos) return fields;
  std::istringstream in(stat.substr(close + 1));
  for (std::string field; in >> field;) fields.push_back(field);
  return fields;
}

double ProcessCpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> f = StatFields(stat);
  if (f.size() < 13) return -1;
  return (std::stod(f[11]) + std::stod(f[12])) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

}  // namespace signet::daemon
