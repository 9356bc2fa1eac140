// Client::Impl: the state behind one client connection: the byte stream, the
// frame reader, the queue of encoded requests not yet written, the replies
// received but not yet waited for, and the request-id counter. Send* encode
// a request body into builder() and hand it to Enqueue. One thread at a time
// (Client's contract).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "client/reply_frame.h"
#include "client/stream.h"
#include "crypto/secure_bytes.h"
#include "rpc/framing.h"
#include "signet/client.hpp"
#include "signet_generated.h"

namespace signet::client {

class Client::Impl {
 public:
  explicit Impl(std::unique_ptr<Stream> stream) : stream_(std::move(stream)) {}

  // builder: cleared, ready for the next request body.
  flatbuffers::FlatBufferBuilder& builder() {
    builder_.Clear();
    return builder_;
  }

  // Enqueue finishes the request around `body` with a fresh id, frames it
  // and queues it for writing (flushing past 64 KiB). `secret` wipes the
  // builder's copy at once (PINs).
  template <typename T>
  Result<Pending<T>> Enqueue(wire::RequestBody type, flatbuffers::Offset<void> body,
                             Result<T> (*decode)(const ReplyFrame&), bool secret = false) {
    SIGNET_ASSIGN_OR_RETURN(std::uint64_t id, Frame(type, body, secret));
    return Pending<T>{id, decode};
  }

  // Flush writes every queued byte.
  Status Flush();

  // WaitReply returns the reply for `id`, reading the stream as needed.
  Result<std::shared_ptr<const ReplyFrame>> WaitReply(std::uint64_t id);

  std::size_t in_flight() const { return in_flight_.size() + replies_.size(); }

 private:
  Result<std::uint64_t> Frame(wire::RequestBody type, flatbuffers::Offset<void> body,
                              bool secret);
  // ReadMore reads once from the stream and files every whole reply.
  Status ReadMore();
  Status FileReply(std::span<const std::uint8_t> payload);
  // Fail marks the connection unusable; every later call returns `error`.
  Error Fail(Error error);

  std::unique_ptr<Stream> stream_;
  flatbuffers::FlatBufferBuilder builder_{1024};
  rpc::FrameReader reader_;
  crypto::SecureBytes outbox_;  // framed requests not yet written (may hold PINs)
  std::uint64_t next_id_ = 1;
  std::set<std::uint64_t> in_flight_;  // sent, reply not yet received
  std::map<std::uint64_t, std::shared_ptr<const ReplyFrame>> replies_;  // received, not waited
  std::optional<Error> broken_;
  // write_failed_: the daemon stopped taking requests (it closed or is
  // draining); replies it already sent may still be read, so this does not
  // break the connection until the stream ends.
  std::optional<Error> write_failed_;
};

}  // namespace signet::client
