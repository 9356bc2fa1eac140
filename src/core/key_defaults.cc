#include "core/key_defaults.h"

#include "core/attributes.h"
#include "core/key_policy.h"
#include "core/object_classes.h"
#include "core/unique_id.h"

namespace signet::core {
namespace {

constexpr CK_ATTRIBUTE_TYPE kComputedAttributes[] = {
    CKA_UNIQUE_ID, CKA_LOCAL, CKA_KEY_GEN_MECHANISM, CKA_ALWAYS_SENSITIVE, CKA_NEVER_EXTRACTABLE};
// Footnote 4 of §4's tables: what C_GenerateKey(Pair) computes itself.
constexpr CK_ATTRIBUTE_TYPE kComputedOnGeneration[] = {
    CKA_MODULUS, CKA_EC_POINT,   CKA_VALUE,      CKA_PRIVATE_EXPONENT, CKA_PRIME_1,
    CKA_PRIME_2, CKA_EXPONENT_1, CKA_EXPONENT_2, CKA_COEFFICIENT,      CKA_CHECK_VALUE};

bool IsKey(CK_OBJECT_CLASS c) {
  return c == CKO_PUBLIC_KEY || c == CKO_PRIVATE_KEY || c == CKO_SECRET_KEY;
}

}  // namespace

void ApplyObjectDefaults(AttributeMap& attrs, CK_OBJECT_CLASS object_class,
                         const KeyOrigin& origin) {
  attrs[CKA_CLASS] = UlongBytes(object_class);
  attrs[CKA_UNIQUE_ID] = NewUniqueId();
  if (object_class == CKO_SECRET_KEY) ApplyKeyRoleDefaults(attrs);
  FillClassDefaults(attrs);
  if (!IsKey(object_class)) return;
  attrs[CKA_LOCAL] = BoolBytes(origin.local);
  attrs[CKA_KEY_GEN_MECHANISM] = UlongBytes(origin.gen_mechanism);
  if (object_class != CKO_PUBLIC_KEY) {
    attrs[CKA_ALWAYS_SENSITIVE] = BoolBytes(origin.local && BoolOr(attrs, CKA_SENSITIVE, true));
    attrs[CKA_NEVER_EXTRACTABLE] =
        BoolBytes(origin.local && !BoolOr(attrs, CKA_EXTRACTABLE, false));
  }
}

Status CheckNoComputedAttributes(const AttributeMap& attrs, bool generating) {
  for (CK_ATTRIBUTE_TYPE t : kComputedAttributes) {
    if (attrs.count(t)) {
      return MakeError(CKR_ATTRIBUTE_READ_ONLY,
                       std::string(FindAttributeRule(t)->name) + " is set by the token");
    }
  }
  if (generating) {
    for (CK_ATTRIBUTE_TYPE t : kComputedOnGeneration) {
      if (attrs.count(t)) {
        return MakeError(CKR_TEMPLATE_INCONSISTENT,
                         std::string(FindAttributeRule(t)->name) + " is computed on generation");
      }
    }
  }
  return OkStatus();
}

}  // namespace signet::core
