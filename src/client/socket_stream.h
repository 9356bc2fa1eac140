// client::SocketStream: a Stream over a connected, non-blocking socket
// (Unix or TCP) without encryption. TlsStream layers TLS on top of one.
// Thread contract: one thread may Write while another Reads (the Client's
// sender and reader); two Writes or two Reads at once are not allowed.
// Every recv runs under inbound_mu_ (never held while blocking in poll),
// so bytes come out in socket order whether Read takes them or a blocked
// Write drains them into inbound_; a drain wakes a Read blocked in poll
// through an eventfd.
#pragma once

#include <atomic>
#include <chrono>
#include <vector>

#include "base/mutex.h"
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
  // WaitReadable polls for input on the socket or a wake-up from a drain.
  Status WaitReadable();
  // DrainInbound appends whatever is readable now to inbound_ and wakes a
  // blocked Read.
  Status DrainInbound() EXCLUDES(inbound_mu_);
  // TakeLocked hands out buffered or readable bytes; 0 when none are there
  // yet. REQUIRES: inbound_mu_ held.
  Result<std::size_t> TakeLocked(std::span<std::uint8_t> out) REQUIRES(inbound_mu_);

  int fd_;
  int wake_fd_;  // eventfd; -1 if it could not be made (then no drain happens)
  int timeout_ms_;
  std::atomic<bool> peer_closed_{false};
  base::Mutex inbound_mu_;
  // Read while writing, not yet returned.
  std::vector<std::uint8_t> inbound_ GUARDED_BY(inbound_mu_);
  bool wake_pending_ GUARDED_BY(inbound_mu_) = false;  // wake_fd_ written, not yet read
};

// ConnectUnix / ConnectTcp return a connected socket fd (blocking connect),
// or CKR_DEVICE_ERROR naming the address and the system error.
Result<int> ConnectUnix(const std::string& path);
Result<int> ConnectTcp(const std::string& host, const std::string& port);

}  // namespace signet::client
