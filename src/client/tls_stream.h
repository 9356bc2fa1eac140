// client::TlsStream: TLS 1.3 (OpenSSL) over a SocketStream. The SSL object
// talks to two memory BIOs and this class moves their bytes through the
// socket itself, so TLS inherits the socket's no-SIGPIPE, keep-draining
// behaviour. Thread contract: like SocketStream, one thread may Write while
// another Reads: one mutex serialises every use of the SSL object (which is
// not safe for concurrent SSL_read/SSL_write) but is released while Read
// waits for ciphertext, so a write never waits for a reply to arrive.
#pragma once

#include <memory>

#include "client/socket_stream.h"
#include "client/stream.h"

namespace signet::client {

// ConnectTls performs the TLS 1.3 handshake over `socket`: the daemon's
// certificate must chain to settings.ca_file (or the system store) and match
// settings.server_name (or `default_host`). CKR_DEVICE_ERROR with OpenSSL's
// reason on failure (bad certificate, no client certificate, ...).
Result<std::unique_ptr<Stream>> ConnectTls(std::unique_ptr<SocketStream> socket,
                                           const TlsSettings& settings,
                                           const std::string& default_host);

}  // namespace signet::client
