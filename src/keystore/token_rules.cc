#include "keystore/token_rules.h"

#include "keystore/attribute_codec.h"

namespace signet::keystore {
namespace {

constexpr std::size_t kMaxLabelBytes = 32;

// Attributes that carry key material: for private and secret keys they live
// only inside the wrapped value, never in the clear attribute blob.
constexpr CK_ATTRIBUTE_TYPE kSecretAttributes[] = {
    CKA_VALUE,      CKA_PRIVATE_EXPONENT, CKA_PRIME_1,     CKA_PRIME_2,
    CKA_EXPONENT_1, CKA_EXPONENT_2,       CKA_COEFFICIENT,
};

}  // namespace

Status CheckTokenLabel(std::string_view label) {
  if (label.empty() || label.size() > kMaxLabelBytes) {
    return MakeError(CKR_ARGUMENTS_BAD, "token label must be 1-32 bytes");
  }
  return OkStatus();
}

bool HoldsSecret(std::optional<CK_ULONG> object_class) {
  return object_class == CKO_PRIVATE_KEY || object_class == CKO_SECRET_KEY;
}

Status CheckNoClearSecrets(const AttributeMap& attributes) {
  if (!HoldsSecret(FindUlong(attributes, CKA_CLASS))) return OkStatus();
  for (auto type : kSecretAttributes) {
    if (attributes.contains(type)) {
      return MakeError(CKR_TEMPLATE_INCONSISTENT,
                       "key material must be passed as the secret, not as an attribute");
    }
  }
  return OkStatus();
}

Result<bool> CheckNewObjects(const std::vector<NewObject>& objects) {
  if (objects.empty()) return MakeError(CKR_ARGUMENTS_BAD, "no objects to create");
  bool secrets = false;
  for (const NewObject& object : objects) {
    SIGNET_TRY(CheckNoClearSecrets(object.attributes));
    if (object.secret == nullptr) continue;
    if (!HoldsSecret(FindUlong(object.attributes, CKA_CLASS))) {
      return MakeError(CKR_TEMPLATE_INCONSISTENT, "only private and secret keys hold a secret");
    }
    if (object.secret->empty()) return MakeError(CKR_ARGUMENTS_BAD, "empty secret value");
    secrets = true;
  }
  return secrets;
}

Result<PoolTake> MakePoolTake(const PooledKey& key, const PoolObjectsBuilder& build,
                              const InsertObject& insert) {
  SIGNET_ASSIGN_OR_RETURN(auto attributes, build(key.public_attributes));
  PoolTake take;
  take.private_attributes = std::move(attributes.first);
  take.public_attributes = std::move(attributes.second);
  SIGNET_ASSIGN_OR_RETURN(take.private_handle, insert(take.private_attributes, &key.private_der));
  SIGNET_ASSIGN_OR_RETURN(take.public_handle, insert(take.public_attributes, nullptr));
  return take;
}

std::string EscapedLabel(ByteView label) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::uint8_t byte : label) {
    if (byte >= 0x20 && byte < 0x7f && byte != '\'' && byte != '\\') {
      out += static_cast<char>(byte);
    } else {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    }
  }
  return out;
}

Error LabelTaken(ByteView label) {
  return MakeError(CKR_ATTRIBUTE_VALUE_INVALID,
                   "a key labelled '" + EscapedLabel(label) + "' already exists");
}

}  // namespace signet::keystore
