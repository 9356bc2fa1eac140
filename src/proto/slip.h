// slip.h: SLIP framing (RFC 1055) as Cryptech's libhal RPC uses it: a
// packet is sent as END, the bytes with END and ESC escaped, END. Empty
// frames (two ENDs in a row, or a leading END) carry nothing and are
// skipped.
//
// SlipDecoder takes a byte stream in any pieces (Cryptech's C client writes
// one byte per system call) and yields whole packets; a packet longer than
// the decoder's limit is not buffered past it but reported as oversized, so
// the listener can refuse it with a clear error.
//
// Thread contract: SlipEncode is pure; a SlipDecoder belongs to one
// connection and is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/secure_bytes.h"

namespace signet::proto {

inline constexpr std::uint8_t kSlipEnd = 0xC0;
inline constexpr std::uint8_t kSlipEsc = 0xDB;
inline constexpr std::uint8_t kSlipEscEnd = 0xDC;
inline constexpr std::uint8_t kSlipEscEsc = 0xDD;

// SlipEncode appends `packet`, framed, to `out` (packets may carry
// secrets: PINs, keys, random bytes).
void SlipEncode(ByteView packet, SecureBytes& out);

class SlipDecoder {
 public:
  explicit SlipDecoder(std::size_t max_packet) : max_packet_(max_packet) {}

  // Push takes one byte; true when it completed a non-empty packet, which
  // packet() then holds until the next Push.
  bool Push(std::uint8_t byte);

  // packet: the completed packet, at most max_packet bytes: the first
  // max_packet bytes of an oversized one.
  const SecureBytes& packet() const { return packet_; }
  // oversized: the completed packet had more than max_packet bytes.
  bool oversized() const { return oversized_; }

 private:
  std::size_t max_packet_;
  SecureBytes building_;
  SecureBytes packet_;
  bool escaped_ = false;
  bool building_oversized_ = false;
  bool oversized_ = false;
};

}  // namespace signet::proto
