#include "crypto/keyed_permutation.h"

#include <openssl/crypto.h>

#include "crypto/mac.h"

namespace signet::crypto {
namespace {

// kRounds: four Feistel rounds make a strong pseudorandom permutation
// (Luby-Rackoff) from a pseudorandom round function.
constexpr std::uint8_t kRounds = 4;

}  // namespace

Result<KeyedPermutation> KeyedPermutation::Make(ByteView key) {
  if (key.size() != kKeySize) {
    return MakeError(CKR_ARGUMENTS_BAD, "a handle key is 32 bytes");
  }
  return KeyedPermutation(key);
}

KeyedPermutation::KeyedPermutation(ByteView key) : key_(key.begin(), key.end()) {}

bool KeyedPermutation::SameKey(ByteView key) const {
  return key.size() == key_.size() && CRYPTO_memcmp(key.data(), key_.data(), key_.size()) == 0;
}

std::uint32_t KeyedPermutation::Round(std::uint8_t round, std::uint32_t half) const {
  const std::uint8_t input[5] = {
      round, static_cast<std::uint8_t>(half >> 24), static_cast<std::uint8_t>(half >> 16),
      static_cast<std::uint8_t>(half >> 8), static_cast<std::uint8_t>(half)};
  Result<SecureBytes> mac = Mac({.kind = MacKind::kHmac, .digest = DigestAlg::kSha256}, key_,
                                ByteView(input, sizeof input));
  // HMAC-SHA256 with a 32-byte key fails only if OpenSSL cannot allocate;
  // a constant round would still be a permutation, only a weak one.
  if (!mac.ok()) return 0;
  const SecureBytes& m = *mac;
  return (std::uint32_t{m[0]} << 24) | (std::uint32_t{m[1]} << 16) | (std::uint32_t{m[2]} << 8) |
         m[3];
}

std::uint64_t KeyedPermutation::Forward(std::uint64_t value) const {
  auto left = static_cast<std::uint32_t>(value >> 32);
  auto right = static_cast<std::uint32_t>(value);
  for (std::uint8_t r = 0; r < kRounds; ++r) {
    const std::uint32_t next = left ^ Round(r, right);
    left = right;
    right = next;
  }
  return (std::uint64_t{left} << 32) | right;
}

std::uint64_t KeyedPermutation::Backward(std::uint64_t image) const {
  auto left = static_cast<std::uint32_t>(image >> 32);
  auto right = static_cast<std::uint32_t>(image);
  for (std::uint8_t r = kRounds; r-- > 0;) {
    const std::uint32_t previous = right ^ Round(r, left);
    right = left;
    left = previous;
  }
  return (std::uint64_t{left} << 32) | right;
}

}  // namespace signet::crypto
