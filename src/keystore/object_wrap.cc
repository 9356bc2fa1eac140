#include "keystore/object_wrap.h"

#include <array>
#include <string_view>

namespace signet::keystore {
namespace {

constexpr std::string_view kMagic = "SGOBJ1";
constexpr std::size_t kPrefixSize = kMagic.size() + 8;

std::array<std::uint8_t, kPrefixSize> Prefix(ObjectHandle handle) {
  std::array<std::uint8_t, kPrefixSize> out{};
  for (std::size_t i = 0; i < kMagic.size(); ++i) out[i] = static_cast<std::uint8_t>(kMagic[i]);
  auto h = static_cast<std::uint64_t>(handle);
  for (int i = 0; i < 8; ++i) out[kMagic.size() + i] = static_cast<std::uint8_t>(h >> (56 - 8 * i));
  return out;
}

}  // namespace

Result<Bytes> WrapObjectSecret(ByteView kek, ObjectHandle handle, ByteView secret) {
  if (secret.empty()) return MakeError(CKR_ARGUMENTS_BAD, "empty secret value");
  auto prefix = Prefix(handle);
  SecureBytes plain;
  plain.reserve(prefix.size() + secret.size());
  plain.insert(plain.end(), prefix.begin(), prefix.end());
  plain.insert(plain.end(), secret.begin(), secret.end());
  return crypto::AesKeyWrapPad(kek, plain);
}

Result<SecureBytes> UnwrapObjectSecret(ByteView kek, ObjectHandle handle, ByteView wrapped) {
  auto plain = crypto::AesKeyUnwrapPad(kek, wrapped);
  if (!plain.ok()) {
    return MakeError(CKR_WRAPPED_KEY_INVALID, "stored key does not unwrap under the KEK");
  }
  auto prefix = Prefix(handle);
  if (plain->size() <= prefix.size() ||
      !EqualConstantTime(ByteView(plain->data(), prefix.size()), prefix)) {
    return MakeError(CKR_WRAPPED_KEY_INVALID, "stored key belongs to another object");
  }
  return SecureBytes(plain->begin() + prefix.size(), plain->end());
}

}  // namespace signet::keystore
