#include "daemon/metrics_http.h"

#include <openssl/ssl.h>

#include <array>
#include <asio/ssl.hpp>

#include "daemon/http_request.h"
#include "daemon/log.h"

namespace signet::daemon {
namespace {

using TlsSocket = asio::ssl::stream<asio::ip::tcp::socket>;

// HttpSession: one connection, one request, one reply, then the close.
// Lives on the server's thread.
template <typename Stream>
class HttpSession : public std::enable_shared_from_this<HttpSession<Stream>> {
 public:
  HttpSession(MetricsHttpServer& server, Stream stream)
      : server_(server), stream_(std::move(stream)), deadline_(server.io()) {}
  ~HttpSession() { server_.ConnectionClosed(); }

  void Start() {
    deadline_.expires_after(server_.options().deadline);
    deadline_.async_wait([self = this->shared_from_this()](const asio::error_code& ec) {
      if (!ec) self->Close();  // too slow: no reply (every byte is the client's to send)
    });
    if constexpr (std::is_same_v<Stream, TlsSocket>) {
      stream_.async_handshake(asio::ssl::stream_base::server,
                              [self = this->shared_from_this()](const asio::error_code& ec) {
                                if (ec) {
                                  self->Close();
                                  return;
                                }
                                self->Read();
                              });
    } else {
      Read();
    }
  }

 private:
  auto& Socket() {
    if constexpr (std::is_same_v<Stream, TlsSocket>) {
      return stream_.lowest_layer();
    } else {
      return stream_;
    }
  }

  void Read() {
    stream_.async_read_some(asio::buffer(chunk_), [self = this->shared_from_this()](
                                                      const asio::error_code& ec, std::size_t n) {
      if (ec) {
        self->Close();
        return;
      }
      self->received_.append(self->chunk_.data(), n);
      self->OnData();
    });
  }

  void OnData() {
    HttpHead head = ParseHttpHead(received_, server_.options().max_head_bytes);
    if (head.state == HttpHead::State::kNeedMore) {
      Read();
      return;
    }
    HttpResponse response;
    if (head.state == HttpHead::State::kError) {
      response.status = head.status;
      response.body = head.reason + "\n";
    } else {
      try {
        response = server_.handler()(head.path);
      } catch (...) {
        response = HttpResponse{500, "text/plain; charset=utf-8", "internal error\n"};
      }
    }
    Reply(response, head.method == "HEAD");
  }

  void Reply(const HttpResponse& response, bool head_only) {
    out_ = "HTTP/1.1 " + std::to_string(response.status) + " " +
           std::string(HttpStatusText(response.status)) +
           "\r\nContent-Type: " + response.content_type +
           "\r\nContent-Length: " + std::to_string(response.body.size()) +
           "\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n";
    if (!head_only) out_ += response.body;
    asio::async_write(stream_, asio::buffer(out_),
                      [self = this->shared_from_this()](const asio::error_code& ec, std::size_t) {
                        if (ec) {
                          self->Close();
                          return;
                        }
                        self->Finish();
                      });
  }

  // Finish ends the connection after the reply: TLS says close_notify first
  // (bounded by the deadline like everything else).
  void Finish() {
    if constexpr (std::is_same_v<Stream, TlsSocket>) {
      stream_.async_shutdown(
          [self = this->shared_from_this()](const asio::error_code&) { self->Close(); });
    } else {
      Close();
    }
  }

  void Close() {
    deadline_.cancel();
    asio::error_code ignored;
    Socket().shutdown(asio::socket_base::shutdown_both, ignored);
    Socket().close(ignored);
  }

  MetricsHttpServer& server_;
  Stream stream_;
  asio::steady_timer deadline_;
  std::array<char, 2048> chunk_{};
  std::string received_;
  std::string out_;
};

}  // namespace

Result<asio::ip::tcp::endpoint> ParseMetricsListen(const std::string& listen) {
  std::string host = "127.0.0.1";
  std::string port_text = listen;
  if (auto colon = listen.rfind(':'); colon != std::string::npos) {
    port_text = listen.substr(colon + 1);
    if (colon > 0) host = listen.substr(0, colon);
  }
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  asio::error_code ec;
  auto address = asio::ip::make_address(host, ec);
  if (ec) {
    return MakeError(CKR_ARGUMENTS_BAD, "--metrics-listen host must be an IP address: " + host);
  }
  int port = -1;
  if (!port_text.empty() && port_text.size() <= 5 &&
      port_text.find_first_not_of("0123456789") == std::string::npos) {
    port = std::stoi(port_text);
  }
  if (port < 0 || port > 65535) {
    return MakeError(CKR_ARGUMENTS_BAD, "--metrics-listen wants HOST:PORT (port 0-65535)");
  }
  return asio::ip::tcp::endpoint(address, static_cast<unsigned short>(port));
}

MetricsHttpServer::MetricsHttpServer(MetricsHttpOptions options, HttpHandler handler)
    : options_(std::move(options)), handler_(std::move(handler)) {}

MetricsHttpServer::~MetricsHttpServer() { Stop(); }

Status MetricsHttpServer::Start() {
  SIGNET_ASSIGN_OR_RETURN(auto endpoint, ParseMetricsListen(options_.listen));
  if (options_.tls) {
    if (options_.tls_cert.empty() || options_.tls_key.empty()) {
      return MakeError(CKR_ARGUMENTS_BAD, "--metrics-tls needs --tls-cert and --tls-key");
    }
    tls_ = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
    SSL_CTX_set_min_proto_version(tls_->native_handle(), TLS1_3_VERSION);
    asio::error_code ec;
    tls_->use_certificate_chain_file(options_.tls_cert, ec);
    if (!ec) tls_->use_private_key_file(options_.tls_key, asio::ssl::context::pem, ec);
    if (ec) {
      return MakeError(CKR_DEVICE_ERROR,
                       "--metrics-tls: cannot load TLS certificate/key: " + ec.message());
    }
  }
  asio::error_code ec;
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return MakeError(CKR_DEVICE_ERROR,
                     "cannot listen on --metrics-listen " + options_.listen + ": " + ec.message());
  }
  port_ = acceptor_.local_endpoint(ec).port();
  Accept();
  thread_ = std::thread([this] { io_.run(); });
  return OkStatus();
}

void MetricsHttpServer::Stop() {
  if (!thread_.joinable()) return;
  io_.stop();
  thread_.join();
}

void MetricsHttpServer::Accept() {
  acceptor_.async_accept([this](const asio::error_code& ec, asio::ip::tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) {
      if (open_ >= options_.max_connections) {
        asio::error_code ignored;
        socket.close(ignored);  // over the cap: the close is the answer
      } else {
        ++open_;
        if (tls_) {
          std::make_shared<HttpSession<TlsSocket>>(*this, TlsSocket(std::move(socket), *tls_))
              ->Start();
        } else {
          std::make_shared<HttpSession<asio::ip::tcp::socket>>(*this, std::move(socket))->Start();
        }
      }
    } else {
      // Out of descriptors, most likely: try again later, not at once.
      Log("metrics endpoint: accept failed: " + ec.message());
      backoff_.expires_after(std::chrono::milliseconds(100));
      backoff_.async_wait([this](const asio::error_code& wait_ec) {
        if (!wait_ec) Accept();
      });
      return;
    }
    Accept();
  });
}

}  // namespace signet::daemon
