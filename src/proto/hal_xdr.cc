#include "proto/hal_xdr.h"

#include <algorithm>

namespace signet::proto {

void XdrWriter::PutU32(std::uint32_t value) {
  bytes_.push_back(static_cast<std::uint8_t>(value >> 24));
  bytes_.push_back(static_cast<std::uint8_t>(value >> 16));
  bytes_.push_back(static_cast<std::uint8_t>(value >> 8));
  bytes_.push_back(static_cast<std::uint8_t>(value));
}

void XdrWriter::PutOpaque(ByteView bytes) {
  PutU32(static_cast<std::uint32_t>(bytes.size()));
  bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  bytes_.resize(bytes_.size() + (4 - bytes.size() % 4) % 4, 0);
}

bool XdrReader::PeekU32(std::uint32_t& value) const {
  if (rest_.size() < 4) return false;
  value = std::uint32_t{rest_[0]} << 24 | std::uint32_t{rest_[1]} << 16 |
          std::uint32_t{rest_[2]} << 8 | std::uint32_t{rest_[3]};
  return true;
}

bool XdrReader::GetU32(std::uint32_t& value) {
  if (!PeekU32(value)) return false;
  rest_ = rest_.subspan(4);
  return true;
}

bool XdrReader::GetOpaque(ByteView& bytes) {
  std::uint32_t length = 0;
  if (!PeekU32(length) || rest_.size() - 4 < length) return false;
  bytes = rest_.subspan(4, length);
  std::size_t padded = std::min<std::size_t>(rest_.size(), XdrOpaqueSize(length));
  rest_ = rest_.subspan(padded);
  return true;
}

}  // namespace signet::proto
