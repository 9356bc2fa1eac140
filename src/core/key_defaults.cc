#include "core/key_defaults.h"

namespace signet::core {
namespace {

struct BoolDefault {
  CK_OBJECT_CLASS object_class;
  CK_ATTRIBUTE_TYPE type;
  bool value;
};

// Per class; CKO_DATA and certificates take only the "all objects" rows.
constexpr CK_OBJECT_CLASS kAnyClass = ~CK_OBJECT_CLASS{0};
constexpr BoolDefault kDefaults[] = {
    {kAnyClass, CKA_TOKEN, false},
    {kAnyClass, CKA_MODIFIABLE, true},
    {kAnyClass, CKA_COPYABLE, true},
    {kAnyClass, CKA_DESTROYABLE, true},
    {CKO_DATA, CKA_PRIVATE, false},
    {CKO_CERTIFICATE, CKA_PRIVATE, false},
    {CKO_PUBLIC_KEY, CKA_PRIVATE, false},
    {CKO_PUBLIC_KEY, CKA_VERIFY, true},
    {CKO_PUBLIC_KEY, CKA_ENCRYPT, false},
    {CKO_PUBLIC_KEY, CKA_WRAP, false},
    {CKO_PUBLIC_KEY, CKA_VERIFY_RECOVER, false},
    {CKO_PUBLIC_KEY, CKA_DERIVE, false},
    {CKO_PRIVATE_KEY, CKA_PRIVATE, true},
    {CKO_PRIVATE_KEY, CKA_SENSITIVE, true},
    {CKO_PRIVATE_KEY, CKA_EXTRACTABLE, false},
    {CKO_PRIVATE_KEY, CKA_SIGN, true},
    {CKO_PRIVATE_KEY, CKA_DECRYPT, false},
    {CKO_PRIVATE_KEY, CKA_UNWRAP, false},
    {CKO_PRIVATE_KEY, CKA_SIGN_RECOVER, false},
    {CKO_PRIVATE_KEY, CKA_DERIVE, false},
    {CKO_PRIVATE_KEY, CKA_ALWAYS_AUTHENTICATE, false},
    {CKO_SECRET_KEY, CKA_PRIVATE, true},
    {CKO_SECRET_KEY, CKA_SENSITIVE, true},
    {CKO_SECRET_KEY, CKA_EXTRACTABLE, false},
    {CKO_SECRET_KEY, CKA_ENCRYPT, true},
    {CKO_SECRET_KEY, CKA_DECRYPT, true},
    {CKO_SECRET_KEY, CKA_WRAP, true},
    {CKO_SECRET_KEY, CKA_UNWRAP, true},
    {CKO_SECRET_KEY, CKA_SIGN, false},
    {CKO_SECRET_KEY, CKA_VERIFY, false},
    {CKO_SECRET_KEY, CKA_DERIVE, false},
};

constexpr CK_ATTRIBUTE_TYPE kComputed[] = {CKA_LOCAL, CKA_KEY_GEN_MECHANISM, CKA_ALWAYS_SENSITIVE,
                                           CKA_NEVER_EXTRACTABLE};
constexpr CK_ATTRIBUTE_TYPE kComputedOnGeneration[] = {CKA_MODULUS, CKA_EC_POINT, CKA_VALUE};

bool IsKey(CK_OBJECT_CLASS c) {
  return c == CKO_PUBLIC_KEY || c == CKO_PRIVATE_KEY || c == CKO_SECRET_KEY;
}

}  // namespace

void ApplyObjectDefaults(AttributeMap& attrs, CK_OBJECT_CLASS object_class,
                         const KeyOrigin& origin) {
  attrs[CKA_CLASS] = UlongBytes(object_class);
  for (const BoolDefault& d : kDefaults) {
    if (d.object_class == kAnyClass || d.object_class == object_class) {
      SetDefault(attrs, d.type, BoolBytes(d.value));
    }
  }
  if (!IsKey(object_class)) return;
  SetDefault(attrs, CKA_LABEL, {});
  SetDefault(attrs, CKA_ID, {});
  attrs[CKA_LOCAL] = BoolBytes(origin.local);
  attrs[CKA_KEY_GEN_MECHANISM] = UlongBytes(origin.gen_mechanism);
  if (object_class != CKO_PUBLIC_KEY) {
    attrs[CKA_ALWAYS_SENSITIVE] = BoolBytes(origin.local && BoolOr(attrs, CKA_SENSITIVE, true));
    attrs[CKA_NEVER_EXTRACTABLE] =
        BoolBytes(origin.local && !BoolOr(attrs, CKA_EXTRACTABLE, false));
  }
}

Status CheckNoComputedAttributes(const AttributeMap& attrs, bool generating) {
  for (CK_ATTRIBUTE_TYPE t : kComputed) {
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
