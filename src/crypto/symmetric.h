// Symmetric primitives: AES-256-GCM, AES key wrap with padding (RFC 5649),
// random bytes from OpenSSL's DRBG and the PIN KDF (scrypt). Ciphers and the
// KDF are fetched once per process; contexts are per call or per
// thread. Every function is safe to call from any thread.
#pragma once

#include <cstdint>
#include <memory>

#include "base/secure_bytes.h"
#include "crypto/multi_part.h"
#include "signet/result.hpp"

namespace signet::crypto {

inline constexpr std::size_t kAes256KeySize = 32;
inline constexpr std::size_t kGcmIvSize = 12;
inline constexpr std::size_t kGcmTagSize = 16;

// AesGcmEncrypt encrypts `plaintext` under a 16/24/32-byte `key` and returns
// ciphertext || tag (tag_len bytes, 12..16). Fails with CKR_KEY_SIZE_RANGE or
// CKR_MECHANISM_PARAM_INVALID on bad sizes.
Result<Bytes> AesGcmEncrypt(ByteView key, ByteView iv, ByteView aad, ByteView plaintext,
                            std::size_t tag_len = kGcmTagSize);

// AesGcmDecrypt reverses AesGcmEncrypt; CKR_ENCRYPTED_DATA_INVALID when the
// tag does not match (nothing of the plaintext is returned then).
Result<SecureBytes> AesGcmDecrypt(ByteView key, ByteView iv, ByteView aad,
                                  ByteView ciphertext_and_tag,
                                  std::size_t tag_len = kGcmTagSize);

// StartAesGcm begins a multi-part AesGcmEncrypt / AesGcmDecrypt with the
// same checks, codes and output. Decryption releases the plaintext only at
// Finish, once the tag (the input's last tag_len bytes) checks out.
Result<std::unique_ptr<MultiPart>> StartAesGcm(ByteView key, ByteView iv, ByteView aad,
                                               std::size_t tag_len, bool encrypt);

// AesKeyWrapPad wraps `plaintext` (any non-empty length) under `kek` per
// RFC 5649 (AES-KWP).
Result<Bytes> AesKeyWrapPad(ByteView kek, ByteView plaintext);

// AesKeyUnwrapPad reverses AesKeyWrapPad; CKR_WRAPPED_KEY_INVALID when the
// integrity check fails.
Result<SecureBytes> AesKeyUnwrapPad(ByteView kek, ByteView wrapped);

// RandomBytes returns `n` bytes from OpenSSL's DRBG (RAND_priv_bytes for
// secret material). Fails only if the DRBG fails.
Result<SecureBytes> RandomBytes(std::size_t n);

// FillRandom fills `out` from the DRBG (public randomness: IVs, salts, nonces).
Status FillRandom(std::span<std::uint8_t> out);

// MixIntoRandom gives `seed` to OpenSSL's primary DRBG as additional input
// (RAND_add: the DRBG reseeds from its own entropy source and mixes `seed`
// in; it never replaces that entropy, and is credited with none). Safe
// from any thread. CKR_ARGUMENTS_BAD when `seed` is longer than an int.
Status MixIntoRandom(ByteView seed);

// ScryptParams: the memory-hard KDF cost, stored beside every record it
// protects so it can be raised later without breaking old records.
struct ScryptParams {
  std::uint64_t n = 1u << 15;  // CPU/memory cost (power of two): 32 MiB with r=8
  std::uint32_t r = 8;
  std::uint32_t p = 1;
};

// Scrypt derives `out_len` bytes from `secret` and `salt`.
Result<SecureBytes> Scrypt(ByteView secret, ByteView salt, const ScryptParams& params,
                           std::size_t out_len);

}  // namespace signet::crypto
