// LocalDaemon: a throw-away signetd for `bench parallel`, `bench profile`
// and `bench app` when no --socket is given. It creates a temporary data directory with one
// token (cheap PIN KDF: the token holds only benchmark keys), optionally
// with its Cryptech listener on that token (docs/CRYPTECH.md), starts the
// signetd found next to the running program (/proc/self/exe) and waits for
// its ready line (daemon/daemon_process.h), and on destruction stops it with
// SIGTERM and removes the directory. With SIGNET_SHARED_MEMORY=no in the
// environment it runs `signetd --no-shared-memory` (every client on the
// socket alone: the A/B of docs/PERFORMANCE.md).
// Thread contract: one owner thread; socket()/pin() may be read from any
// thread once Start returned.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "daemon/daemon_process.h"
#include "signet/result.hpp"

namespace signet::bench {

// LocalDaemonOptions: what the throw-away signetd serves besides its own
// socket.
struct LocalDaemonOptions {
  bool cryptech_listener = false;  // --cryptech-socket DIR/cryptech.sock
};

class LocalDaemon {
 public:
  // Start creates the token and launches signetd (`signetd_path` empty:
  // the signetd beside /proc/self/exe), appending `extra_args` to its
  // command line (e.g. {"--pool", "rsa:2048=32"}). CKR_DEVICE_ERROR with
  // signetd's log when it exits or is not ready within 60 s;
  // CKR_FUNCTION_FAILED when the token cannot be created.
  [[nodiscard]] static Result<std::unique_ptr<LocalDaemon>> Start(
      std::string signetd_path = "", std::vector<std::string> extra_args = {},
      const LocalDaemonOptions& options = {});

  // ~LocalDaemon sends SIGTERM, reaps signetd and removes the directory.
  ~LocalDaemon();
  LocalDaemon(const LocalDaemon&) = delete;
  LocalDaemon& operator=(const LocalDaemon&) = delete;

  const std::string& socket() const { return socket_; }
  const std::string& pin() const { return pin_; }
  // cpu_seconds: signetd's user + system CPU time so far (-1: unknown).
  double cpu_seconds() const { return signetd_.cpu_seconds(); }
  const std::string& token_label() const { return label_; }
  // cryptech_socket: the Cryptech listener's socket; empty without one.
  const std::string& cryptech_socket() const { return cryptech_socket_; }

 private:
  LocalDaemon() = default;

  std::string dir_;
  std::string socket_;
  std::string cryptech_socket_;
  std::string pin_;
  std::string label_ = "bench";
  daemon::DaemonProcess signetd_;
};

// SiblingProgram returns the path of `name` in the directory of the running
// executable (/proc/self/exe), e.g. build/bin/signetd next to build/bin/signet.
std::string SiblingProgram(const std::string& name);

}  // namespace signet::bench
