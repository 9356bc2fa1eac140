// Server: the daemon's network front end. It accepts connections on a Unix
// domain socket (mode 0600, or 0660 with --allow-group; the peer's
// credentials decide who is served: the daemon's uid, root, the allowed
// group) and optionally on TCP with TLS 1.3 (client certificates from the
// client CA required, unless explicitly --insecure-no-client-auth), caps
// connections in total and per peer, times out idle connections and slow
// handshakes, cuts each byte stream into frames, verifies every payload, and hands each
// request to the Scheduler. On a Unix socket the worker writes its framed
// reply itself when the socket is idle; otherwise the reply goes back to the
// connection's event loop to be written. Replies carry the request id and
// may leave out of order (pipelining).
//
// Thread contract: Start, Shutdown and every socket operation run on the
// one thread that runs the io_context (the event loop). It runs crypto only
// for a signature known to be short while every worker is idle
// (Connection::HandleFrame), and disk I/O only if such a signature's key has
// left the key cache meanwhile (once: that signature is slow, so the next
// goes to a worker). Workers build replies and hand them to
// Connection::Reply.
#pragma once

#include <openssl/x509.h>
#include <sys/types.h>

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/hsm.h"
#include "core/request_metrics.h"
#include "core/scheduler.h"
#include "daemon/dispatch.h"
#include "daemon/socket_file.h"
#include "proto/framing.h"

namespace asio::ssl {
class context;
}

namespace signet::daemon {

// ServerOptions: where the daemon listens, who may connect, and every limit
// of the front end, each with its default (signetd has one flag per field).
struct ServerOptions {
  std::filesystem::path socket_path;  // empty: no Unix socket
  // The Cryptech listener (docs/CRYPTECH.md): its socket (empty: none) and
  // the slot of the token behind it. Same peer rule and limits as above.
  std::filesystem::path cryptech_socket_path;
  CK_SLOT_ID cryptech_slot = 0;
  std::string listen;                 // "HOST:PORT"; empty: no TCP
  std::string tls_cert;
  std::string tls_key;
  std::string tls_client_ca;  // set: client certificates required
  // Without a client CA, TCP is refused unless this is set (anyone who can
  // reach the port could use the HSM).
  bool insecure_no_client_auth = false;
  // A TLS client presenting this certificate (same SHA-256 fingerprint) is
  // an administrator (core::ClientState::admin).
  std::string admin_cert;
  // Besides the daemon's own uid and root, Unix peers with this group (as
  // primary or supplementary group) may connect; the socket is then 0660
  // with this group instead of 0600.
  std::optional<gid_t> allow_group;
  // Refuse AttachRing: Unix clients then use the socket for every request.
  bool no_shared_memory = false;
  std::size_t max_frame_size = proto::kDefaultMaxFrameSize;
  // A connection stops taking requests while the replies waiting to be
  // written plus the bound of every reply still being computed reach this
  // (a client that does not read its replies cannot grow memory).
  std::size_t max_pending_write_bytes = 8u << 20;
  // Requests of one connection being computed or queued at once.
  std::size_t max_in_flight = 256;
  // Open connections in total and per peer (uid on the Unix socket, IP
  // address over TCP); lowered at Start to fit RLIMIT_NOFILE - fd_reserve.
  std::size_t max_connections = 1024;
  std::size_t max_connections_per_peer = 256;
  // Descriptors kept free for token files, logs and the daemon itself.
  std::size_t fd_reserve = 64;
  // A connection with no request for this long, nothing in flight and no
  // open session is closed (0: never).
  std::chrono::milliseconds idle_timeout{300'000};
  // A TCP connection must finish its TLS handshake within this (0: no limit).
  std::chrono::milliseconds handshake_timeout{10'000};
  // After EMFILE/ENFILE the acceptor waits this long before accepting again.
  std::chrono::milliseconds accept_backoff{100};
  // Shutdown waits at most this long for in-flight requests and their
  // replies, then closes what is left.
  std::chrono::milliseconds drain_timeout{30'000};
  // Repeated events (refusals, accept failures) are logged once per interval.
  std::chrono::milliseconds log_interval{10'000};
  // The chained audit log (not owned; outlives the Server); nullptr: audit
  // lines go to stderr (ServerView::audit_log).
  AuditLog* audit_log = nullptr;
};

// PeerInfo: who is on the other end of a connection.
struct PeerInfo {
  std::string description;  // for logs: "unix(pid=.. uid=.. gid=..)", "tcp(addr:port)"
  std::string identity;     // per-peer limits and throttles: "uid:N", "ip:ADDR"
  bool admin = false;       // the daemon's uid or root (Unix); TLS: decided after the handshake
};

// TransportCounters: the connections of one transport (Unix socket or TLS):
// open now and accepted since start. Written on the event loop, read by the
// metrics endpoint's thread.
struct TransportCounters {
  std::atomic<std::uint64_t> open{0};
  std::atomic<std::uint64_t> accepted{0};
};

// LogLimiter: logs an event at most once per interval, with how many were
// left out since. Event-loop only.
class LogLimiter {
 public:
  void Log(std::chrono::milliseconds interval, const std::string& line);

 private:
  std::chrono::steady_clock::time_point last_{};
  bool logged_ = false;
  std::size_t suppressed_ = 0;
};

class ConnectionBase;

class Server {
 public:
  Server(asio::io_context& io, core::Hsm& hsm, core::Scheduler& scheduler, ServerOptions options);
  ~Server();

  // Start binds and listens. CKR_DEVICE_ERROR (with the reason) when a
  // socket cannot be bound or the TLS files cannot be loaded.
  Status Start();

  // Shutdown stops accepting and reading, lets queued and running requests
  // finish, flushes their replies, closes every connection, then calls
  // `done` on the event loop. Blocks nothing: the waiting happens on a
  // helper thread.
  void Shutdown(std::function<void()> done);

  // tcp_port: the bound TCP port (useful with port 0), or 0.
  unsigned short tcp_port() const;

  // drain_timed_out: Shutdown gave up waiting for in-flight requests; work
  // may still run on the workers (the caller should exit without joining).
  bool drain_timed_out() const { return drain_timed_out_; }

  // max_connections: the connection cap in force (after Start: lowered to
  // fit RLIMIT_NOFILE).
  std::size_t max_connections() const { return max_connections_; }

  // unix_connections / tls_connections: connections per transport.
  const TransportCounters& unix_connections() const { return unix_connections_; }
  const TransportCounters& tls_connections() const { return tls_connections_; }
  // ring_requests / ring_connections: the shared-memory rings' traffic
  // (requests taken) and how many connections have one now.
  std::uint64_t ring_requests() const { return ring_requests_.load(std::memory_order_relaxed); }
  std::size_t ring_connections() const { return ring_connections_.load(std::memory_order_relaxed); }
  // For connections with a ring: one request taken; a ring made or closed.
  void CountRingRequest() { ring_requests_.fetch_add(1, std::memory_order_relaxed); }
  void CountRing(bool opened) {
    if (opened) {
      ring_connections_.fetch_add(1, std::memory_order_relaxed);
    } else {
      ring_connections_.fetch_sub(1, std::memory_order_relaxed);
    }
  }
  // request_metrics: every dispatched request's counts and latency (Dispatch
  // records them through ServerView::requests).
  const core::RequestMetrics& request_metrics() const { return *request_metrics_; }

  // For connections.
  asio::io_context& io() { return io_; }
  core::Hsm& hsm() { return hsm_; }
  core::Scheduler& scheduler() { return scheduler_; }
  const ServerOptions& options() const { return options_; }
  const ServerView& view() const { return view_; }
  bool draining() const { return draining_; }
  void Register(std::shared_ptr<ConnectionBase> c);
  void Unregister(ConnectionBase* c);
  // IsAdminCertificate: `cert` is the configured --admin-cert.
  bool IsAdminCertificate(X509* cert) const;
  // LogLimited: log `line` at most once per log_interval per `limiter`.
  void LogLimited(LogLimiter& limiter, const std::string& line);

 private:
  void AcceptUnix();
  void AcceptCryptech();
  void AcceptTcp();
  // ListenUnix binds and listens on `path` (mode 0600, or 0660 for
  // allow_group) into `acceptor`, holding the path through `claim`.
  Status ListenUnix(const std::filesystem::path& path,
                    std::unique_ptr<asio::local::stream_protocol::acceptor>& acceptor,
                    std::unique_ptr<SocketPathClaim>& claim);
  // AdmitUnixPeer: who the peer on `socket` is, or nullopt (logged) when
  // the peer rule refuses it.
  std::optional<PeerInfo> AdmitUnixPeer(asio::local::stream_protocol::socket& socket);
  Status StartTls();
  void FitConnectionsToDescriptorLimit();
  // AcceptFailed logs (rate-limited) and calls `retry` at once, or after
  // accept_backoff when descriptors or memory ran out.
  void AcceptFailed(const asio::error_code& ec, asio::steady_timer& timer,
                    std::function<void()> retry);
  // Admission: why a new connection from `identity` is refused, or "".
  std::string Admission(const std::string& identity) const;
  bool UnixPeerAllowed(int fd, uid_t uid, gid_t gid) const;
  void MaybeFinishShutdown();

  asio::io_context& io_;
  core::Hsm& hsm_;
  core::Scheduler& scheduler_;
  ServerOptions options_;
  std::atomic<std::size_t> connection_count_{0};
  TransportCounters unix_connections_;
  TransportCounters tls_connections_;
  std::atomic<std::uint64_t> ring_requests_{0};
  std::atomic<std::size_t> ring_connections_{0};
  std::unique_ptr<core::RequestMetrics> request_metrics_;
  ServerView view_;
  std::unique_ptr<asio::local::stream_protocol::acceptor> unix_acceptor_;
  std::unique_ptr<SocketPathClaim> socket_claim_;  // held from Start on
  std::unique_ptr<asio::local::stream_protocol::acceptor> cryptech_acceptor_;
  std::unique_ptr<SocketPathClaim> cryptech_claim_;
  std::unique_ptr<asio::ip::tcp::acceptor> tcp_acceptor_;
  std::unique_ptr<asio::ssl::context> tls_;
  std::set<std::shared_ptr<ConnectionBase>> connections_;
  std::map<std::string, std::size_t> per_peer_;  // open connections per identity
  std::size_t max_connections_ = 0;
  uid_t daemon_uid_ = 0;
  std::vector<std::uint8_t> admin_fingerprint_;  // SHA-256 of --admin-cert
  asio::steady_timer unix_backoff_;
  asio::steady_timer cryptech_backoff_;
  asio::steady_timer tcp_backoff_;
  asio::steady_timer drain_timer_;
  LogLimiter accept_log_;
  LogLimiter refusal_log_;
  LogLimiter peer_log_;
  bool draining_ = false;
  bool flushing_ = false;  // in-flight work ended: connections close when flushed
  bool shutdown_done_ = false;
  bool drain_timed_out_ = false;
  std::function<void()> shutdown_callback_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> drain_guard_;
  std::thread drain_thread_;
};

// ConnectionBase: what the Server needs from a connection of any transport.
class ConnectionBase {
 public:
  ConnectionBase(std::string identity, bool tls) : identity_(std::move(identity)), tls_(tls) {}
  virtual ~ConnectionBase() = default;
  // identity: the peer's PeerInfo::identity (per-peer connection count).
  const std::string& identity() const { return identity_; }
  // tls: a TCP connection with TLS (else the Unix socket).
  bool tls() const { return tls_; }
  // Close closes at once (replies not yet written are dropped).
  virtual void Close() = 0;
  // Drain stops reading new requests (shutdown).
  virtual void Drain() = 0;
  // CloseWhenFlushed closes once every queued reply is written.
  virtual void CloseWhenFlushed() = 0;

 private:
  const std::string identity_;
  const bool tls_;
};

}  // namespace signet::daemon
