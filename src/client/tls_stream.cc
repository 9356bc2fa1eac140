// ConnectTlsFd built in (signet_client): TlsStream, TLS 1.3 (OpenSSL) over
// a SocketStream. The SSL object talks to two memory BIOs and this class
// moves their bytes through the socket itself, so TLS inherits the socket's
// no-SIGPIPE, keep-draining behaviour. Thread contract: like SocketStream,
// one thread may Write while another Reads: one mutex serialises every use
// of the SSL object (which is not safe for concurrent SSL_read/SSL_write)
// but is released while Read waits for ciphertext, so a write never waits
// for a reply to arrive.
#include <arpa/inet.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <string>

#include "base/mutex.h"
#include "client/socket_stream.h"
#include "client/tls_connect.h"
#include "crypto/ossl_error.h"
#include "crypto/ossl_ptr.h"

namespace signet::client {
namespace {

// libssl types are not in crypto/ossl_ptr.h (crypto/ links only libcrypto);
// the same Deleter template owns their *_free here.
using SslCtxPtr = std::unique_ptr<SSL_CTX, crypto::Deleter<SSL_CTX_free>>;
using SslPtr = std::unique_ptr<SSL, crypto::Deleter<SSL_free>>;

// TlsError names what failed and OpenSSL's first queued reason, clearing
// the thread's error queue so it cannot leak into a later call.
Error TlsError(const std::string& what) {
  return crypto::internal::OsslError(CKR_DEVICE_ERROR, what);
}

bool IsIpAddress(const std::string& host) {
  unsigned char buffer[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

Result<SslCtxPtr> MakeContext(const TlsSettings& settings) {
  SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) return TlsError("SSL_CTX_new");
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_3_VERSION);
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  int loaded = settings.ca_file.empty()
                   ? SSL_CTX_set_default_verify_paths(ctx.get())
                   : SSL_CTX_load_verify_locations(ctx.get(), settings.ca_file.c_str(), nullptr);
  if (loaded != 1) return TlsError("cannot load CA certificates " + settings.ca_file);
  if (!settings.cert_file.empty()) {
    if (SSL_CTX_use_certificate_chain_file(ctx.get(), settings.cert_file.c_str()) != 1) {
      return TlsError("cannot load client certificate " + settings.cert_file);
    }
    const std::string& key = settings.key_file.empty() ? settings.cert_file : settings.key_file;
    if (SSL_CTX_use_PrivateKey_file(ctx.get(), key.c_str(), SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(ctx.get()) != 1) {
      return TlsError("cannot load client key " + key);
    }
  }
  return ctx;
}

class TlsStream : public Stream {
 public:
  TlsStream(std::unique_ptr<SocketStream> socket, SslCtxPtr ctx, SslPtr ssl, BIO* rbio,
            BIO* wbio)
      : socket_(std::move(socket)), ctx_(std::move(ctx)), ssl_(std::move(ssl)),
        rbio_(rbio), wbio_(wbio) {}

  // Handshake runs before the stream is shared; it takes ssl_mu_ anyway
  // (uncontended) so that every use of ssl_ is under it.
  Status Handshake() EXCLUDES(ssl_mu_) {
    base::MutexLock lock(&ssl_mu_);
    for (;;) {
      int rc = SSL_do_handshake(ssl_.get());
      if (rc == 1) return Flush();
      SIGNET_TRY(HandleRetry(rc, "TLS handshake with signetd failed"));
    }
  }

  // Write and Read hold ssl_mu_ for every SSL call and every move of
  // ciphertext to the socket, but not while Read waits for the daemon: a
  // sender can write while the reader waits for a reply.
  Status Write(std::span<const std::uint8_t> data) EXCLUDES(ssl_mu_) override {
    base::MutexLock lock(&ssl_mu_);
    std::size_t done = 0;
    while (done < data.size()) {
      std::size_t written = 0;
      int rc = SSL_write_ex(ssl_.get(), data.data() + done, data.size() - done, &written);
      if (rc == 1) {
        done += written;
        SIGNET_TRY(Flush());
        continue;
      }
      int err = SSL_get_error(ssl_.get(), rc);
      SIGNET_TRY(Flush());
      if (err == SSL_ERROR_WANT_WRITE) continue;  // memory BIO: never full
      // TLS 1.3 after the handshake never needs input to write; only the
      // reader takes bytes from the socket, so anything else is an error.
      return TlsError("TLS write failed");
    }
    return OkStatus();
  }

  Result<std::size_t> Read(std::span<std::uint8_t> out) EXCLUDES(ssl_mu_) override {
    base::MutexLock lock(&ssl_mu_);
    for (;;) {
      std::size_t got = 0;
      int rc = SSL_read_ex(ssl_.get(), out.data(), out.size(), &got);
      if (rc == 1) {
        SIGNET_TRY(Flush());  // e.g. a KeyUpdate reply
        return got;
      }
      int err = SSL_get_error(ssl_.get(), rc);
      if (err == SSL_ERROR_ZERO_RETURN) {
        return MakeError(CKR_DEVICE_REMOVED, "connection closed by signetd");
      }
      SIGNET_TRY(Flush());
      if (err == SSL_ERROR_WANT_WRITE) continue;
      if (err != SSL_ERROR_WANT_READ) return TlsError("TLS read failed");
      std::uint8_t buffer[16384];
      lock.Unlock();
      Result<std::size_t> n = socket_->Read(buffer);
      lock.Lock();
      if (!n.ok()) return std::move(n).error();
      if (BIO_write(rbio_, buffer, static_cast<int>(*n)) != static_cast<int>(*n)) {
        return TlsError("BIO_write");
      }
    }
  }

  void ShutdownWrite() EXCLUDES(ssl_mu_) override {
    base::MutexLock lock(&ssl_mu_);
    SSL_shutdown(ssl_.get());
    (void)Flush();
    socket_->ShutdownWrite();
  }

 private:
  // HandleRetry (handshake only, one thread) sends what the SSL object
  // queued and, when it needs input, feeds it one read's worth of
  // ciphertext from the socket.
  Status HandleRetry(int rc, const char* what) REQUIRES(ssl_mu_) {
    int err = SSL_get_error(ssl_.get(), rc);
    SIGNET_TRY(Flush());
    if (err == SSL_ERROR_WANT_WRITE) return OkStatus();  // memory BIO: never full
    if (err != SSL_ERROR_WANT_READ) return TlsError(what);
    std::uint8_t buffer[16384];
    SIGNET_ASSIGN_OR_RETURN(std::size_t n, socket_->Read(buffer));
    if (BIO_write(rbio_, buffer, static_cast<int>(n)) != static_cast<int>(n)) {
      return TlsError("BIO_write");
    }
    return OkStatus();
  }

  // Flush moves every ciphertext byte the SSL object produced to the socket.
  Status Flush() REQUIRES(ssl_mu_) {
    std::uint8_t buffer[16384];
    while (BIO_ctrl_pending(wbio_) > 0) {
      int n = BIO_read(wbio_, buffer, sizeof(buffer));
      if (n <= 0) break;
      SIGNET_TRY(socket_->Write({buffer, static_cast<std::size_t>(n)}));
    }
    return OkStatus();
  }

  base::Mutex ssl_mu_;  // also serialises writes to socket_ (Read reads it unlocked)
  std::unique_ptr<SocketStream> socket_;
  SslCtxPtr ctx_;
  SslPtr ssl_ GUARDED_BY(ssl_mu_);
  BIO* rbio_ GUARDED_BY(ssl_mu_);  // owned by ssl_
  BIO* wbio_ GUARDED_BY(ssl_mu_);  // owned by ssl_
};

Result<std::unique_ptr<Stream>> ConnectTls(std::unique_ptr<SocketStream> socket,
                                           const TlsSettings& settings,
                                           const std::string& default_host) {
  SIGNET_ASSIGN_OR_RETURN(SslCtxPtr ctx, MakeContext(settings));
  SslPtr ssl(SSL_new(ctx.get()));
  BIO* rbio = BIO_new(BIO_s_mem());
  BIO* wbio = BIO_new(BIO_s_mem());
  if (!ssl || rbio == nullptr || wbio == nullptr) {
    BIO_free(rbio);
    BIO_free(wbio);
    return TlsError("SSL_new");
  }
  // An empty read BIO means "no ciphertext yet", not end of stream.
  BIO_set_mem_eof_return(rbio, -1);
  SSL_set_bio(ssl.get(), rbio, wbio);
  SSL_set_connect_state(ssl.get());
  const std::string& name = settings.server_name.empty() ? default_host : settings.server_name;
  if (IsIpAddress(name)) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl.get()), name.c_str());
  } else {
    SSL_set_tlsext_host_name(ssl.get(), name.c_str());
    SSL_set1_host(ssl.get(), name.c_str());
  }
  auto stream = std::make_unique<TlsStream>(std::move(socket), std::move(ctx), std::move(ssl),
                                            rbio, wbio);
  SIGNET_TRY(stream->Handshake());
  return std::unique_ptr<Stream>(std::move(stream));
}

}  // namespace

Result<std::unique_ptr<Stream>> ConnectTlsFd(int fd, std::chrono::milliseconds timeout,
                                             const TlsSettings& settings,
                                             const std::string& default_host) {
  return ConnectTls(std::make_unique<SocketStream>(fd, timeout), settings, default_host);
}

}  // namespace signet::client
