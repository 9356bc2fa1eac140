// Attribute rules: the one table that says, for every PKCS#11 attribute
// signet knows, its value shape and whether it is a secret component (never
// returned while the key is sensitive, PKCS#11 §4.9). Which class has which
// attribute, its default and whether it may change: core/object_classes.h.
// Every layer that checks templates reads these; nobody copies a switch
// over attribute types.
//
// Also: helpers to read/write CK_ULONG and CK_BBOOL values in their C ABI
// byte form (the form the wire, the keystore and the PKCS#11 module use).
// Immutable static data and pure functions: safe from any thread.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "keystore/attribute_codec.h"
#include "keystore/token.h"
#include "signet/protocol.hpp"  // the PKCS#11 3.0 numbers p11-kit lacks (CKA_UNIQUE_ID)

namespace signet::core {

using keystore::AttributeMap;

// AttrShape: how an attribute's value is laid out. kUlongArray: an array
// of CK_ULONG (CKA_ALLOWED_MECHANISMS); kTemplate: an array of attributes
// in signet/attribute_array.hpp's byte form.
enum class AttrShape { kBool, kUlong, kBytes, kUlongArray, kTemplate };

struct AttributeRule {
  CK_ATTRIBUTE_TYPE type;
  std::string_view name;
  AttrShape shape;
  bool secret;   // a secret key component: never readable, never stored in clear
  bool derived;  // computed by the token; a template may not set it on generation
};

// FindAttributeRule returns the rule for `type`, or nullptr for types signet
// does not know (templates naming them fail with CKR_ATTRIBUTE_TYPE_INVALID).
const AttributeRule* FindAttributeRule(CK_ATTRIBUTE_TYPE type);

// AllAttributeRules lists the table, for tests.
std::span<const AttributeRule> AllAttributeRules();

// Attribute and Template: attributes as a client sent them, in order (may
// repeat types).
struct Attribute {
  CK_ATTRIBUTE_TYPE type;
  Bytes value;
};
using Template = std::vector<Attribute>;

// ValidateTemplate checks every attribute against the table and converts the
// template into a map. CKR_ATTRIBUTE_TYPE_INVALID for unknown types,
// CKR_ATTRIBUTE_VALUE_INVALID for a value of the wrong size (or a
// template-valued attribute that is malformed or holds invalid attributes),
// CKR_TEMPLATE_INCONSISTENT when a type repeats with different values.
Result<AttributeMap> ValidateTemplate(const Template& tmpl);

// DecodeTemplateValue reads a template-valued attribute (CKA_WRAP_TEMPLATE,
// ...; signet/attribute_array.hpp's form) and validates its attributes as
// ValidateTemplate does. CKR_ATTRIBUTE_VALUE_INVALID when malformed.
Result<Template> DecodeTemplateValue(ByteView value);

// UlongArray reads an array-of-CK_ULONG attribute (CKA_ALLOWED_MECHANISMS);
// empty when absent.
std::vector<CK_ULONG> UlongArray(const AttributeMap& attrs, CK_ATTRIBUTE_TYPE type);

// The byte form of values (UlongBytes, BoolBytes: signet/types.hpp) and
// reading them out of a map (FindUlong, FindBool: keystore/attribute_codec.h).
using keystore::FindBool;
using keystore::FindUlong;

// BoolOr: the boolean, or `fallback` when absent.
bool BoolOr(const AttributeMap& attrs, CK_ATTRIBUTE_TYPE type, bool fallback);

// SetDefault stores `value` under `type` unless the map already has it.
void SetDefault(AttributeMap& attrs, CK_ATTRIBUTE_TYPE type, Bytes value);

// Matches: true when every attribute of `tmpl` is present in `attrs` with
// an equal value (C_FindObjects matching, PKCS#11 §5.7).
bool Matches(const AttributeMap& attrs, const AttributeMap& tmpl);

}  // namespace signet::core
