// Object classes: the one table of which attributes each PKCS#11 object
// class has (PKCS#11 v2.40 §4.4-§4.10 and the mechanism chapters' key
// tables), with each attribute's default and the tables' footnotes that
// signet enforces: "must be specified when the object is created" (1),
// "may be modified" (8), "may change on C_CopyObject" (CKA_TOKEN & co.),
// and the one-way switches (11: cannot change once TRUE, 12: once FALSE).
//
// Who reads it: object creation (defaults and required attributes),
// C_CopyObject and C_SetAttributeValue (what may change),
// C_GetAttributeValue (CKR_ATTRIBUTE_TYPE_INVALID only for attributes the
// class does not have), and TokenSlot when it loads records written before
// an attribute had a default. Immutable static data and pure functions:
// safe from any thread.
#pragma once

#include <optional>

#include "core/attributes.h"

namespace signet::core {

// ClassAttributeFlags: the specification's footnotes, as bits.
enum ClassAttributeFlags : unsigned {
  kRequiredOnCreate = 1u << 0,  // footnote 1: C_CreateObject needs it
  kSettable = 1u << 1,          // footnote 8: C_SetAttributeValue and C_CopyObject may change it
  kCopyChangeable = 1u << 2,    // C_CopyObject may change it (§5.7: CKA_TOKEN, CKA_PRIVATE, ...)
  kLatchedTrue = 1u << 3,       // footnote 11: cannot change once TRUE
  kLatchedFalse = 1u << 4,      // footnote 12: cannot change once FALSE
  kComputed = 1u << 5,          // set by the token only (footnotes 2 and 4)
};

// ClassHasAttribute: true when objects of the class described by `attrs`
// (CKA_CLASS, CKA_KEY_TYPE, CKA_CERTIFICATE_TYPE) have attribute `type`.
bool ClassHasAttribute(const AttributeMap& attrs, CK_ATTRIBUTE_TYPE type);

// ClassAttributeFlagsOf returns the footnote bits of `type` for the class
// described by `attrs`; nullopt when the class does not have it.
std::optional<unsigned> ClassAttributeFlagsOf(const AttributeMap& attrs, CK_ATTRIBUTE_TYPE type);

// ClassDefault returns the value an object of the class described by
// `attrs` has for `type` when nobody gave one; nullopt when the attribute
// has no static default (required or computed ones).
std::optional<Bytes> ClassDefault(const AttributeMap& attrs, CK_ATTRIBUTE_TYPE type);

// FillClassDefaults stores every default of the class described by `attrs`
// that `attrs` lacks. Used at creation and when loading stored records
// written before a default existed (no migration needed).
void FillClassDefaults(AttributeMap& attrs);

// CheckTemplateFitsClass: every attribute of a new object's template
// belongs to its class (CKR_TEMPLATE_INCONSISTENT otherwise, PKCS#11 v2.40
// §4.1.3 "an attribute which is appropriate for various types of public
// keys or private keys, but not for secret keys"), and every attribute the
// class needs at C_CreateObject is there (CKR_TEMPLATE_INCOMPLETE).
// `check_required` false: membership only. A private key's CKA_VALUE may be
// signet's PKCS#8 form, which stands in for the type-specific components
// (docs/PKCS11.md).
Status CheckTemplateFitsClass(const AttributeMap& attrs, bool check_required);

// CheckAttributeChange: may an existing object (`attrs`) take `value` for
// `type`? `copy`: during C_CopyObject (which may also change CKA_TOKEN,
// CKA_PRIVATE, CKA_MODIFIABLE, CKA_DESTROYABLE). An unchanged value is
// always allowed. `missing_rv`: the code for an attribute the class does not
// have (CKR_ATTRIBUTE_TYPE_INVALID on set, CKR_TEMPLATE_INCONSISTENT on
// copy). CKR_ATTRIBUTE_READ_ONLY for a read-only or latched attribute.
Status CheckAttributeChange(const AttributeMap& attrs, CK_ATTRIBUTE_TYPE type, const Bytes& value,
                            bool copy, CK_RV missing_rv);

// CheckMechanismAllowed: CKR_MECHANISM_INVALID when the key's
// CKA_ALLOWED_MECHANISMS is non-empty and lacks `mechanism` (PKCS#11 v2.40
// §4.7: an empty or absent list allows every mechanism).
Status CheckMechanismAllowed(const AttributeMap& key, CK_MECHANISM_TYPE mechanism);

// CheckFitsGeneratedClass: CheckTemplateFitsClass (membership only) for a
// generation template of class `cls` and key type `key_type`.
Status CheckFitsGeneratedClass(const AttributeMap& tmpl, CK_OBJECT_CLASS cls, CK_KEY_TYPE key_type);

}  // namespace signet::core
