// client::Stream: the byte stream under a client connection to signetd, over
// a Unix domain socket or TCP with TLS 1.3.
//
// Sockets are non-blocking underneath and every wait goes through poll(), so
// a Write that cannot proceed keeps reading whatever the daemon sends into an
// inbound buffer. That is what lets a caller pipeline thousands of requests
// without deadlocking against a daemon that is itself blocked writing replies.
// No call raises SIGPIPE (MSG_NOSIGNAL; TLS runs over memory BIOs).
//
// Thread contract: one thread may Write while another thread Reads (the
// Client's sender and its reader); no two Writes and no two Reads at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "signet/result.hpp"

namespace signet::client {

// Endpoint: where the daemon listens, parsed from an address string.
struct Endpoint {
  enum class Kind { kUnix, kTcp };
  Kind kind = Kind::kUnix;
  std::string path;  // kUnix
  std::string host;  // kTcp (no brackets for IPv6)
  std::string port;  // kTcp
};

// ParseEndpoint reads "tcp://host:port", "tcp://[v6addr]:port", "unix:PATH"
// or a plain filesystem path (a Unix socket). CKR_ARGUMENTS_BAD otherwise.
Result<Endpoint> ParseEndpoint(const std::string& address);

// TlsSettings: files for a TCP connection. An empty ca_file means the system
// trust store; cert_file/key_file give a client certificate when the daemon
// asks for one. server_name (default: the endpoint's host) is checked
// against the daemon's certificate and sent as SNI.
struct TlsSettings {
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  std::string server_name;
};

class Stream {
 public:
  virtual ~Stream() = default;

  // Write sends every byte of `data`, blocking as needed; while the socket
  // is full it keeps draining inbound bytes so Read returns them later.
  // CKR_DEVICE_REMOVED when the daemon closed the connection,
  // CKR_DEVICE_ERROR on other I/O failures or timeout.
  [[nodiscard]] virtual Status Write(std::span<const std::uint8_t> data) = 0;

  // Read blocks until at least one byte is available and returns how many
  // were copied into `out` (never 0). CKR_DEVICE_REMOVED at end of stream.
  [[nodiscard]] virtual Result<std::size_t> Read(std::span<std::uint8_t> out) = 0;

  // ShutdownWrite half-closes the connection (the daemon sees EOF).
  virtual void ShutdownWrite() = 0;
};

// ConnectStream opens a stream to `endpoint`: Unix sockets in the clear, TCP
// always with TLS 1.3. `timeout` bounds each blocking wait (zero: no bound).
Result<std::unique_ptr<Stream>> ConnectStream(const Endpoint& endpoint, const TlsSettings& tls,
                                              std::chrono::milliseconds timeout);

}  // namespace signet::client
