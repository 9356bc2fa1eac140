#include "process.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

extern char** environ;

namespace signet::e2e {
namespace {

// ExecStrings: argv and this process's environment with `env` overriding
// (not duplicating: getenv would read the first copy) same-named entries,
// as the owned strings execve's char* arrays point into.
struct ExecStrings {
  std::vector<std::string> env_strings;
  std::vector<char*> args, envp;
};

void BuildExec(const std::vector<std::string>& argv,
               const std::map<std::string, std::string>& env, ExecStrings& out) {
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    if (env.count(entry.substr(0, entry.find('='))) == 0) out.env_strings.push_back(entry);
  }
  for (const auto& [key, value] : env) out.env_strings.push_back(key + "=" + value);
  for (const std::string& a : argv) out.args.push_back(const_cast<char*>(a.c_str()));
  out.args.push_back(nullptr);
  for (std::string& e : out.env_strings) out.envp.push_back(e.data());
  out.envp.push_back(nullptr);
}

// Spawn forks and execs argv with extra env; the child's stdin/stdout/stderr
// become in_fd/out_fd/err_fd (-1: /dev/null).
pid_t Spawn(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
            int in_fd, int out_fd, int err_fd) {
  ExecStrings exec;
  BuildExec(argv, env, exec);
  std::vector<char*>& args = exec.args;
  std::vector<char*>& envp = exec.envp;

  pid_t pid = fork();
  if (pid != 0) return pid;
  int null_fd = open("/dev/null", O_RDWR);
  dup2(in_fd >= 0 ? in_fd : null_fd, 0);
  dup2(out_fd >= 0 ? out_fd : null_fd, 1);
  dup2(err_fd >= 0 ? err_fd : null_fd, 2);
  setsid();  // no controlling terminal: PIN prompts must not hang a test
  execve(args[0], args.data(), envp.data());
  _exit(127);
}

}  // namespace

std::string BinaryPath(const std::string& name) {
  return std::string(SIGNET_BINARY_DIR) + "/bin/" + name;
}

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/signet-e2e-XXXXXX";
  // Unix socket paths are limited to 108 bytes: keep the directory short.
  if (mkdtemp(pattern.data()) == nullptr) std::abort();
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

ProgramResult RunProgram(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env,
                         const std::string& input) {
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0 ||
      pipe2(err_pipe, O_CLOEXEC) != 0) {
    return {};
  }
  pid_t pid = Spawn(argv, env, in_pipe[0], out_pipe[1], err_pipe[1]);
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  // Small inputs fit the pipe buffer; the tests never pass more than 64 KiB.
  if (!input.empty()) (void)!write(in_pipe[1], input.data(), input.size());
  close(in_pipe[1]);

  ProgramResult result;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[8192];
      ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<std::size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = daemon::ExitStatus(status);
  return result;
}

ProgramResult RunWithTerminal(const std::vector<std::string>& argv,
                              const std::map<std::string, std::string>& env,
                              const std::vector<Exchange>& script) {
  ExecStrings exec;
  BuildExec(argv, env, exec);
  std::vector<char*>& args = exec.args;
  std::vector<char*>& envp = exec.envp;

  int master = -1;
  pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid == 0) {
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  ProgramResult result;
  std::size_t step = 0, searched_from = 0;
  char buffer[4096];
  for (;;) {
    ssize_t n = read(master, buffer, sizeof(buffer));
    if (n <= 0) break;  // EIO once the program closed the terminal
    result.out.append(buffer, static_cast<std::size_t>(n));
    while (step < script.size()) {
      auto at = result.out.find(script[step].prompt, searched_from);
      if (at == std::string::npos) break;
      searched_from = at + script[step].prompt.size();
      std::string line = script[step].answer + "\n";
      (void)!write(master, line.data(), line.size());
      ++step;
    }
  }
  close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = daemon::ExitStatus(status);
  return result;
}

std::string Daemon::Start(const std::string& data_dir, const std::string& socket,
                          const std::vector<std::string>& extra) {
  Status started = DaemonProcess::Start(BinaryPath("signetd"), data_dir, socket, extra);
  return started.ok() ? "" : started.error().message;
}

}  // namespace signet::e2e
