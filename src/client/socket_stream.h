// client::SocketStream: a Stream over a connected, non-blocking socket
// (Unix or TCP) without encryption. TlsStream layers TLS on top of one.
// Thread contract: one thread at a time.
#pragma once

#include <chrono>
#include <vector>

#include "client/stream.h"

namespace signet::client {

class SocketStream : public Stream {
 public:
  // SocketStream takes ownership of `fd` (closed on destruction) and makes it
  // non-blocking. `timeout` bounds each wait; zero means wait forever.
  SocketStream(int fd, std::chrono::milliseconds timeout);
  ~SocketStream() override;
  SocketStream(const SocketStream&) = delete;
  SocketStream& operator=(const SocketStream&) = delete;

  Status Write(std::span<const std::uint8_t> data) override;
  Result<std::size_t> Read(std::span<std::uint8_t> out) override;
  void ShutdownWrite() override;

 private:
  // WaitFor polls for `events` (POLLIN/POLLOUT); while waiting to write it
  // also drains readable bytes into inbound_ so the peer never stalls on us.
  Status WaitFor(short events);
  // DrainInbound appends whatever is readable now to inbound_.
  Status DrainInbound();

  int fd_;
  int timeout_ms_;
  bool peer_closed_ = false;
  std::vector<std::uint8_t> inbound_;  // read while writing, not yet returned
};

// ConnectUnix / ConnectTcp return a connected socket fd (blocking connect),
// or CKR_DEVICE_ERROR naming the address and the system error.
Result<int> ConnectUnix(const std::string& path);
Result<int> ConnectTcp(const std::string& host, const std::string& port);

}  // namespace signet::client
