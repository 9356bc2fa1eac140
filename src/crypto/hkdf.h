// HKDF (RFC 5869), the KDF of PKCS#11 3.0's CKM_HKDF_DERIVE: the extract
// step (a pseudorandom key from input keying material and a salt) and the
// expand step (output keying material from a pseudorandom key and an info
// string), run alone or one after the other, through OpenSSL's EVP_KDF
// "HKDF", fetched once per process.
//
// Keys leave only as SecureBytes. Every function is safe to call from any
// thread.
#pragma once

#include <cstddef>

#include "base/mechanism_table.h"
#include "base/secure_bytes.h"
#include "signet/result.hpp"

namespace signet::crypto {

// kMaxHkdfInfoBytes: the longest info string OpenSSL's HKDF takes.
inline constexpr std::size_t kMaxHkdfInfoBytes = 1024;

// HkdfStep: which of RFC 5869's two steps run (section 2.2, 2.3).
enum class HkdfStep : std::uint8_t { kExtract, kExpand, kExtractAndExpand };

// Hkdf runs `step` with hash `digest` over the key `key` (the input keying
// material, or for kExpand alone the pseudorandom key):
// - kExtract: HMAC-Hash(salt, key), the hash's length (`length` ignored);
//   an empty salt is as many zero bytes as the hash is long, as the RFC says.
// - kExpand: `length` bytes of T(1) || T(2) ... from `key` and `info`.
// - kExtractAndExpand: both.
// CKR_MECHANISM_PARAM_INVALID for kNone or kMd5, for a length of zero or
// above 255 hash lengths (RFC 5869 section 2.3) and for an info string longer
// than kMaxHkdfInfoBytes.
Result<SecureBytes> Hkdf(HkdfStep step, DigestAlg digest, ByteView key, ByteView salt,
                         ByteView info, std::size_t length);

}  // namespace signet::crypto
