#include "core/key_pair_attributes.h"

#include "core/key_defaults.h"

namespace signet::core {

void CompleteKeyPairAttributes(const AttributeMap& derived, CK_MECHANISM_TYPE mechanism,
                               AttributeMap& pub, AttributeMap& priv) {
  for (const auto& [type, value] : derived) {
    pub[type] = value;
    priv[type] = value;
  }
  priv.erase(CKA_MODULUS_BITS);  // public-key attributes only
  priv.erase(CKA_VALUE);         // DH's y
  KeyOrigin origin{true, mechanism};
  ApplyObjectDefaults(pub, CKO_PUBLIC_KEY, origin);
  ApplyObjectDefaults(priv, CKO_PRIVATE_KEY, origin);
}

}  // namespace signet::core
