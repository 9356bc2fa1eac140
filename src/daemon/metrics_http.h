// MetricsHttpServer: the small HTTP/1.1 listener behind `signetd
// --metrics-listen` (Prometheus scrapes and health probes), on Asio, the
// library the daemon already uses (docs/DESIGN.md "Dependencies").
//
// Every byte from a client is hostile: a connection gets one request and is
// closed after the reply; its head is bounded (http_request.h) and so is
// its whole life (TLS handshake, request, reply) by one deadline; at most
// max_connections are open at once, further ones are closed at accept. With
// TLS (`--metrics-tls`) only TLS 1.3 is spoken, with the TCP listener's
// certificate and key.
//
// Thread contract: the server runs its own io_context on a thread of its
// own (never the request event loop, so a scrape cannot delay a signature's
// I/O); the handler runs there, one request at a time. Start and Stop
// belong to the owner's thread; Stop (also run by the destructor) closes
// everything and joins the thread.
#pragma once

#include <asio.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "signet/result.hpp"

namespace asio::ssl {
class context;
}

namespace signet::daemon {

// MetricsHttpOptions: where the endpoint listens and its per-connection
// bounds.
struct MetricsHttpOptions {
  std::string listen;  // HOST:PORT, :PORT or PORT (host 127.0.0.1)
  bool tls = false;
  std::string tls_cert;
  std::string tls_key;
  std::size_t max_head_bytes = 8192;
  std::chrono::milliseconds deadline{5000};  // a connection's whole life
  std::size_t max_connections = 16;
};

// HttpResponse: what the handler answers for a path.
struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

// HttpHandler: answers a GET (or HEAD) of `path`.
using HttpHandler = std::function<HttpResponse(const std::string& path)>;

// ParseMetricsListen: the endpoint of HOST:PORT, :PORT or PORT (host
// 127.0.0.1 when none is given: loopback unless told otherwise).
Result<asio::ip::tcp::endpoint> ParseMetricsListen(const std::string& listen);

class MetricsHttpServer {
 public:
  MetricsHttpServer(MetricsHttpOptions options, HttpHandler handler);
  ~MetricsHttpServer();
  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

  // Start loads the TLS files (with tls), binds, listens and starts the
  // thread. CKR_ARGUMENTS_BAD for a bad address, CKR_DEVICE_ERROR when it
  // cannot bind or load the files.
  Status Start();

  // Stop closes the listener and every connection and joins the thread.
  void Stop();

  // port: the bound port (useful with port 0), or 0 before Start.
  unsigned short port() const { return port_; }

  // For connections (on the server's thread).
  const MetricsHttpOptions& options() const { return options_; }
  const HttpHandler& handler() const { return handler_; }
  asio::io_context& io() { return io_; }
  asio::ssl::context* tls() { return tls_.get(); }
  // ConnectionClosed: one connection ended.
  void ConnectionClosed() { --open_; }

 private:
  void Accept();

  MetricsHttpOptions options_;
  HttpHandler handler_;
  // Declared before io_: sessions still pending when io_ is destroyed use
  // them from their destructors.
  std::unique_ptr<asio::ssl::context> tls_;
  std::size_t open_ = 0;  // the server's thread only
  unsigned short port_ = 0;
  asio::io_context io_{1};
  asio::ip::tcp::acceptor acceptor_{io_};
  asio::steady_timer backoff_{io_};  // after a failed accept (out of descriptors)
  std::thread thread_;
};

}  // namespace signet::daemon
