// unique_id.h: CKA_UNIQUE_ID (PKCS#11 3.0 §4.4.1), the name signet gives
// every object when it is made. Its value is a UUID in its 36-character
// text form ("0b5e...-..."): random (version 4) for new objects; for a token
// object stored before signet had the attribute, a name-based UUID computed
// from the token's serial and the object's id, so it reads the same after
// every restart without rewriting the record.
//
// The Cryptech listener names keys by the same UUID's 16 bytes
// (docs/CRYPTECH.md), so a key made through either interface is found
// through the other.
//
// Thread contract: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "signet/types.hpp"

namespace signet::core {

using Uuid = std::array<std::uint8_t, 16>;

// NewUniqueId: a fresh random UUID's text, for a new object.
Bytes NewUniqueId();
// DerivedUniqueId: the stable UUID text of token object `object_id` on the
// token with serial `token_serial`, for records that have none.
Bytes DerivedUniqueId(std::string_view token_serial, std::int64_t object_id);

// UuidText: the 36-character text of `uuid`, lower-case hex.
Bytes UuidText(const Uuid& uuid);
// UuidFromText: the bytes of a UUID text; nullopt when `text` is not one.
std::optional<Uuid> UuidFromText(ByteView text);

}  // namespace signet::core
