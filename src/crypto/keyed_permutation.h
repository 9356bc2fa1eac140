// KeyedPermutation: a pseudorandom permutation of 64-bit values under a
// secret key (a four-round Feistel network over two 32-bit halves, each
// round HMAC-SHA256(key, round || half) cut to 32 bits: Luby-Rackoff's
// construction). signetd numbers a client's token objects with it
// (core/stable_handles.h), so every node gives a client holding the key
// the same handle for the same object while handles still look random to
// anyone without it. Not for secrecy of the values themselves beyond that.
// Immutable after construction: safe from any thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "base/secure_bytes.h"
#include "signet/result.hpp"

namespace signet::crypto {

class KeyedPermutation {
 public:
  // kKeySize: the key's length in bytes.
  static constexpr std::size_t kKeySize = 32;

  // Make keys a permutation. CKR_ARGUMENTS_BAD unless `key` is kKeySize
  // bytes.
  static Result<KeyedPermutation> Make(ByteView key);

  // Forward maps `value` to its image; Backward undoes it.
  std::uint64_t Forward(std::uint64_t value) const;
  std::uint64_t Backward(std::uint64_t image) const;

  // SameKey: `key` is this permutation's key (compared in constant time).
  bool SameKey(ByteView key) const;

 private:
  explicit KeyedPermutation(ByteView key);
  std::uint32_t Round(std::uint8_t round, std::uint32_t half) const;

  SecureBytes key_;
};

}  // namespace signet::crypto
