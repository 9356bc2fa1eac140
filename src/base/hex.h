// Hexadecimal text: bytes as hex digits and back (test vectors, token
// serials, digests printed for people), and a number as 0x... (handles and
// mechanisms in log lines). Not for secrets: a hex copy of a key is still
// the key. Pure functions: safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "signet/types.hpp"

namespace signet {

// ToHex returns `bytes` as lowercase hex: two digits a byte, no separators.
std::string ToHex(ByteView bytes);

// FromHex decodes hex digits of either case, with no separators; nullopt
// when `hex` has an odd length or a character that is not a hex digit.
std::optional<Bytes> FromHex(std::string_view hex);

// HexNumber returns `value` as "0x" and lowercase hex digits without
// leading zeros ("0x0" for zero), as printf's "0x%lx" writes it.
std::string HexNumber(std::uint64_t value);

}  // namespace signet
