// Client: connection set-up, the pipelining core (Flush, WaitReply) and the
// attribute helpers. The Send* operations live in ops_*.cc by family.
#include "signet/client.hpp"

#include <unistd.h>

#include <cstring>

#include "client/client_impl.h"
#include "client/node_choice.h"
#include "client/ring_attach.h"
#include "client/socket_stream.h"

namespace signet::client {

Result<std::unique_ptr<Client::Impl>> Client::ConnectOne(const ConnectOptions& options,
                                                         const std::string& address) {
  SIGNET_ASSIGN_OR_RETURN(Endpoint endpoint, ParseEndpoint(address));
  if (endpoint.kind == Endpoint::Kind::kUnix && options.shared_memory) {
    SIGNET_ASSIGN_OR_RETURN(int fd, ConnectUnix(endpoint.path));
    Result<std::unique_ptr<proto::ring::ClientRing>> ring =
        AttachRing(fd, Impl::kAttachRingId, options.timeout);
    if (!ring.ok()) {
      close(fd);
      return std::move(ring).error();
    }
    auto stream = std::make_unique<SocketStream>(fd, options.timeout);
    return std::make_unique<Impl>(std::move(stream), std::move(ring).value(), fd, options.timeout);
  }
  TlsSettings tls{options.tls_ca_file, options.tls_cert_file, options.tls_key_file,
                  options.tls_server_name};
  SIGNET_ASSIGN_OR_RETURN(std::unique_ptr<Stream> stream,
                          ConnectStream(endpoint, tls, options.timeout));
  return std::make_unique<Impl>(std::move(stream));
}

Result<std::unique_ptr<Client>> Client::Connect(const ConnectOptions& options) {
  const std::vector<std::string> addresses = SplitAddresses(options.address);
  if (addresses.empty()) return MakeError(CKR_ARGUMENTS_BAD, "no daemon address given");
  for (const std::string& address : addresses) SIGNET_TRY(ParseEndpoint(address));
  std::string failures;
  for (const std::string& address : ConnectOrder(addresses)) {
    Result<std::unique_ptr<Impl>> impl = ConnectOne(options, address);
    if (impl.ok()) {
      MarkNodeUp(address);
      std::unique_ptr<Client> client(new Client(std::move(impl).value()));
      client->address_ = address;
      return client;
    }
    MarkNodeDown(address);
    if (addresses.size() == 1) return std::move(impl).error();
    failures += (failures.empty() ? "" : "; ") + address + ": " + impl.error().message;
  }
  return MakeError(CKR_DEVICE_ERROR, "no node answered (" + failures + ")");
}

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::~Client() = default;

Status Client::Flush() { return impl_->Flush(); }

Result<std::shared_ptr<const ReplyFrame>> Client::WaitReply(std::uint64_t id) {
  return impl_->WaitReply(id);
}

std::size_t Client::in_flight() const { return impl_->in_flight(); }

Attribute UlongAttribute(CK_ATTRIBUTE_TYPE type, CK_ULONG value) {
  return Attribute{type, UlongBytes(value)};
}

Attribute BoolAttribute(CK_ATTRIBUTE_TYPE type, bool value) {
  return Attribute{type, BoolBytes(value)};
}

Attribute BytesAttribute(CK_ATTRIBUTE_TYPE type, ByteView value) {
  return Attribute{type, Bytes(value.begin(), value.end())};
}

Attribute StringAttribute(CK_ATTRIBUTE_TYPE type, std::string_view value) {
  return Attribute{type, Bytes(value.begin(), value.end())};
}

}  // namespace signet::client
