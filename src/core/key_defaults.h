// Default attributes of new objects, per object class, as one table
// (PKCS#11 leaves most defaults "token-specific"; these are signet's, and
// they lean safe: private and secret keys are private, sensitive and not
// extractable unless the template says otherwise).
// Pure functions: safe from any thread.
#pragma once

#include "core/attributes.h"

namespace signet::core {

// KeyOrigin: how a key came to be, for CKA_LOCAL & co. (PKCS#11 §4.7).
struct KeyOrigin {
  bool local = false;  // generated on this token
  CK_MECHANISM_TYPE gen_mechanism = CK_UNAVAILABLE_INFORMATION;
};

// ApplyObjectDefaults fills every attribute the template left out with the
// table's default for `object_class`, then sets the token-computed ones:
// CKA_CLASS, CKA_LOCAL, CKA_KEY_GEN_MECHANISM, CKA_ALWAYS_SENSITIVE,
// CKA_NEVER_EXTRACTABLE (keys only).
void ApplyObjectDefaults(AttributeMap& attrs, CK_OBJECT_CLASS object_class,
                         const KeyOrigin& origin);

// CheckNoComputedAttributes refuses a template that sets an attribute only
// the token computes (CKA_LOCAL, CKA_KEY_GEN_MECHANISM, CKA_ALWAYS_SENSITIVE,
// CKA_NEVER_EXTRACTABLE, and on generation CKA_MODULUS / CKA_EC_POINT):
// CKR_ATTRIBUTE_READ_ONLY.
Status CheckNoComputedAttributes(const AttributeMap& attrs, bool generating);

}  // namespace signet::core
