#include "client/stream.h"

#include "client/socket_stream.h"
#include "client/tls_connect.h"

namespace signet::client {

Result<Endpoint> ParseEndpoint(const std::string& address) {
  constexpr std::string_view kTcp = "tcp://";
  constexpr std::string_view kUnix = "unix:";
  Endpoint endpoint;
  if (address.starts_with(kTcp)) {
    std::string rest = address.substr(kTcp.size());
    std::string::size_type colon;
    if (rest.starts_with("[")) {
      auto close = rest.find(']');
      if (close == std::string::npos || close + 1 >= rest.size() || rest[close + 1] != ':') {
        return MakeError(CKR_ARGUMENTS_BAD, "bad address (want tcp://[v6]:port): " + address);
      }
      endpoint.host = rest.substr(1, close - 1);
      colon = close + 1;
    } else {
      colon = rest.rfind(':');
      if (colon == std::string::npos) {
        return MakeError(CKR_ARGUMENTS_BAD, "bad address (want tcp://host:port): " + address);
      }
      endpoint.host = rest.substr(0, colon);
    }
    endpoint.port = rest.substr(colon + 1);
    if (endpoint.host.empty() || endpoint.port.empty()) {
      return MakeError(CKR_ARGUMENTS_BAD, "bad address (want tcp://host:port): " + address);
    }
    endpoint.kind = Endpoint::Kind::kTcp;
    return endpoint;
  }
  endpoint.path = address.starts_with(kUnix) ? address.substr(kUnix.size()) : address;
  if (endpoint.path.empty() || endpoint.path.find("://") != std::string::npos) {
    return MakeError(CKR_ARGUMENTS_BAD, "bad daemon address: '" + address + "'");
  }
  return endpoint;
}

Result<std::unique_ptr<Stream>> ConnectStream(const Endpoint& endpoint, const TlsSettings& tls,
                                              std::chrono::milliseconds timeout) {
  if (endpoint.kind == Endpoint::Kind::kUnix) {
    SIGNET_ASSIGN_OR_RETURN(int fd, ConnectUnix(endpoint.path));
    return std::unique_ptr<Stream>(std::make_unique<SocketStream>(fd, timeout));
  }
  SIGNET_ASSIGN_OR_RETURN(int fd, ConnectTcp(endpoint.host, endpoint.port));
  return ConnectTlsFd(fd, timeout, tls, endpoint.host);
}

}  // namespace signet::client
