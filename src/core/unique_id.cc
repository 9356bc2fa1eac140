#include "core/unique_id.h"

#include <algorithm>
#include <random>

#include "crypto/digest.h"

namespace signet::core {
namespace {

constexpr char kHex[] = "0123456789abcdef";

// SetVersion stamps the RFC 4122 variant and `version` into `uuid`.
void SetVersion(Uuid& uuid, std::uint8_t version) {
  uuid[6] = static_cast<std::uint8_t>((uuid[6] & 0x0F) | (version << 4));
  uuid[8] = static_cast<std::uint8_t>((uuid[8] & 0x3F) | 0x80);
}

int HexValue(std::uint8_t c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsDashPosition(std::size_t i) { return i == 8 || i == 13 || i == 18 || i == 23; }

}  // namespace

Bytes NewUniqueId() {
  // A name, not a secret: uniqueness is all it needs, and random_device
  // reads the kernel's generator.
  std::random_device random;
  Uuid uuid;
  for (std::size_t i = 0; i < uuid.size(); i += 4) {
    std::uint32_t word = random();
    for (std::size_t j = 0; j < 4; ++j) uuid[i + j] = static_cast<std::uint8_t>(word >> (8 * j));
  }
  SetVersion(uuid, 4);
  return UuidText(uuid);
}

Bytes DerivedUniqueId(std::string_view token_serial, std::int64_t object_id) {
  std::string name = "signet object " + std::string(token_serial) + " " + std::to_string(object_id);
  Bytes hash =
      crypto::Digest(crypto::DigestAlg::kSha256,
                     ByteView(reinterpret_cast<const std::uint8_t*>(name.data()), name.size()))
          .value();
  Uuid uuid;
  std::copy_n(hash.begin(), uuid.size(), uuid.begin());
  SetVersion(uuid, 8);  // RFC 9562's custom version: a name hashed with SHA-256
  return UuidText(uuid);
}

Bytes UuidText(const Uuid& uuid) {
  Bytes text;
  for (std::size_t i = 0; i < uuid.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text.push_back('-');
    text.push_back(static_cast<std::uint8_t>(kHex[uuid[i] >> 4]));
    text.push_back(static_cast<std::uint8_t>(kHex[uuid[i] & 0x0F]));
  }
  return text;
}

std::optional<Uuid> UuidFromText(ByteView text) {
  if (text.size() != 36) return std::nullopt;
  Uuid uuid;
  std::size_t out = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (IsDashPosition(i)) {
      if (text[i] != '-') return std::nullopt;
      ++i;
      continue;
    }
    int high = HexValue(text[i]);
    int low = HexValue(text[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    uuid[out++] = static_cast<std::uint8_t>(high << 4 | low);
    i += 2;
  }
  return uuid;
}

}  // namespace signet::core
