// client::ConnectTlsFd: how a TCP connection to signetd gets its TLS layer.
//
// Declared here and defined by exactly one of two libraries, chosen by what
// links the client: signet_client_tls (tls_stream.cc, OpenSSL built in: the
// CLI, the bench, the tests) or signet_client_tls_loader (tls_loader.cc: the
// PKCS#11 module). The loader dlopen()s libsignet-tls.so from the module's
// own directory on the first tcp:// connection, so a host application that
// reaches signetd over its Unix socket never gets libssl/libcrypto, and
// their process-wide state, loaded by our module.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "client/stream.h"

namespace signet::client {

// ConnectTlsFd takes over the connected TCP socket `fd` (closed on failure)
// and performs the TLS 1.3 handshake: the daemon's certificate must chain to
// settings.ca_file (or the system store) and match settings.server_name (or
// `default_host`). CKR_DEVICE_ERROR with the reason on failure (bad
// certificate, no client certificate, TLS support not loadable).
Result<std::unique_ptr<Stream>> ConnectTlsFd(int fd, std::chrono::milliseconds timeout,
                                             const TlsSettings& settings,
                                             const std::string& default_host);

// The symbol libsignet-tls.so exports; `out` receives ConnectTlsFd's result.
// Versioned so that a stale plugin from another build is refused by name.
using TlsPluginConnectFn = void (*)(int fd, std::int64_t timeout_ms, const TlsSettings* settings,
                                    const std::string* default_host,
                                    Result<std::unique_ptr<Stream>>* out);
inline constexpr const char* kTlsPluginFile = "libsignet-tls.so";
inline constexpr const char* kTlsPluginSymbol = "signet_tls_connect_v1";

}  // namespace signet::client
