#include "core/secret_keys.h"

#include "crypto/key_check_value.h"

namespace signet::core {
namespace {

bool IsAesLength(std::size_t n) { return n == 16 || n == 24 || n == 32; }

}  // namespace

Status CheckSecretKeyValue(CK_KEY_TYPE type, ByteView value) {
  if (type == CKK_AES) {
    if (!IsAesLength(value.size())) {
      return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "AES keys are 16, 24 or 32 bytes");
    }
    return OkStatus();
  }
  if (IsGenericSecretKeyType(type)) {
    if (value.empty() || value.size() > kMaxGenericSecretBytes) {
      return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "generic secrets are 1-512 bytes");
    }
    return OkStatus();
  }
  return MakeError(CKR_KEY_TYPE_INCONSISTENT, "not a secret key type signet stores");
}

Result<Bytes> SecretKeyCheckValue(CK_KEY_TYPE type, ByteView value) {
  if (type == CKK_AES) return crypto::AesKeyCheckValue(value);
  return crypto::GenericSecretCheckValue(value);
}

Result<std::size_t> GeneratedSecretLength(const MechanismRow& rule, const AttributeMap& attrs) {
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

}  // namespace signet::core
