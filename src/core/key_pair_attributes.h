// CompleteKeyPairAttributes: the one place that turns a caller's key-pair
// templates into the attributes stored for a generated pair, shared by fresh
// generation (hsm_keys.cc) and the key pool (hsm_pool.cc), so a pooled key is
// indistinguishable from a fresh one. Pure function: safe from any thread.
#pragma once

#include "core/attributes.h"

namespace signet::core {

// CompleteKeyPairAttributes copies the attributes the public key determines
// (`derived`, from PublicKeyAttributes) into both templates (CKA_MODULUS_BITS
// and DH's CKA_VALUE, y, into the public one only), then applies the object defaults with
// CKA_LOCAL = true and CKA_KEY_GEN_MECHANISM = `mechanism` (PKCS#11 §4.7).
void CompleteKeyPairAttributes(const AttributeMap& derived, CK_MECHANISM_TYPE mechanism,
                               AttributeMap& pub, AttributeMap& priv);

}  // namespace signet::core
