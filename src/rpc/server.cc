#include "rpc/server.h"

#include <sys/socket.h>
#include <sys/stat.h>

#include <asio/ssl.hpp>

#include "rpc/connection.h"
#include "rpc/log.h"

namespace signet::rpc {
namespace {

std::string PeerCredentials(UnixSocket& socket) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(socket.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    return "unix(pid=? uid=?)";
  }
  return "unix(pid=" + std::to_string(cred.pid) + " uid=" + std::to_string(cred.uid) +
         " gid=" + std::to_string(cred.gid) + ")";
}

Result<asio::ip::tcp::endpoint> ParseListen(const std::string& listen) {
  auto colon = listen.rfind(':');
  if (colon == std::string::npos) return MakeError(CKR_ARGUMENTS_BAD, "--listen wants HOST:PORT");
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  asio::error_code ec;
  auto address = asio::ip::make_address(host.empty() ? "0.0.0.0" : host, ec);
  if (ec) return MakeError(CKR_ARGUMENTS_BAD, "--listen host must be an IP address: " + host);
  int port = 0;
  try {
    port = std::stoi(listen.substr(colon + 1));
  } catch (...) {
    port = -1;
  }
  if (port < 0 || port > 65535) return MakeError(CKR_ARGUMENTS_BAD, "--listen port out of range");
  return asio::ip::tcp::endpoint(address, static_cast<unsigned short>(port));
}

}  // namespace

Server::Server(asio::io_context& io, core::Hsm& hsm, core::Scheduler& scheduler,
               ServerOptions options)
    : io_(io), hsm_(hsm), scheduler_(scheduler), options_(std::move(options)) {
  view_.scheduler = &scheduler_;
  view_.connections = &connection_count_;
}

Server::~Server() {
  if (drain_thread_.joinable()) drain_thread_.join();
}

Status Server::StartTls() {
  tls_ = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
  SSL_CTX* ctx = tls_->native_handle();
  // TLS 1.3 only: no legacy versions or cipher choices to get wrong.
  SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
  asio::error_code ec;
  tls_->use_certificate_chain_file(options_.tls_cert, ec);
  if (!ec) tls_->use_private_key_file(options_.tls_key, asio::ssl::context::pem, ec);
  if (ec) return MakeError(CKR_DEVICE_ERROR, "cannot load TLS certificate/key: " + ec.message());
  if (!options_.tls_client_ca.empty()) {
    tls_->load_verify_file(options_.tls_client_ca, ec);
    if (ec) return MakeError(CKR_DEVICE_ERROR, "cannot load TLS client CA: " + ec.message());
    tls_->set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert);
  }
  return OkStatus();
}

Status Server::Start() {
  asio::error_code ec;
  if (!options_.socket_path.empty()) {
    std::filesystem::remove(options_.socket_path, ec);  // a stale socket from a crash
    unix_acceptor_ = std::make_unique<asio::local::stream_protocol::acceptor>(io_);
    asio::local::stream_protocol::endpoint endpoint(options_.socket_path.string());
    unix_acceptor_->open(endpoint.protocol(), ec);
    // Created 0600 from the start: umask during bind, no chmod race.
    mode_t old_mask = ::umask(0177);
    if (!ec) unix_acceptor_->bind(endpoint, ec);
    ::umask(old_mask);
    if (!ec) unix_acceptor_->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      return MakeError(CKR_DEVICE_ERROR,
                       "cannot listen on " + options_.socket_path.string() + ": " + ec.message());
    }
    AcceptUnix();
  }
  if (!options_.listen.empty()) {
    SIGNET_TRY(StartTls());
    SIGNET_ASSIGN_OR_RETURN(auto endpoint, ParseListen(options_.listen));
    tcp_acceptor_ = std::make_unique<asio::ip::tcp::acceptor>(io_);
    tcp_acceptor_->open(endpoint.protocol(), ec);
    if (!ec) tcp_acceptor_->set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) tcp_acceptor_->bind(endpoint, ec);
    if (!ec) tcp_acceptor_->listen(asio::socket_base::max_listen_connections, ec);
    if (ec)
      return MakeError(CKR_DEVICE_ERROR,
                       "cannot listen on " + options_.listen + ": " + ec.message());
    AcceptTcp();
  }
  return OkStatus();
}

unsigned short Server::tcp_port() const {
  if (!tcp_acceptor_) return 0;
  asio::error_code ec;
  auto endpoint = tcp_acceptor_->local_endpoint(ec);
  return ec ? 0 : endpoint.port();
}

void Server::Register(std::shared_ptr<ConnectionBase> c) {
  connections_.insert(std::move(c));
  connection_count_.store(connections_.size());
}

void Server::Unregister(ConnectionBase* c) {
  for (auto it = connections_.begin(); it != connections_.end(); ++it) {
    if (it->get() == c) {
      connections_.erase(it);
      break;
    }
  }
  connection_count_.store(connections_.size());
}

void Server::AcceptUnix() {
  unix_acceptor_->async_accept([this](const asio::error_code& ec, UnixSocket socket) {
    if (ec) {
      if (ec != asio::error::operation_aborted) Log("accept failed: " + ec.message());
      if (!draining_ && ec != asio::error::operation_aborted) AcceptUnix();
      return;
    }
    std::string peer = PeerCredentials(socket);
    Log("connect peer=" + peer);
    auto conn = std::make_shared<Connection<UnixSocket>>(*this, std::move(socket), peer);
    Register(conn);
    conn->Start();
    AcceptUnix();
  });
}

void Server::AcceptTcp() {
  tcp_acceptor_->async_accept([this](const asio::error_code& ec, asio::ip::tcp::socket socket) {
    if (ec) {
      if (ec != asio::error::operation_aborted) Log("accept failed: " + ec.message());
      if (!draining_ && ec != asio::error::operation_aborted) AcceptTcp();
      return;
    }
    asio::error_code ignored;
    auto remote = socket.remote_endpoint(ignored);
    std::string peer =
        "tcp(" + remote.address().to_string() + ":" + std::to_string(remote.port()) + ")";
    Log("connect peer=" + peer);
    socket.set_option(asio::ip::tcp::no_delay(true), ignored);
    auto conn =
        std::make_shared<Connection<TlsStream>>(*this, TlsStream(std::move(socket), *tls_), peer);
    Register(conn);
    conn->Start();
    AcceptTcp();
  });
}

void Server::Shutdown(std::function<void()> done) {
  if (draining_) return;
  draining_ = true;
  asio::error_code ignored;
  if (unix_acceptor_) unix_acceptor_->close(ignored);
  if (tcp_acceptor_) tcp_acceptor_->close(ignored);
  if (!options_.socket_path.empty()) std::filesystem::remove(options_.socket_path, ignored);
  for (const auto& c : std::set(connections_)) c->Drain();
  scheduler_.Stop();
  // Wait for in-flight work off the event loop, then flush and close.
  drain_thread_ = std::thread([this, done = std::move(done)] {
    scheduler_.WaitIdle();
    asio::post(io_, [this, done] {
      for (const auto& c : std::set(connections_)) c->CloseWhenFlushed();
      done();
    });
  });
}

}  // namespace signet::rpc
