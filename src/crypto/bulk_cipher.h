// BulkCipher: a streaming encryption context for bulk-throughput work
// (benchmarks, large payloads): AES-128-CTR, AES-256-GCM and ChaCha20.
//
// The EVP_CIPHER for each algorithm is fetched once per process; a BulkCipher
// owns one EVP_CIPHER_CTX that Reset() re-keys with a fresh IV without
// reallocating, so a tight loop pays no lookup or allocation per call.
// Thread contract: one BulkCipher per thread (not synchronised); different
// instances may be used from different threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "crypto/ossl_ptr.h"
#include "base/secure_bytes.h"
#include "signet/result.hpp"

namespace signet::crypto {

enum class BulkCipherAlg { kAes128Ctr, kAes256Gcm, kChaCha20 };

// BulkCipherName returns "aes-128-ctr", "aes-256-gcm" or "chacha20".
std::string_view BulkCipherName(BulkCipherAlg alg);

// BulkCipherKeySize returns the key length in bytes (16 or 32).
std::size_t BulkCipherKeySize(BulkCipherAlg alg);

// BulkCipherIvSize returns the IV length in bytes: 16 for AES-CTR (initial
// counter block), 12 for GCM, 16 for ChaCha20 (32-bit LE counter || nonce,
// OpenSSL's layout).
std::size_t BulkCipherIvSize(BulkCipherAlg alg);

class BulkCipher {
 public:
  // Create starts an encryption under `key` and `iv`. CKR_KEY_SIZE_RANGE or
  // CKR_MECHANISM_PARAM_INVALID on a wrong length; CKR_MECHANISM_INVALID when
  // the OpenSSL provider lacks the cipher.
  [[nodiscard]] static Result<BulkCipher> Create(BulkCipherAlg alg, ByteView key, ByteView iv);

  // Update encrypts `in` into `out`, which must be at least as long; `in`
  // and `out` may be the same buffer. Stream ciphers: any length, no
  // buffering, so out receives exactly in.size() bytes.
  [[nodiscard]] Status Update(ByteView in, std::span<std::uint8_t> out);

  // Finish ends the message. For GCM it returns the 16-byte tag; for the
  // stream modes an empty vector. Reset() must precede further Updates.
  [[nodiscard]] Result<Bytes> Finish();

  // Reset starts a new message under the same key with a new `iv`.
  [[nodiscard]] Status Reset(ByteView iv);

  BulkCipherAlg alg() const { return alg_; }

 private:
  BulkCipher(BulkCipherAlg alg, EvpCipherCtxPtr ctx) : alg_(alg), ctx_(std::move(ctx)) {}
  BulkCipherAlg alg_;
  EvpCipherCtxPtr ctx_;
};

}  // namespace signet::crypto
