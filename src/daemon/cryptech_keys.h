// cryptech_keys.h: how Cryptech key facts map onto a signet key object's
// attributes (docs/CRYPTECH.md "Mapping onto signet"), and how core's
// CK_RVs answer as libhal status codes. Shared by the cryptech_*.cc files.
//
// Thread contract: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

#include "core/attributes.h"
#include "crypto/keys.h"
#include "proto/hal_rpc.h"
#include "signet/result.hpp"

namespace signet::daemon {

// HalErrorOf: the libhal status for a core error.
proto::hal::Error HalErrorOf(const Error& error);

// KeyFlagTemplate: the attributes of a new key with Cryptech `flags`, for
// a private key or a public one.
core::Template KeyFlagTemplate(std::uint32_t flags, bool private_key);

// KeyFactTypes: the attributes KeyFacts reads.
const std::vector<CK_ATTRIBUTE_TYPE>& KeyFactTypes();

// KeyFacts: a key object's Cryptech type, curve and flags, from the
// attributes KeyFactTypes names.
struct KeyFacts {
  proto::hal::KeyType type = proto::hal::KeyType::kNone;
  proto::hal::Curve curve = proto::hal::Curve::kNone;
  std::uint32_t flags = 0;

  bool rsa() const {
    return type == proto::hal::KeyType::kRsaPrivate || type == proto::hal::KeyType::kRsaPublic;
  }
  bool private_key() const {
    return type == proto::hal::KeyType::kRsaPrivate || type == proto::hal::KeyType::kEcPrivate;
  }
};
KeyFacts KeyFactsOf(const std::map<CK_ATTRIBUTE_TYPE, Bytes>& attributes);

// CurveKeyType / CurveOf: libhal's curves and crypto's key types.
std::optional<crypto::KeyType> CurveKeyType(std::uint32_t curve);
proto::hal::Curve CurveOf(crypto::KeyType type);

}  // namespace signet::daemon
