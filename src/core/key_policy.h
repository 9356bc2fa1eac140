// The key-management policy that stops the published PKCS#11 key-extraction
// attacks (Clulow 2003; Delaune, Kremer and Steel 2008; Bortolozzo,
// Centenaro, Focardi and Steel 2010, "Tookan"): each of them turns a legal
// sequence of calls into a sensitive key's value, and PKCS#11 itself leaves
// their prevention to the token. docs/PKCS11.md "Key-management policy"
// gives the attacks and why each rule stops its attack.
// Pure functions over attribute maps: safe from any thread.
#pragma once

#include "core/object.h"
#include "signet/result.hpp"

namespace signet::core {

// CheckKeyRoles: a key either protects data (CKA_ENCRYPT / CKA_DECRYPT) or
// protects keys (CKA_WRAP / CKA_UNWRAP), never both, so a wrapped key can
// never be decrypted as data, nor data unwrapped into a key of known value.
// Checked wherever a key's attributes are set: every object that is
// stored (create, generate, unwrap, derive, copy) and every
// C_SetAttributeValue. CKR_TEMPLATE_INCONSISTENT. A key whose value the
// caller may read (CKA_SENSITIVE FALSE and CKA_EXTRACTABLE TRUE) may hold
// both, as pkcs11-tool --derive asks: keeping its roles apart hides
// nothing, and being readable it never wraps a sensitive key
// (MayWrapSensitiveKeys); made sensitive or unextractable, it must drop one.
// The rule is for secret keys, one object holding both roles. A key pair's
// private half may decrypt and unwrap (NSS and Firefox generate RSA keys so):
// wrap-then-decrypt with a pair needs a sensitive key wrapped under the
// public half, which MayWrapSensitiveKeys allows only when the SO made that
// public key CKA_TRUSTED.
Status CheckKeyRoles(const AttributeMap& attrs);

// ApplyKeyRoleDefaults fills the role flags a secret key's template leaves
// out so that CheckKeyRoles holds: a template that asks for a key role
// (CKA_WRAP or CKA_UNWRAP TRUE) gets no data role by default, any other
// gets no key role (PKCS#11 leaves these defaults to the token).
void ApplyKeyRoleDefaults(AttributeMap& attrs);

// MayWrapSensitiveKeys: may `wrapping_key` wrap a key with CKA_SENSITIVE
// TRUE? Only when no one outside can know its value: generated here
// (CKA_LOCAL) and never extractable, or marked CKA_TRUSTED by the SO. A key
// imported or unwrapped by an application cannot, nor can a derived one: a
// key agreement's peer knows the shared secret (CKA_NEVER_EXTRACTABLE of a
// derived key follows its base key, PKCS#11 §4.10, and says nothing of that).
bool MayWrapSensitiveKeys(const AttributeMap& wrapping_key);

// CheckUnwrapSensitivity: a key unwrapped under a key that may wrap
// sensitive keys is itself sensitive, since the blob may be one of them
// re-imported (the key is made CKA_SENSITIVE TRUE; a template asking for
// FALSE is CKR_TEMPLATE_INCONSISTENT). `attrs` is the new key's template.
Status CheckUnwrapSensitivity(const AttributeMap& unwrapping_key, AttributeMap& attrs);

}  // namespace signet::core
