#include "daemon/socket_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace signet::daemon {

SocketPathClaim::~SocketPathClaim() { ::close(lock_fd_); }

void SocketPathClaim::RemoveSocket() { ::unlink(socket_.c_str()); }

Result<std::unique_ptr<SocketPathClaim>> ClaimSocketPath(const std::filesystem::path& socket) {
  const std::string lock_path = socket.string() + ".lock";
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    return MakeError(CKR_FUNCTION_FAILED, "cannot open " + lock_path + ": " + std::strerror(errno));
  }
  auto claim = std::make_unique<SocketPathClaim>(socket, fd);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    return MakeError(
        CKR_FUNCTION_FAILED,
        socket.string() + " is in use by another running daemon (" + lock_path + " is locked)");
  }
  struct stat st {};
  if (::lstat(socket.c_str(), &st) != 0) {
    if (errno == ENOENT) return claim;
    return MakeError(CKR_FUNCTION_FAILED,
                     "cannot inspect " + socket.string() + ": " + std::strerror(errno));
  }
  if (!S_ISSOCK(st.st_mode)) {
    return MakeError(CKR_FUNCTION_FAILED,
                     socket.string() + " exists and is not a socket; refusing to replace it");
  }
  // Its daemon is gone (it would hold the lock): a stale socket.
  if (::unlink(socket.c_str()) != 0 && errno != ENOENT) {
    return MakeError(CKR_FUNCTION_FAILED, "cannot remove the stale socket " + socket.string() +
                                              ": " + std::strerror(errno));
  }
  return claim;
}

}  // namespace signet::daemon
