// The daemon's Unix socket file: one daemon per socket path. Whoever holds
// the lock file next to the socket (SOCKET.lock, flock(2), released by the
// kernel when the holder exits, even on SIGKILL) owns the path: a second
// daemon on the same path is refused and leaves the first's socket alone;
// a socket file left by a daemon that crashed is replaced; and at exit the
// daemon removes the socket it created, which nobody can have replaced while
// it held the lock (docs/SECURITY.md "One daemon per keystore").
//
// Thread contract: SocketPathClaim is used from one thread (the event
// loop's, at start and at shutdown).
#pragma once

#include <filesystem>
#include <memory>

#include "signet/result.hpp"

namespace signet::daemon {

class SocketPathClaim {
 public:
  SocketPathClaim(std::filesystem::path socket, int lock_fd)
      : socket_(std::move(socket)), lock_fd_(lock_fd) {}
  ~SocketPathClaim();  // releases the lock; the socket file stays
  SocketPathClaim(const SocketPathClaim&) = delete;
  SocketPathClaim& operator=(const SocketPathClaim&) = delete;

  // RemoveSocket removes the socket file (errors ignored: the daemon stops).
  void RemoveSocket();

 private:
  std::filesystem::path socket_;
  int lock_fd_;
};

// ClaimSocketPath takes the path's lock and leaves the path free for
// bind(2): nothing there, or a stale socket, which it removes.
// CKR_FUNCTION_FAILED when another daemon holds the path, or when the path
// is something other than a socket.
Result<std::unique_ptr<SocketPathClaim>> ClaimSocketPath(const std::filesystem::path& socket);

}  // namespace signet::daemon
