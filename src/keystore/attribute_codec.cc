#include "keystore/attribute_codec.h"

#include <cstring>
#include <limits>

namespace signet::keystore {
namespace {

constexpr std::uint8_t kFormatVersion = 1;
constexpr std::size_t kHeaderSize = 8 + 4;

void PutLe(Bytes& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

std::uint64_t GetLe(const std::uint8_t* p, int bytes) {
  std::uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | p[i];
  return value;
}

Error Corrupt(const char* why) {
  return MakeError(CKR_DEVICE_ERROR, std::string("stored attributes are corrupt: ") + why);
}

}  // namespace

Result<Bytes> EncodeAttributes(const AttributeMap& attributes) {
  Bytes out;
  out.push_back(kFormatVersion);
  for (const auto& [type, value] : attributes) {
    if (value.size() > std::numeric_limits<std::uint32_t>::max()) {
      return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "attribute value too long");
    }
    PutLe(out, type, 8);
    PutLe(out, value.size(), 4);
    out.insert(out.end(), value.begin(), value.end());
  }
  return out;
}

Result<AttributeMap> DecodeAttributes(ByteView encoded) {
  if (encoded.empty() || encoded[0] != kFormatVersion) return Corrupt("unknown version");
  AttributeMap out;
  std::size_t pos = 1;
  while (pos < encoded.size()) {
    if (encoded.size() - pos < kHeaderSize) return Corrupt("truncated header");
    std::uint64_t type = GetLe(encoded.data() + pos, 8);
    std::uint64_t len = GetLe(encoded.data() + pos + 8, 4);
    pos += kHeaderSize;
    if (encoded.size() - pos < len) return Corrupt("truncated value");
    if (type > std::numeric_limits<CK_ATTRIBUTE_TYPE>::max()) return Corrupt("type range");
    if (!out.empty() && out.rbegin()->first >= type) return Corrupt("type order");
    out.emplace_hint(out.end(), static_cast<CK_ATTRIBUTE_TYPE>(type),
                     Bytes(encoded.begin() + pos, encoded.begin() + pos + len));
    pos += len;
  }
  return out;
}

std::optional<CK_ULONG> FindUlong(const AttributeMap& attributes, CK_ATTRIBUTE_TYPE type) {
  auto it = attributes.find(type);
  if (it == attributes.end()) return std::nullopt;
  return UlongFromBytes(it->second);
}

std::optional<bool> FindBool(const AttributeMap& attributes, CK_ATTRIBUTE_TYPE type) {
  auto it = attributes.find(type);
  if (it == attributes.end()) return std::nullopt;
  return BoolFromBytes(it->second);
}

}  // namespace signet::keystore
