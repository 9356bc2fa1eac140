#include "cli/http_get.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace signet::cli {
namespace {

constexpr std::size_t kMaxReply = 1 << 20;

// Fd closes a descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Result<HttpUrl> ParseHttpUrl(const std::string& url) {
  constexpr std::string_view kScheme = "http://";
  if (url.rfind("https://", 0) == 0) {
    return MakeError(CKR_ARGUMENTS_BAD,
                     "signet health speaks plain HTTP only; for an endpoint behind "
                     "--metrics-tls use curl --cacert CA https://HOST:PORT/readyz");
  }
  if (url.rfind(kScheme, 0) != 0) {
    return MakeError(CKR_ARGUMENTS_BAD, "--url wants http://HOST:PORT[/PATH], got " + url);
  }
  std::string rest = url.substr(kScheme.size());
  HttpUrl out;
  if (auto slash = rest.find('/'); slash != std::string::npos) {
    out.path = rest.substr(slash);
    rest.resize(slash);
  }
  if (!rest.empty() && rest.front() == '[') {  // [IPv6]:port
    auto close = rest.find(']');
    if (close == std::string::npos) return MakeError(CKR_ARGUMENTS_BAD, "unclosed [ in " + url);
    out.host = rest.substr(1, close - 1);
    rest.erase(0, close + 1);
    if (!rest.empty() && rest.front() == ':') out.port = rest.substr(1);
  } else if (auto colon = rest.rfind(':'); colon != std::string::npos) {
    out.host = rest.substr(0, colon);
    out.port = rest.substr(colon + 1);
  } else {
    out.host = rest;
  }
  if (out.host.empty() || out.port.empty() ||
      out.port.find_first_not_of("0123456789") != std::string::npos) {
    return MakeError(CKR_ARGUMENTS_BAD, "--url wants http://HOST:PORT[/PATH], got " + url);
  }
  return out;
}

Result<HttpReply> HttpGet(const HttpUrl& url, std::chrono::milliseconds timeout) {
  const std::string where = url.host + ":" + url.port;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(url.host.c_str(), url.port.c_str(), &hints, &found); rc != 0) {
    return MakeError(CKR_DEVICE_ERROR, "cannot resolve " + url.host + ": " + ::gai_strerror(rc));
  }
  Fd sock;
  std::string error = "no address";
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    Fd candidate{::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol)};
    if (candidate.fd < 0) continue;
    // Linux bounds connect() by the send timeout too.
    ::setsockopt(candidate.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(candidate.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (::connect(candidate.fd, a->ai_addr, a->ai_addrlen) == 0) {
      std::swap(sock.fd, candidate.fd);
      break;
    }
    error = std::strerror(errno);
  }
  ::freeaddrinfo(found);
  if (sock.fd < 0) return MakeError(CKR_DEVICE_ERROR, "cannot connect to " + where + ": " + error);
  const std::string request = "GET " + url.path + " HTTP/1.1\r\nHost: " + where +
                              "\r\nUser-Agent: signet-health\r\nConnection: close\r\n\r\n";
  for (std::size_t sent = 0; sent < request.size();) {
    ssize_t n = ::send(sock.fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return MakeError(CKR_DEVICE_ERROR, "cannot send to " + where + ": " + std::strerror(errno));
    sent += static_cast<std::size_t>(n);
  }
  std::string reply;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::recv(sock.fd, buffer, sizeof buffer, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return MakeError(CKR_DEVICE_ERROR, "no reply from " + where + ": " + std::strerror(errno));
    }
    if (n == 0) break;
    reply.append(buffer, static_cast<std::size_t>(n));
    if (reply.size() > kMaxReply) break;
  }
  // "HTTP/1.1 200 OK\r\n...\r\n\r\nbody"
  HttpReply out;
  if (reply.rfind("HTTP/1.", 0) != 0 || reply.size() < 12) {
    return MakeError(CKR_DEVICE_ERROR, where + " did not answer HTTP");
  }
  out.status = std::atoi(reply.substr(9, 3).c_str());
  if (auto body = reply.find("\r\n\r\n"); body != std::string::npos)
    out.body = reply.substr(body + 4);
  return out;
}

}  // namespace signet::cli
