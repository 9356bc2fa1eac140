#include "client/socket_stream.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace signet::client {
namespace {

Error IoError(const char* what, int err) {
  return MakeError(CKR_DEVICE_ERROR, std::string(what) + ": " + std::strerror(err));
}

Error PeerClosed() { return MakeError(CKR_DEVICE_REMOVED, "connection closed by signetd"); }

}  // namespace

SocketStream::SocketStream(int fd, std::chrono::milliseconds timeout)
    : fd_(fd),
      wake_fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
      timeout_ms_(timeout.count() > 0 ? static_cast<int>(timeout.count()) : -1) {
  int flags = fcntl(fd_, F_GETFL, 0);
  fcntl(fd_, F_SETFL, flags | O_NONBLOCK);
}

SocketStream::~SocketStream() {
  close(fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

Status SocketStream::DrainInbound() {
  std::uint8_t buffer[16384];
  base::MutexLock lock(&inbound_mu_);
  std::size_t before = inbound_.size();
  Status status = OkStatus();
  while (!peer_closed_) {
    ssize_t n = recv(fd_, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (n > 0) {
      inbound_.insert(inbound_.end(), buffer, buffer + n);
      continue;
    }
    if (n == 0) {
      peer_closed_ = true;
      break;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) break;
    status = errno == ECONNRESET ? Status(PeerClosed()) : Status(IoError("recv", errno));
    break;
  }
  if (inbound_.size() != before || peer_closed_) {
    // A Read may be blocked in poll for the bytes we just took.
    std::uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof(one));
    wake_pending_ = true;
  }
  return status;
}

Status SocketStream::WaitFor(short events) {
  for (;;) {
    // While waiting to write, also wake for input (unless the peer already
    // closed its side, which would keep POLLIN raised forever). Without a
    // wake-up fd a drain could strand a concurrent Read: skip it then.
    bool drain = (events & POLLOUT) != 0 && !peer_closed_ && wake_fd_ >= 0;
    pollfd pfd{fd_, static_cast<short>(events | (drain ? POLLIN : 0)), 0};
    int n = poll(&pfd, 1, timeout_ms_);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError("poll", errno);
    if (n == 0) return MakeError(CKR_DEVICE_ERROR, "timed out waiting for signetd");
    if (drain && (pfd.revents & POLLIN)) {
      // The daemon is sending replies while we still write requests: keep
      // them, so neither side waits on the other with a full buffer.
      SIGNET_TRY(DrainInbound());
      if (!(pfd.revents & (POLLOUT | POLLERR | POLLHUP))) continue;
    }
    return OkStatus();
  }
}

Status SocketStream::WaitReadable() {
  for (;;) {
    pollfd pfds[2] = {{fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};  // fd -1: ignored
    int n = poll(pfds, 2, timeout_ms_);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError("poll", errno);
    if (n == 0) return MakeError(CKR_DEVICE_ERROR, "timed out waiting for signetd");
    return OkStatus();
  }
}

Status SocketStream::Write(std::span<const std::uint8_t> data) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = send(fd_, data.data() + done, data.size() - done, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      SIGNET_TRY(WaitFor(POLLOUT));
      continue;
    }
    if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) return PeerClosed();
    return IoError("send", n < 0 ? errno : EIO);
  }
  return OkStatus();
}

Result<std::size_t> SocketStream::TakeLocked(std::span<std::uint8_t> out) {
  if (wake_pending_) {
    std::uint64_t count;
    (void)!read(wake_fd_, &count, sizeof(count));  // consumed: we look now
    wake_pending_ = false;
  }
  for (;;) {
    if (!inbound_.empty()) {
      std::size_t n = std::min(out.size(), inbound_.size());
      std::copy_n(inbound_.begin(), n, out.begin());
      inbound_.erase(inbound_.begin(), inbound_.begin() + static_cast<std::ptrdiff_t>(n));
      return n;
    }
    if (peer_closed_) return PeerClosed();
    ssize_t n = recv(fd_, out.data(), out.size(), MSG_DONTWAIT);
    if (n > 0) return static_cast<std::size_t>(n);
    if (n == 0) {
      peer_closed_ = true;
      continue;
    }
    if (errno == EINTR) continue;
    if (errno == ECONNRESET) return PeerClosed();
    if (errno != EAGAIN && errno != EWOULDBLOCK) return IoError("recv", errno);
    return std::size_t{0};
  }
}

Result<std::size_t> SocketStream::Read(std::span<std::uint8_t> out) {
  if (out.empty()) return MakeError(CKR_ARGUMENTS_BAD, "Read into an empty buffer");
  for (;;) {
    {
      base::MutexLock lock(&inbound_mu_);
      SIGNET_ASSIGN_OR_RETURN(std::size_t n, TakeLocked(out));
      if (n > 0) return n;
    }
    SIGNET_TRY(WaitReadable());
  }
}

void SocketStream::ShutdownWrite() { shutdown(fd_, SHUT_WR); }

Result<int> ConnectUnix(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(addr.sun_path)) {
    return MakeError(CKR_ARGUMENTS_BAD, "socket path empty or too long: " + path);
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return IoError("socket", errno);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    int err = errno;
    close(fd);
    return MakeError(CKR_DEVICE_ERROR, "cannot connect to signetd at " + path + ": " +
                                           std::strerror(err));
  }
  return fd;
}

Result<int> ConnectTcp(const std::string& host, const std::string& port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  int gai = getaddrinfo(host.c_str(), port.c_str(), &hints, &found);
  if (gai != 0) {
    return MakeError(CKR_DEVICE_ERROR, "cannot resolve " + host + ": " + gai_strerror(gai));
  }
  int last_errno = ECONNREFUSED;
  int fd = -1;
  for (addrinfo* ai = found; ai != nullptr && fd < 0; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      last_errno = errno;
      continue;
    }
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
      last_errno = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) {
    return MakeError(CKR_DEVICE_ERROR, "cannot connect to signetd at " + host + ":" + port +
                                           ": " + std::strerror(last_errno));
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return fd;
}

}  // namespace signet::client
