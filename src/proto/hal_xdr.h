// hal_xdr.h: the XDR subset libhal's RPC uses (RFC 4506): 32-bit
// big-endian words, and variable-length opaques (a length word, the bytes,
// zero padding to a multiple of 4).
//
// XdrWriter builds a packet; XdrReader reads one, never past its end: every
// Get fails (false) on a short packet instead. Like libhal's decoder, a
// final opaque may lack its padding.
//
// Thread contract: one thread per object.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/secure_bytes.h"

namespace signet::proto {

class XdrWriter {
 public:
  void PutU32(std::uint32_t value);
  void PutOpaque(ByteView bytes);
  // Rewind drops everything written after the first `size` bytes.
  void Rewind(std::size_t size) { bytes_.resize(size); }
  std::size_t size() const { return bytes_.size(); }
  // bytes: the packet; secrets may pass through it (get_random, export), so
  // it wipes itself.
  const SecureBytes& bytes() const { return bytes_; }
  SecureBytes& bytes() { return bytes_; }

 private:
  SecureBytes bytes_;
};

// XdrOpaqueSize: the bytes an opaque of `length` takes on the wire.
constexpr std::size_t XdrOpaqueSize(std::size_t length) { return 4 + (length + 3) / 4 * 4; }

class XdrReader {
 public:
  explicit XdrReader(ByteView packet) : rest_(packet) {}

  bool GetU32(std::uint32_t& value);
  // PeekU32 reads the next word without consuming it.
  bool PeekU32(std::uint32_t& value) const;
  // GetOpaque points `bytes` into the packet.
  bool GetOpaque(ByteView& bytes);
  std::size_t remaining() const { return rest_.size(); }

 private:
  ByteView rest_;
};

}  // namespace signet::proto
