// Request payloads for the request_dispatch_fuzz target and its seed
// generator: FlatBuffers wire::Request payloads (no frame header) built the
// way the client library builds them, plus the handle placeholders.
//
// Handles are random per connection, so a fuzzer cannot guess them. A seed
// writes a placeholder instead (kSessionRef, kPrivateKeyRef, ...: an 8-byte
// little-endian value ending in "TENGIS"), and the target replaces each
// occurrence in the payload with the real handle of its session or of the
// object made at start-up before it verifies and dispatches the request.
// Header-only; pure functions, safe from any thread.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "proto/framing.h"
#include "proto/signet_generated.h"

namespace signet::fuzz {

inline constexpr std::uint64_t kPlaceholderBase = 0x5349474E45540000ull;
inline constexpr std::uint64_t kSessionRef = kPlaceholderBase | 1;     // the input's session
inline constexpr std::uint64_t kPrivateKeyRef = kPlaceholderBase | 2;  // P-256 "fuzz-ec"
inline constexpr std::uint64_t kPublicKeyRef = kPlaceholderBase | 3;   // its public half
inline constexpr std::uint64_t kSecretKeyRef = kPlaceholderBase | 4;   // AES-256 "fuzz-aes"
inline constexpr std::uint64_t kDataObjectRef = kPlaceholderBase | 5;  // CKO_DATA "fuzz-data"
inline constexpr int kPlaceholderCount = 5;

using Payload = std::vector<std::uint8_t>;
using AttributeList = std::vector<std::pair<CK_ATTRIBUTE_TYPE, std::vector<std::uint8_t>>>;

// MakeRequest builds a Request whose body `build(fbb)` returns.
template <typename Build>
Payload MakeRequest(wire::RequestBody type, Build&& build, std::uint64_t id = 1) {
  flatbuffers::FlatBufferBuilder fbb(256);
  flatbuffers::Offset<void> body = build(fbb).Union();
  fbb.Finish(wire::CreateRequest(fbb, id, proto::kProtocolVersion, type, body));
  return Payload(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

// Attributes encodes a template.
inline flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<wire::Attribute>>> Attributes(
    flatbuffers::FlatBufferBuilder& fbb, const AttributeList& list) {
  std::vector<flatbuffers::Offset<wire::Attribute>> out;
  for (const auto& [type, value] : list) {
    out.push_back(wire::CreateAttribute(fbb, type, fbb.CreateVector(value)));
  }
  return fbb.CreateVector(out);
}

// Ulong / Bool / Text: attribute values in the host layout PKCS#11 uses.
inline std::vector<std::uint8_t> Ulong(CK_ULONG v) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(&v);
  return {p, p + sizeof v};
}
inline std::vector<std::uint8_t> Bool(bool v) { return {static_cast<std::uint8_t>(v)}; }
inline std::vector<std::uint8_t> Text(std::string_view s) { return {s.begin(), s.end()}; }

inline Payload OpenSessionRequest(CK_SLOT_ID slot, CK_FLAGS flags) {
  return MakeRequest(wire::RequestBody::OpenSessionRequest, [&](auto& fbb) {
    return wire::CreateOpenSessionRequest(fbb, slot, flags);
  });
}

inline Payload LoginRequest(std::uint64_t session, CK_USER_TYPE user, std::string_view pin) {
  return MakeRequest(wire::RequestBody::LoginRequest, [&](auto& fbb) {
    return wire::CreateLoginRequest(fbb, session, user, fbb.CreateVector(Text(pin)));
  });
}

inline Payload FindObjectsRequest(std::uint64_t session, const AttributeList& match) {
  return MakeRequest(wire::RequestBody::FindObjectsRequest, [&](auto& fbb) {
    return wire::CreateFindObjectsRequest(fbb, session, Attributes(fbb, match), 0);
  });
}

inline Payload GenerateKeyPairRequest(std::uint64_t session, CK_MECHANISM_TYPE mechanism,
                                      const AttributeList& pub, const AttributeList& priv) {
  return MakeRequest(wire::RequestBody::GenerateKeyPairRequest, [&](auto& fbb) {
    auto m = wire::CreateMechanism(fbb, mechanism);
    return wire::CreateGenerateKeyPairRequest(fbb, session, m, Attributes(fbb, pub),
                                              Attributes(fbb, priv));
  });
}

inline Payload GenerateKeyRequest(std::uint64_t session, CK_MECHANISM_TYPE mechanism,
                                  const AttributeList& attributes) {
  return MakeRequest(wire::RequestBody::GenerateKeyRequest, [&](auto& fbb) {
    auto m = wire::CreateMechanism(fbb, mechanism);
    return wire::CreateGenerateKeyRequest(fbb, session, m, Attributes(fbb, attributes));
  });
}

inline Payload CreateObjectRequest(std::uint64_t session, const AttributeList& attributes) {
  return MakeRequest(wire::RequestBody::CreateObjectRequest, [&](auto& fbb) {
    return wire::CreateCreateObjectRequest(fbb, session, Attributes(fbb, attributes));
  });
}

}  // namespace signet::fuzz
