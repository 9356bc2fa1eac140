// Child processes for the end-to-end tests: run a program to completion
// capturing its output, or keep signetd running in the background.
//
// Tests find the programs through SIGNET_BINARY_DIR "/bin". Nothing here
// sleeps to synchronise: readiness is the daemon's ready line and
// completion is waitpid(). Each object belongs to one test thread.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "daemon/daemon_process.h"

namespace signet::e2e {

// BinaryPath: SIGNET_BINARY_DIR/bin/<name>.
std::string BinaryPath(const std::string& name);

// TempDir: a fresh directory from mkdtemp, removed with its contents by the
// destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// ProgramResult: how a program ended and what it printed. exit_code is the
// exit status, or 128 + signal number when killed by a signal.
struct ProgramResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// RunProgram runs argv[0] (a path) with `argv`, extra environment variables
// `env` (added to the test's own), and `input` on stdin; waits for it.
ProgramResult RunProgram(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env = {},
                         const std::string& input = "");

// Exchange: wait for `prompt` on the terminal, then type `answer` + Enter.
struct Exchange {
  std::string prompt;
  std::string answer;
};

// RunWithTerminal runs the program with a pseudo-terminal as its controlling
// terminal and stdin/stdout/stderr, plays `script` (each answer only after
// its prompt appeared, so nothing races the program's echo settings) and
// returns everything the terminal showed in `out`.
ProgramResult RunWithTerminal(const std::vector<std::string>& argv,
                              const std::map<std::string, std::string>& env,
                              const std::vector<Exchange>& script);

// Daemon: a signetd child from SIGNET_BINARY_DIR/bin (daemon/daemon_process.h:
// Start returns once it printed its ready line, a background thread keeps
// reading its stderr for log(), and the destructor SIGKILLs a daemon still
// running). Only Start differs, to read as the tests use it.
class Daemon : public daemon::DaemonProcess {
 public:
  // Start runs `signetd --data DIR --socket SOCKET extra...`. Returns an
  // empty string on success, otherwise what went wrong (with its log).
  std::string Start(const std::string& data_dir, const std::string& socket,
                    const std::vector<std::string>& extra = {});
};

}  // namespace signet::e2e
