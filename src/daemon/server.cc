#include "daemon/server.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <asio/ssl.hpp>
#include <cstdio>

#include "daemon/connection.h"
#include "daemon/cryptech_connection.h"
#include "daemon/log.h"

namespace signet::daemon {
namespace {

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

// OutOfDescriptors: accept failed for lack of descriptors or memory; trying
// again at once would fail again at once (issue 10, defect 1).
bool OutOfDescriptors(const asio::error_code& ec) {
  return ec == asio::error::no_descriptors || ec.value() == ENFILE || ec.value() == EMFILE ||
         ec == asio::error::no_buffer_space || ec == asio::error::no_memory;
}

Result<std::vector<std::uint8_t>> CertificateFingerprint(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "r");
  if (file == nullptr) return MakeError(CKR_DEVICE_ERROR, "cannot open --admin-cert " + path);
  X509* cert = PEM_read_X509(file, nullptr, nullptr, nullptr);
  std::fclose(file);
  if (cert == nullptr) return MakeError(CKR_DEVICE_ERROR, "--admin-cert is not a PEM certificate");
  std::vector<std::uint8_t> md(EVP_MAX_MD_SIZE);
  unsigned int len = 0;
  int ok = X509_digest(cert, EVP_sha256(), md.data(), &len);
  X509_free(cert);
  if (ok != 1) return MakeError(CKR_DEVICE_ERROR, "cannot fingerprint --admin-cert");
  md.resize(len);
  return md;
}

}  // namespace

void LogLimiter::Log(std::chrono::milliseconds interval, const std::string& line) {
  const auto now = std::chrono::steady_clock::now();
  if (logged_ && now - last_ < interval) {
    ++suppressed_;
    return;
  }
  std::string out = line;
  if (suppressed_ > 0) {
    out += " (and " + std::to_string(suppressed_) + " more in the last " +
           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now - last_).count()) +
           " s)";
  }
  daemon::Log(out);
  logged_ = true;
  last_ = now;
  suppressed_ = 0;
}

Server::Server(asio::io_context& io, core::Hsm& hsm, core::Scheduler& scheduler,
               ServerOptions options)
    : io_(io),
      hsm_(hsm),
      scheduler_(scheduler),
      options_(std::move(options)),
      unix_backoff_(io),
      cryptech_backoff_(io),
      tcp_backoff_(io),
      drain_timer_(io) {
  request_metrics_ = std::make_unique<core::RequestMetrics>();
  view_.scheduler = &scheduler_;
  view_.connections = &connection_count_;
  view_.ring_requests = &ring_requests_;
  view_.ring_connections = &ring_connections_;
  view_.requests = request_metrics_.get();
  view_.max_frame_size = options_.max_frame_size;
  view_.audit_log = options_.audit_log;
  max_connections_ = options_.max_connections;
  daemon_uid_ = ::geteuid();
}

Server::~Server() {
  if (drain_thread_.joinable()) drain_thread_.join();
}

void Server::LogLimited(LogLimiter& limiter, const std::string& line) {
  limiter.Log(options_.log_interval, line);
}

void Server::FitConnectionsToDescriptorLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
  const std::size_t soft = static_cast<std::size_t>(limit.rlim_cur);
  const std::size_t usable = soft > options_.fd_reserve ? soft - options_.fd_reserve : 1;
  if (usable < max_connections_) {
    max_connections_ = std::max<std::size_t>(usable, 1);
    Log("warning: connections capped at " + std::to_string(max_connections_) +
        " (not --max-connections " + std::to_string(options_.max_connections) +
        "): RLIMIT_NOFILE is " + std::to_string(soft) + " and " +
        std::to_string(options_.fd_reserve) +
        " descriptors stay free for token files (raise it with ulimit -n or LimitNOFILE=)");
  }
}

Status Server::StartTls() {
  if (options_.tls_client_ca.empty() && !options_.insecure_no_client_auth) {
    return MakeError(CKR_ARGUMENTS_BAD,
                     "refusing to listen on TCP without client authentication: anyone who "
                     "reaches the port could use the HSM; give --tls-client-ca CA_FILE (or "
                     "--insecure-no-client-auth to accept that risk)");
  }
  tls_ = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
  SSL_CTX* ctx = tls_->native_handle();
  // TLS 1.3 only: no legacy versions or cipher choices to get wrong.
  SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
  // Records may carry PINs and imported keys: OpenSSL wipes its copy of the
  // plaintext once the connection has read it.
  SSL_CTX_set_options(ctx, SSL_OP_CLEANSE_PLAINTEXT);
  asio::error_code ec;
  tls_->use_certificate_chain_file(options_.tls_cert, ec);
  if (!ec) tls_->use_private_key_file(options_.tls_key, asio::ssl::context::pem, ec);
  if (ec) return MakeError(CKR_DEVICE_ERROR, "cannot load TLS certificate/key: " + ec.message());
  if (!options_.tls_client_ca.empty()) {
    tls_->load_verify_file(options_.tls_client_ca, ec);
    if (ec) return MakeError(CKR_DEVICE_ERROR, "cannot load TLS client CA: " + ec.message());
    tls_->set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert);
  }
  if (!options_.admin_cert.empty()) {
    SIGNET_ASSIGN_OR_RETURN(admin_fingerprint_, CertificateFingerprint(options_.admin_cert));
  }
  return OkStatus();
}

Status Server::ListenUnix(const std::filesystem::path& socket_path,
                          std::unique_ptr<asio::local::stream_protocol::acceptor>& acceptor,
                          std::unique_ptr<SocketPathClaim>& claim) {
  SIGNET_ASSIGN_OR_RETURN(claim, ClaimSocketPath(socket_path));
  asio::error_code ec;
  acceptor = std::make_unique<asio::local::stream_protocol::acceptor>(io_);
  asio::local::stream_protocol::endpoint endpoint(socket_path.string());
  acceptor->open(endpoint.protocol(), ec);
  // Created 0600 from the start: umask during bind, no chmod race. With an
  // allowed group the group is set first, then the mode opened to 0660.
  mode_t old_mask = ::umask(0177);
  if (!ec) acceptor->bind(endpoint, ec);
  ::umask(old_mask);
  const std::string path = socket_path.string();
  if (!ec && options_.allow_group) {
    if (::chown(path.c_str(), static_cast<uid_t>(-1), *options_.allow_group) != 0 ||
        ::chmod(path.c_str(), 0660) != 0) {
      ec = asio::error_code(errno, asio::system_category());
    }
  }
  if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return MakeError(CKR_DEVICE_ERROR, "cannot listen on " + path + ": " + ec.message());
  return OkStatus();
}

Status Server::Start() {
  FitConnectionsToDescriptorLimit();
  if (!options_.socket_path.empty()) {
    SIGNET_TRY(ListenUnix(options_.socket_path, unix_acceptor_, socket_claim_));
    AcceptUnix();
  }
  if (!options_.cryptech_socket_path.empty()) {
    SIGNET_TRY(ListenUnix(options_.cryptech_socket_path, cryptech_acceptor_, cryptech_claim_));
    AcceptCryptech();
  }
  if (!options_.listen.empty()) {
    SIGNET_TRY(StartTls());
    SIGNET_ASSIGN_OR_RETURN(auto endpoint, ParseListen(options_.listen));
    asio::error_code ec;
    tcp_acceptor_ = std::make_unique<asio::ip::tcp::acceptor>(io_);
    tcp_acceptor_->open(endpoint.protocol(), ec);
    if (!ec) tcp_acceptor_->set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) tcp_acceptor_->bind(endpoint, ec);
    if (!ec) tcp_acceptor_->listen(asio::socket_base::max_listen_connections, ec);
    if (ec)
      return MakeError(CKR_DEVICE_ERROR,
                       "cannot listen on " + options_.listen + ": " + ec.message());
    if (options_.tls_client_ca.empty()) {
      Log("warning: TCP clients are not authenticated (--insecure-no-client-auth)");
    }
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
  ++per_peer_[c->identity()];
  TransportCounters& transport = c->tls() ? tls_connections_ : unix_connections_;
  transport.open.fetch_add(1, std::memory_order_relaxed);
  transport.accepted.fetch_add(1, std::memory_order_relaxed);
  connections_.insert(std::move(c));
  connection_count_.store(connections_.size());
}

void Server::Unregister(ConnectionBase* c) {
  for (auto it = connections_.begin(); it != connections_.end(); ++it) {
    if (it->get() == c) {
      auto peer = per_peer_.find(c->identity());
      if (peer != per_peer_.end() && --peer->second == 0) per_peer_.erase(peer);
      (c->tls() ? tls_connections_ : unix_connections_)
          .open.fetch_sub(1, std::memory_order_relaxed);
      connections_.erase(it);
      break;
    }
  }
  connection_count_.store(connections_.size());
  if (draining_) MaybeFinishShutdown();
}

std::string Server::Admission(const std::string& identity) const {
  if (connections_.size() >= max_connections_) {
    return "too many connections: the daemon's limit of " + std::to_string(max_connections_) +
           " is reached; retry later";
  }
  auto peer = per_peer_.find(identity);
  if (peer != per_peer_.end() && peer->second >= options_.max_connections_per_peer) {
    return "too many connections from this peer (limit of " +
           std::to_string(options_.max_connections_per_peer) + " per peer); retry later";
  }
  return "";
}

bool Server::UnixPeerAllowed(int fd, uid_t uid, gid_t gid) const {
  if (uid == daemon_uid_ || uid == 0) return true;
  if (!options_.allow_group) return false;
  if (gid == *options_.allow_group) return true;
  // Supplementary groups of the peer (Linux >= 4.13).
  std::vector<gid_t> groups(64);
  socklen_t len = static_cast<socklen_t>(groups.size() * sizeof(gid_t));
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &len) != 0) {
    if (errno != ERANGE) return false;
    groups.resize(len / sizeof(gid_t) + 1);
    len = static_cast<socklen_t>(groups.size() * sizeof(gid_t));
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &len) != 0) return false;
  }
  groups.resize(len / sizeof(gid_t));
  return std::find(groups.begin(), groups.end(), *options_.allow_group) != groups.end();
}

bool Server::IsAdminCertificate(X509* cert) const {
  if (cert == nullptr || admin_fingerprint_.empty()) return false;
  std::uint8_t md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (X509_digest(cert, EVP_sha256(), md, &len) != 1) return false;
  return len == admin_fingerprint_.size() &&
         std::equal(admin_fingerprint_.begin(), admin_fingerprint_.end(), md);
}

void Server::AcceptFailed(const asio::error_code& ec, asio::steady_timer& timer,
                          std::function<void()> retry) {
  if (!OutOfDescriptors(ec)) {
    LogLimited(accept_log_, "accept failed: " + ec.message());
    retry();
    return;
  }
  LogLimited(accept_log_, "accept failed: " + ec.message() + "; accepting again every " +
                              std::to_string(options_.accept_backoff.count()) + " ms until " +
                              "descriptors are free");
  timer.expires_after(options_.accept_backoff);
  timer.async_wait([this, retry = std::move(retry)](const asio::error_code& waited) {
    if (!waited && !draining_) retry();
  });
}

std::optional<PeerInfo> Server::AdmitUnixPeer(UnixSocket& socket) {
  ucred cred{};
  socklen_t len = sizeof cred;
  const int fd = socket.native_handle();
  const bool known = ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0;
  const std::string description = known ? "unix(pid=" + std::to_string(cred.pid) +
                                              " uid=" + std::to_string(cred.uid) +
                                              " gid=" + std::to_string(cred.gid) + ")"
                                        : "unix(pid=? uid=?)";
  if (!known || !UnixPeerAllowed(fd, cred.uid, cred.gid)) {
    LogLimited(peer_log_,
               "refused peer " + description + ": only the daemon's uid, root" +
                   (options_.allow_group ? " and group " + std::to_string(*options_.allow_group)
                                         : std::string()) +
                   " may connect");
    return std::nullopt;  // the socket closes with the caller's
  }
  return PeerInfo{description, "uid:" + std::to_string(cred.uid),
                  cred.uid == daemon_uid_ || cred.uid == 0};
}

void Server::AcceptUnix() {
  unix_acceptor_->async_accept([this](const asio::error_code& ec, UnixSocket socket) {
    if (draining_ || ec == asio::error::operation_aborted) return;
    if (ec) {
      AcceptFailed(ec, unix_backoff_, [this] { AcceptUnix(); });
      return;
    }
    std::optional<PeerInfo> peer = AdmitUnixPeer(socket);
    if (!peer) {
      AcceptUnix();
      return;
    }
    if (std::string why = Admission(peer->identity); !why.empty()) {
      LogLimited(refusal_log_, "refused connection peer=" + peer->description + ": " + why);
      // One small frame into an empty socket buffer: never blocks.
      std::vector<std::uint8_t> frame = ErrorFrame(0, SIGNET_RV_BUSY, why);
      [[maybe_unused]] ssize_t sent =
          ::send(socket.native_handle(), frame.data(), frame.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      AcceptUnix();
      return;
    }
    Log("connect peer=" + peer->description);
    auto conn = std::make_shared<Connection<UnixSocket>>(*this, std::move(socket), *peer);
    Register(conn);
    conn->Start();
    AcceptUnix();
  });
}

void Server::AcceptCryptech() {
  cryptech_acceptor_->async_accept([this](const asio::error_code& ec, UnixSocket socket) {
    if (draining_ || ec == asio::error::operation_aborted) return;
    if (ec) {
      AcceptFailed(ec, cryptech_backoff_, [this] { AcceptCryptech(); });
      return;
    }
    if (std::optional<PeerInfo> peer = AdmitUnixPeer(socket)) {
      // libhal RPC has no greeting to refuse with: a refused client is closed.
      if (std::string why = Admission(peer->identity); !why.empty()) {
        LogLimited(refusal_log_,
                   "refused cryptech connection peer=" + peer->description + ": " + why);
      } else {
        Log("cryptech: connect peer=" + peer->description);
        auto conn = std::make_shared<CryptechConnection>(*this, std::move(socket), *peer,
                                                         options_.cryptech_slot);
        Register(conn);
        conn->Start();
      }
    }
    AcceptCryptech();
  });
}

void Server::AcceptTcp() {
  tcp_acceptor_->async_accept([this](const asio::error_code& ec, asio::ip::tcp::socket socket) {
    if (draining_ || ec == asio::error::operation_aborted) return;
    if (ec) {
      AcceptFailed(ec, tcp_backoff_, [this] { AcceptTcp(); });
      return;
    }
    asio::error_code ignored;
    auto remote = socket.remote_endpoint(ignored);
    const std::string address = remote.address().to_string();
    PeerInfo peer{"tcp(" + address + ":" + std::to_string(remote.port()) + ")", "ip:" + address,
                  false};
    if (std::string why = Admission(peer.identity); !why.empty()) {
      // No TLS session yet to carry a reply: the refusal is the close.
      LogLimited(refusal_log_, "refused connection peer=" + peer.description + ": " + why);
      AcceptTcp();
      return;
    }
    Log("connect peer=" + peer.description);
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
  shutdown_callback_ = std::move(done);
  // The event loop keeps running until every connection is closed, even
  // while it waits for workers with nothing of its own to do.
  drain_guard_.emplace(io_.get_executor());
  asio::error_code ignored;
  if (unix_acceptor_) unix_acceptor_->close(ignored);
  if (tcp_acceptor_) tcp_acceptor_->close(ignored);
  unix_backoff_.cancel();
  tcp_backoff_.cancel();
  if (cryptech_acceptor_) cryptech_acceptor_->close(ignored);
  cryptech_backoff_.cancel();
  if (socket_claim_) socket_claim_->RemoveSocket();
  if (cryptech_claim_) cryptech_claim_->RemoveSocket();
  for (const auto& c : std::set(connections_)) c->Drain();
  scheduler_.Stop();
  drain_timer_.expires_after(options_.drain_timeout);
  drain_timer_.async_wait([this](const asio::error_code& ec) {
    if (ec || shutdown_done_) return;
    drain_timed_out_ = true;
    Log("drain timeout after " + std::to_string(options_.drain_timeout.count()) +
        " ms: closing " + std::to_string(connections_.size()) +
        " connection(s) with requests or replies still pending");
    for (const auto& c : std::set(connections_)) c->Close();
    flushing_ = true;
    MaybeFinishShutdown();
  });
  // Wait for in-flight work off the event loop, then flush and close.
  drain_thread_ = std::thread([this] {
    scheduler_.WaitIdle();
    asio::post(io_, [this] {
      if (shutdown_done_) return;
      flushing_ = true;
      for (const auto& c : std::set(connections_)) c->CloseWhenFlushed();
      MaybeFinishShutdown();
    });
  });
}

void Server::MaybeFinishShutdown() {
  if (!flushing_ || shutdown_done_ || !connections_.empty()) return;
  shutdown_done_ = true;
  drain_timer_.cancel();
  drain_guard_.reset();
  if (shutdown_callback_) shutdown_callback_();
}

}  // namespace signet::daemon
