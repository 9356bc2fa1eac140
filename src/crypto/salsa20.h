// Salsa20/12: the 12-round Salsa20 stream cipher (Bernstein; eSTREAM
// profile 1), through libsodium's crypto_stream_salsa2012, for the
// benchmarks' seed 002 row. OpenSSL has no Salsa20 (docs/DESIGN.md
// "Dependencies"), and no token mechanism uses it.
// Thread contract: stateless functions, safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "base/secure_bytes.h"
#include "signet/result.hpp"

namespace signet::crypto {

// kSalsa2012KeyBytes / kSalsa2012NonceBytes: a 256-bit key and a 64-bit
// nonce (eSTREAM's IV); the block counter starts at 0.
inline constexpr std::size_t kSalsa2012KeyBytes = 32;
inline constexpr std::size_t kSalsa2012NonceBytes = 8;

// Salsa2012Xor XORs the key stream of (`key`, `nonce`) from its first byte
// into `in`, writing `out`, which must be as long as `in` (they may be the
// same buffer). Each call is one message. CKR_KEY_SIZE_RANGE or
// CKR_MECHANISM_PARAM_INVALID for a wrong key or nonce length,
// CKR_ARGUMENTS_BAD for a short `out`, CKR_FUNCTION_FAILED when libsodium
// does not initialise.
[[nodiscard]] Status Salsa2012Xor(ByteView key, ByteView nonce, ByteView in,
                                  std::span<std::uint8_t> out);

}  // namespace signet::crypto
