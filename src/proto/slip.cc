#include "proto/slip.h"

namespace signet::proto {

void SlipEncode(ByteView packet, SecureBytes& out) {
  out.push_back(kSlipEnd);
  for (std::uint8_t b : packet) {
    if (b == kSlipEnd) {
      out.push_back(kSlipEsc);
      out.push_back(kSlipEscEnd);
    } else if (b == kSlipEsc) {
      out.push_back(kSlipEsc);
      out.push_back(kSlipEscEsc);
    } else {
      out.push_back(b);
    }
  }
  out.push_back(kSlipEnd);
}

bool SlipDecoder::Push(std::uint8_t byte) {
  if (byte == kSlipEnd) {
    escaped_ = false;
    if (building_.empty()) return false;  // leading END or empty frame
    packet_.swap(building_);
    building_.clear();
    oversized_ = building_oversized_;
    building_oversized_ = false;
    return true;
  }
  if (byte == kSlipEsc && !escaped_) {
    escaped_ = true;
    return false;
  }
  if (escaped_) {
    // ESC before anything but ESC_END / ESC_ESC stands for the byte itself,
    // as in libhal's receiver.
    if (byte == kSlipEscEnd) byte = kSlipEnd;
    if (byte == kSlipEscEsc) byte = kSlipEsc;
    escaped_ = false;
  }
  if (building_.size() < max_packet_) {
    building_.push_back(byte);
  } else {
    building_oversized_ = true;
  }
  return false;
}

}  // namespace signet::proto
