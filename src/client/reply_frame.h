// client::ReplyFrame: one reply payload from signetd that passed the
// FlatBuffers verifier, kept with the wire::Response view into it; and the
// helpers that turn a reply into a Result (rv check, body type check).
// Immutable after construction: safe to read from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "signet/client.hpp"
#include "proto/signet_generated.h"

namespace signet::client {

class ReplyFrame {
 public:
  // ReplyFrame takes a payload that VerifyReply accepted.
  explicit ReplyFrame(std::vector<std::uint8_t> payload)
      : payload_(std::move(payload)),
        response_(flatbuffers::GetRoot<wire::Response>(payload_.data())) {}

  const wire::Response& response() const { return *response_; }

  // ToError: the reply's rv and message as an Error. REQUIRES: rv != CKR_OK.
  Error ToError() const;

 private:
  std::vector<std::uint8_t> payload_;
  const wire::Response* response_;
};

// VerifyReply: true when `payload` is a well-formed wire::Response.
bool VerifyReply(std::span<const std::uint8_t> payload);

// ReplyBody returns the reply's body of type `Body`, or its error when rv is
// not CKR_OK, or CKR_DEVICE_ERROR when the daemon sent no body of that type.
template <typename Body>
Result<const Body*> ReplyBody(const ReplyFrame& frame) {
  const wire::Response& response = frame.response();
  if (response.rv() != CKR_OK) return frame.ToError();
  const Body* body = response.body_as<Body>();
  if (body == nullptr) {
    return MakeError(CKR_DEVICE_ERROR, "signetd reply lacks the expected body");
  }
  return body;
}

// ToBytes copies a FlatBuffers byte vector (null: empty).
inline Bytes ToBytes(const flatbuffers::Vector<std::uint8_t>* vector) {
  if (vector == nullptr) return {};
  return Bytes(vector->begin(), vector->end());
}

// ToString copies a FlatBuffers string (null: empty).
inline std::string ToString(const flatbuffers::String* text) {
  return text == nullptr ? std::string() : text->str();
}

}  // namespace signet::client
