#include "core/key_policy.h"

namespace signet::core {

Status CheckKeyRoles(const AttributeMap& attrs) {
  // Key pairs: the halves are separate objects (key_policy.h).
  if (FindUlong(attrs, CKA_CLASS) != CKO_SECRET_KEY) return OkStatus();
  const bool data_role = BoolOr(attrs, CKA_ENCRYPT, false) || BoolOr(attrs, CKA_DECRYPT, false);
  const bool key_role = BoolOr(attrs, CKA_WRAP, false) || BoolOr(attrs, CKA_UNWRAP, false);
  // A readable key's value is the caller's already (key_policy.h).
  const bool readable =
      !BoolOr(attrs, CKA_SENSITIVE, true) && BoolOr(attrs, CKA_EXTRACTABLE, false);
  if (data_role && key_role && !readable) {
    return MakeError(CKR_TEMPLATE_INCONSISTENT,
                     "a key either encrypts data or wraps keys, not both (docs/PKCS11.md "
                     "\"Key-management policy\")");
  }
  return OkStatus();
}

void ApplyKeyRoleDefaults(AttributeMap& attrs) {
  const bool key_role = BoolOr(attrs, CKA_WRAP, false) || BoolOr(attrs, CKA_UNWRAP, false);
  const CK_ATTRIBUTE_TYPE absent_role[2][2] = {{CKA_WRAP, CKA_UNWRAP}, {CKA_ENCRYPT, CKA_DECRYPT}};
  for (CK_ATTRIBUTE_TYPE type : absent_role[key_role ? 1 : 0])
    attrs.emplace(type, BoolBytes(false));
}

bool MayWrapSensitiveKeys(const AttributeMap& wrapping_key) {
  return (BoolOr(wrapping_key, CKA_LOCAL, false) &&
          BoolOr(wrapping_key, CKA_NEVER_EXTRACTABLE, false)) ||
         BoolOr(wrapping_key, CKA_TRUSTED, false);
}

Status CheckUnwrapSensitivity(const AttributeMap& unwrapping_key, AttributeMap& attrs) {
  if (!MayWrapSensitiveKeys(unwrapping_key)) return OkStatus();
  if (!BoolOr(attrs, CKA_SENSITIVE, true)) {
    return MakeError(CKR_TEMPLATE_INCONSISTENT,
                     "keys unwrapped under a key that wraps sensitive keys are sensitive");
  }
  attrs[CKA_SENSITIVE] = BoolBytes(true);
  return OkStatus();
}

}  // namespace signet::core
