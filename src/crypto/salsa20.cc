#include "crypto/salsa20.h"

#include <sodium.h>

namespace signet::crypto {

Status Salsa2012Xor(ByteView key, ByteView nonce, ByteView in, std::span<std::uint8_t> out) {
  static_assert(kSalsa2012KeyBytes == crypto_stream_salsa2012_KEYBYTES);
  static_assert(kSalsa2012NonceBytes == crypto_stream_salsa2012_NONCEBYTES);
  if (key.size() != kSalsa2012KeyBytes) {
    return MakeError(CKR_KEY_SIZE_RANGE, "Salsa20/12 takes a 32-byte key");
  }
  if (nonce.size() != kSalsa2012NonceBytes) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "Salsa20/12 takes an 8-byte nonce");
  }
  if (out.size() < in.size()) return MakeError(CKR_ARGUMENTS_BAD, "output shorter than input");
  // sodium_init is idempotent and thread-safe; it picks the fastest
  // implementation for this CPU once.
  static const bool ready = sodium_init() >= 0;
  if (!ready) return MakeError(CKR_FUNCTION_FAILED, "libsodium did not initialise");
  if (in.empty()) return OkStatus();  // libsodium's pointers are declared nonnull
  crypto_stream_salsa2012_xor(out.data(), in.data(), in.size(), nonce.data(), key.data());
  return OkStatus();
}

}  // namespace signet::crypto
