// Server: the daemon's network front end. It accepts connections on a Unix
// domain socket (mode 0600, peer credentials logged) and optionally on TCP
// with TLS 1.3 (client certificates required when a client CA is given),
// cuts each byte stream into frames, verifies every payload, and hands each
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

#include <asio.hpp>
#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "core/hsm.h"
#include "core/scheduler.h"
#include "rpc/dispatch.h"
#include "rpc/framing.h"

namespace asio::ssl {
class context;
}

namespace signet::rpc {

struct ServerOptions {
  std::filesystem::path socket_path;  // empty: no Unix socket
  std::string listen;                 // "HOST:PORT"; empty: no TCP
  std::string tls_cert;
  std::string tls_key;
  std::string tls_client_ca;  // set: client certificates required
  std::size_t max_frame_size = kDefaultMaxFrameSize;
  // A connection stops reading while this many reply bytes wait to be
  // written (a client that does not read its replies cannot grow memory).
  std::size_t max_pending_write_bytes = 8u << 20;
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

  // For connections.
  asio::io_context& io() { return io_; }
  core::Hsm& hsm() { return hsm_; }
  core::Scheduler& scheduler() { return scheduler_; }
  const ServerOptions& options() const { return options_; }
  const ServerView& view() const { return view_; }
  bool draining() const { return draining_; }
  void Register(std::shared_ptr<ConnectionBase> c);
  void Unregister(ConnectionBase* c);

 private:
  void AcceptUnix();
  void AcceptTcp();
  Status StartTls();

  asio::io_context& io_;
  core::Hsm& hsm_;
  core::Scheduler& scheduler_;
  ServerOptions options_;
  std::atomic<std::size_t> connection_count_{0};
  ServerView view_;
  std::unique_ptr<asio::local::stream_protocol::acceptor> unix_acceptor_;
  std::unique_ptr<asio::ip::tcp::acceptor> tcp_acceptor_;
  std::unique_ptr<asio::ssl::context> tls_;
  std::set<std::shared_ptr<ConnectionBase>> connections_;
  bool draining_ = false;
  std::thread drain_thread_;
};

// ConnectionBase: what the Server needs from a connection of any transport.
class ConnectionBase {
 public:
  virtual ~ConnectionBase() = default;
  // Drain stops reading new requests (shutdown).
  virtual void Drain() = 0;
  // CloseWhenFlushed closes once every queued reply is written.
  virtual void CloseWhenFlushed() = 0;
};

}  // namespace signet::rpc
