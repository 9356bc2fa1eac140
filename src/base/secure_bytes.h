// SecureBytes: a byte vector whose memory is wiped with explicit_bzero when
// freed or reallocated (glibc's wipe that the compiler may not remove, like
// OPENSSL_cleanse, but without linking libcrypto: the PKCS#11 module uses
// SecureBytes and must not pull OpenSSL into its host process). Holds PINs,
// unwrapped keys and derived keys; it has no operator<< on purpose, so it
// cannot reach a log by accident. Not synchronised: one owner at a time,
// like std::vector.
#pragma once

#include <string.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "signet/types.hpp"

namespace signet {

template <typename T>
struct ZeroisingAllocator {
  using value_type = T;
  ZeroisingAllocator() = default;
  template <typename U>
  ZeroisingAllocator(const ZeroisingAllocator<U>&) {}  // NOLINT
  T* allocate(std::size_t n) { return std::allocator<T>().allocate(n); }
  void deallocate(T* p, std::size_t n) {
    explicit_bzero(p, n * sizeof(T));
    std::allocator<T>().deallocate(p, n);
  }
  template <typename U>
  bool operator==(const ZeroisingAllocator<U>&) const { return true; }
};

using SecureBytes = std::vector<std::uint8_t, ZeroisingAllocator<std::uint8_t>>;

// AsBytes views the characters of `text` as bytes (no copy).
inline ByteView AsBytes(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

// WipeBytes overwrites `bytes` with zeros in a way the compiler may not
// remove (explicit_bzero), for plain buffers about to be freed that held a
// secret. An empty buffer is left alone (its data() may be null).
template <typename Buffer>
inline void WipeBytes(Buffer& bytes) {
  if (!bytes.empty()) explicit_bzero(bytes.data(), bytes.size() * sizeof(bytes[0]));
}

// SecureFromString copies `text` (e.g. a PIN read from argv) into SecureBytes.
inline SecureBytes SecureFromString(std::string_view text) {
  auto view = AsBytes(text);
  return SecureBytes(view.begin(), view.end());
}

// EqualConstantTime compares two byte strings without leaking where they
// differ: every byte is read and the differences are OR-ed together, through
// a volatile accumulator so the compiler cannot stop at the first one (the
// technique of OpenSSL's CRYPTO_memcmp, kept here so base/ needs no
// OpenSSL). Different lengths compare unequal; the length is not secret.
inline bool EqualConstantTime(ByteView a, ByteView b) {
  if (a.size() != b.size()) return false;
  volatile std::uint8_t difference = 0;
  for (std::size_t i = 0; i < a.size(); ++i) difference = difference | (a[i] ^ b[i]);
  return difference == 0;
}

}  // namespace signet
