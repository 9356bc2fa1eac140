#include "core/secret_keys.h"

#include <algorithm>
#include <bit>

#include "crypto/aes_modes.h"
#include "crypto/key_check_value.h"
#include "crypto/symmetric.h"

namespace signet::core {
namespace {

bool IsAesLength(std::size_t n) { return n == 16 || n == 24 || n == 32; }

std::size_t DesLength(CK_KEY_TYPE type) { return type == CKK_DES ? 8 : type == CKK_DES2 ? 16 : 24; }

// SetOddParity makes each byte's low bit its parity bit (FIPS 46-3: every
// byte of a DES key has an odd number of ones).
void SetOddParity(SecureBytes& key) {
  for (std::uint8_t& byte : key) {
    const std::uint8_t high = byte & 0xfe;
    byte = static_cast<std::uint8_t>(high | (std::popcount(high) % 2 == 0 ? 1 : 0));
  }
}

bool HasEqualNeighbours(const SecureBytes& key) {
  for (std::size_t at = 8; at + 8 <= key.size(); at += 8) {
    if (std::equal(key.begin() + at - 8, key.begin() + at, key.begin() + at)) return true;
  }
  return false;
}

}  // namespace

Status CheckSecretKeyValue(CK_KEY_TYPE type, ByteView value) {
  if (type == CKK_AES) {
    if (!IsAesLength(value.size())) {
      return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "AES keys are 16, 24 or 32 bytes");
    }
    return OkStatus();
  }
  if (IsDesKeyType(type)) {
    if (value.size() != DesLength(type)) {
      return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, type == CKK_DES    ? "DES keys are 8 bytes"
                                                    : type == CKK_DES2 ? "DES2 keys are 16 bytes"
                                                                       : "DES3 keys are 24 bytes");
    }
    return OkStatus();
  }
  if (IsGenericSecretKeyType(type)) {
    if (value.empty() || value.size() > kMaxGenericSecretBytes) {
      return MakeError(
          CKR_ATTRIBUTE_VALUE_INVALID,
          "generic secrets are 1-" + std::to_string(kMaxGenericSecretBytes) + " bytes");
    }
    return OkStatus();
  }
  return MakeError(CKR_KEY_TYPE_INCONSISTENT, "not a secret key type signet stores");
}

Result<Bytes> SecretKeyCheckValue(CK_KEY_TYPE type, ByteView value) {
  if (type == CKK_AES) return crypto::AesKeyCheckValue(value);
  if (IsDesKeyType(type)) {
    // v2.40 "DES secret key objects" (and DES2, DES3): the first three bytes of the ECB
    // encryption of one block of zero bytes.
    const Bytes zero(crypto::kDesBlockSize, 0);
    SIGNET_ASSIGN_OR_RETURN(
        Bytes block,
        crypto::BlockEncrypt(crypto::BlockCipher::kDes, crypto::BlockMode::kEcb, value, {}, zero));
    block.resize(3);
    return block;
  }
  return crypto::GenericSecretCheckValue(value);
}

Result<std::size_t> GeneratedSecretLength(const MechanismRow& rule, const AttributeMap& attrs) {
  if (IsDesKeyType(rule.key_type)) return DesLength(rule.key_type);
  auto len = FindUlong(attrs, CKA_VALUE_LEN);
  if (!len) return MakeError(CKR_TEMPLATE_INCOMPLETE, "CKA_VALUE_LEN is required");
  if (rule.key_type == CKK_AES) {
    if (!IsAesLength(*len)) return MakeError(CKR_KEY_SIZE_RANGE, "AES keys are 16, 24 or 32 bytes");
    return static_cast<std::size_t>(*len);
  }
  // CKM_GENERIC_SECRET_KEY_GEN's range is in bits; CKA_VALUE_LEN in bytes.
  if (IsGenericSecretKeyType(rule.key_type) && *len >= 1 && *len <= kMaxGenericSecretBytes &&
      *len * 8 >= rule.min_key_size && *len * 8 <= rule.max_key_size) {
    return static_cast<std::size_t>(*len);
  }
  return MakeError(CKR_KEY_SIZE_RANGE, std::string(rule.name) + ": CKA_VALUE_LEN out of range");
}

std::size_t FixedSecretLength(CK_KEY_TYPE type) { return IsDesKeyType(type) ? DesLength(type) : 0; }

Result<SecureBytes> NewSecretValue(CK_KEY_TYPE type, std::size_t length) {
  SIGNET_ASSIGN_OR_RETURN(SecureBytes value, crypto::RandomBytes(length));
  if (!IsDesKeyType(type)) return value;
  // Equal neighbours come up once in 2^56 draws; redraw rather than refuse.
  for (int attempt = 0; attempt < 8; ++attempt) {
    SetOddParity(value);
    if (!HasEqualNeighbours(value)) return value;
    SIGNET_ASSIGN_OR_RETURN(value, crypto::RandomBytes(length));
  }
  return MakeError(CKR_FUNCTION_FAILED, "the random generator repeats itself");
}

}  // namespace signet::core
