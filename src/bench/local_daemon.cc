#include "bench/local_daemon.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <vector>

#include "base/hex.h"
#include "crypto/symmetric.h"
#include "keystore/data_dir.h"

namespace signet::bench {
namespace {

constexpr std::string_view kReadyLine = "signetd: ready";
constexpr auto kStartBound = std::chrono::seconds(60);

// RandomPin: 16 hex characters from the DRBG; the PINs guard only keys made
// for this run, but there is no reason to make them guessable.
Result<std::string> RandomPin() {
  Bytes raw(8);
  SIGNET_TRY(crypto::FillRandom(raw));
  return ToHex(raw);
}

ByteView View(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

}  // namespace

std::string SiblingProgram(const std::string& name) {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return name;
  return (self.parent_path() / name).string();
}

Result<std::unique_ptr<LocalDaemon>> LocalDaemon::Start(std::string signetd_path,
                                                        std::vector<std::string> extra_args) {
  std::unique_ptr<LocalDaemon> d(new LocalDaemon());
  std::string tmpl = (std::filesystem::temp_directory_path() / "signet-bench-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) return MakeError(CKR_DEVICE_ERROR, "mkdtemp failed");
  d->dir_ = tmpl;
  d->socket_ = d->dir_ + "/signetd.sock";
  SIGNET_ASSIGN_OR_RETURN(d->pin_, RandomPin());
  SIGNET_ASSIGN_OR_RETURN(std::string so_pin, RandomPin());
  keystore::TokenOptions options;
  options.kdf.n = 1024;  // a benchmark token: PIN stretching is not what we measure
  auto token =
      keystore::CreateInDirectory(d->dir_, d->label_, View(so_pin), View(d->pin_), options);
  if (!token.ok()) {
    return MakeError(CKR_FUNCTION_FAILED,
                     "cannot create the benchmark token: " + token.error().message);
  }
  token->reset();  // the daemon opens it; close our handle first
  if (signetd_path.empty()) signetd_path = SiblingProgram("signetd");
  SIGNET_TRY(d->Launch(signetd_path, extra_args));
  return d;
}

Status LocalDaemon::Launch(const std::string& signetd_path,
                           const std::vector<std::string>& extra_args) {
  std::vector<std::string> argv = {signetd_path, "--data", dir_, "--socket", socket_};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) return MakeError(CKR_DEVICE_ERROR, "pipe failed");
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
    close(err_pipe[0]);
    return MakeError(CKR_DEVICE_ERROR, "fork failed");
  }
  stderr_fd_ = err_pipe[0];
  // Shared with the reader thread, which may outlive a timed-out wait.
  struct Start {
    base::CondVar changed;
    int outcome = 0;  // under mu_: 0 wait 1 ok 2 eof
  };
  auto state = std::make_shared<Start>();
  reader_ = std::thread([this, state] {
    char buffer[4096];
    ssize_t n;
    while ((n = read(stderr_fd_, buffer, sizeof(buffer))) > 0) {
      base::MutexLock lock(&mu_);
      if (log_.size() < (1u << 20)) log_.append(buffer, static_cast<std::size_t>(n));
      if (state->outcome == 0 && log_.find(kReadyLine) != std::string::npos) {
        state->outcome = 1;
        state->changed.SignalAll();
      }
    }
    base::MutexLock lock(&mu_);
    if (state->outcome == 0) state->outcome = 2;
    state->changed.SignalAll();
  });
  base::MutexLock lock(&mu_);
  const auto deadline = std::chrono::steady_clock::now() + kStartBound;
  while (state->outcome == 0 && state->changed.WaitUntil(&mu_, deadline)) {
  }
  const bool done = state->outcome != 0;
  if (done && state->outcome == 1) return OkStatus();
  return MakeError(CKR_DEVICE_ERROR,
                   std::string(done ? "signetd (" + signetd_path + ") exited before it was ready"
                                    : "signetd not ready in time") +
                       "; its log:\n" + log_);
}

LocalDaemon::~LocalDaemon() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  if (reader_.joinable()) reader_.join();
  if (stderr_fd_ >= 0) close(stderr_fd_);
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

}  // namespace signet::bench
