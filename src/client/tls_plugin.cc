// libsignet-tls.so: the built-in ConnectTlsFd (tls_stream.cc, OpenSSL)
// behind one exported C symbol, for the PKCS#11 module's loader
// (tls_loader.cc). Everything else in this library is hidden.
#include "client/tls_connect.h"

extern "C" __attribute__((visibility("default"))) void signet_tls_connect_v1(
    int fd, std::int64_t timeout_ms, const signet::client::TlsSettings* settings,
    const std::string* default_host, signet::Result<std::unique_ptr<signet::client::Stream>>* out) {
  // Checked at compile time: the exported function matches what the loader calls.
  static_assert(
      std::is_same_v<decltype(&signet_tls_connect_v1), signet::client::TlsPluginConnectFn>);
  try {
    *out = signet::client::ConnectTlsFd(fd, std::chrono::milliseconds(timeout_ms), *settings,
                                        *default_host);
  } catch (const std::bad_alloc&) {
    *out = signet::MakeError(CKR_HOST_MEMORY, "out of memory during the TLS handshake");
  }
}
