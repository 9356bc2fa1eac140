#include "core/attributes.h"

#include <algorithm>
#include <cstring>

namespace signet::core {
namespace {

using S = AttrShape;

// Sorted by type so FindAttributeRule can binary-search.
constexpr AttributeRule kRules[] = {
    // type                      name                     shape     modif  secret derived
    {CKA_CLASS, "CKA_CLASS", S::kUlong, false, false, false},
    {CKA_TOKEN, "CKA_TOKEN", S::kBool, false, false, false},
    {CKA_PRIVATE, "CKA_PRIVATE", S::kBool, false, false, false},
    {CKA_LABEL, "CKA_LABEL", S::kBytes, true, false, false},
    {CKA_APPLICATION, "CKA_APPLICATION", S::kBytes, true, false, false},
    {CKA_VALUE, "CKA_VALUE", S::kBytes, false, false, false},
    {CKA_OBJECT_ID, "CKA_OBJECT_ID", S::kBytes, true, false, false},
    {CKA_CERTIFICATE_TYPE, "CKA_CERTIFICATE_TYPE", S::kUlong, false, false, false},
    {CKA_ISSUER, "CKA_ISSUER", S::kBytes, true, false, false},
    {CKA_SERIAL_NUMBER, "CKA_SERIAL_NUMBER", S::kBytes, true, false, false},
    {CKA_TRUSTED, "CKA_TRUSTED", S::kBool, false, false, false},
    {CKA_CERTIFICATE_CATEGORY, "CKA_CERTIFICATE_CATEGORY", S::kUlong, false, false, false},
    {CKA_CHECK_VALUE, "CKA_CHECK_VALUE", S::kBytes, false, false, true},
    {CKA_KEY_TYPE, "CKA_KEY_TYPE", S::kUlong, false, false, false},
    {CKA_SUBJECT, "CKA_SUBJECT", S::kBytes, true, false, false},
    {CKA_ID, "CKA_ID", S::kBytes, true, false, false},
    {CKA_SENSITIVE, "CKA_SENSITIVE", S::kBool, true, false, false},
    {CKA_ENCRYPT, "CKA_ENCRYPT", S::kBool, true, false, false},
    {CKA_DECRYPT, "CKA_DECRYPT", S::kBool, true, false, false},
    {CKA_WRAP, "CKA_WRAP", S::kBool, true, false, false},
    {CKA_UNWRAP, "CKA_UNWRAP", S::kBool, true, false, false},
    {CKA_SIGN, "CKA_SIGN", S::kBool, true, false, false},
    {CKA_SIGN_RECOVER, "CKA_SIGN_RECOVER", S::kBool, true, false, false},
    {CKA_VERIFY, "CKA_VERIFY", S::kBool, true, false, false},
    {CKA_VERIFY_RECOVER, "CKA_VERIFY_RECOVER", S::kBool, true, false, false},
    {CKA_DERIVE, "CKA_DERIVE", S::kBool, true, false, false},
    {CKA_START_DATE, "CKA_START_DATE", S::kBytes, true, false, false},
    {CKA_END_DATE, "CKA_END_DATE", S::kBytes, true, false, false},
    {CKA_MODULUS, "CKA_MODULUS", S::kBytes, false, false, true},
    {CKA_MODULUS_BITS, "CKA_MODULUS_BITS", S::kUlong, false, false, false},
    {CKA_PUBLIC_EXPONENT, "CKA_PUBLIC_EXPONENT", S::kBytes, false, false, false},
    {CKA_PRIVATE_EXPONENT, "CKA_PRIVATE_EXPONENT", S::kBytes, false, true, false},
    {CKA_PRIME_1, "CKA_PRIME_1", S::kBytes, false, true, false},
    {CKA_PRIME_2, "CKA_PRIME_2", S::kBytes, false, true, false},
    {CKA_EXPONENT_1, "CKA_EXPONENT_1", S::kBytes, false, true, false},
    {CKA_EXPONENT_2, "CKA_EXPONENT_2", S::kBytes, false, true, false},
    {CKA_COEFFICIENT, "CKA_COEFFICIENT", S::kBytes, false, true, false},
    {CKA_PUBLIC_KEY_INFO, "CKA_PUBLIC_KEY_INFO", S::kBytes, false, false, true},
    {CKA_VALUE_BITS, "CKA_VALUE_BITS", S::kUlong, false, false, true},
    {CKA_VALUE_LEN, "CKA_VALUE_LEN", S::kUlong, false, false, false},
    {CKA_EXTRACTABLE, "CKA_EXTRACTABLE", S::kBool, true, false, false},
    {CKA_LOCAL, "CKA_LOCAL", S::kBool, false, false, true},
    {CKA_NEVER_EXTRACTABLE, "CKA_NEVER_EXTRACTABLE", S::kBool, false, false, true},
    {CKA_ALWAYS_SENSITIVE, "CKA_ALWAYS_SENSITIVE", S::kBool, false, false, true},
    {CKA_KEY_GEN_MECHANISM, "CKA_KEY_GEN_MECHANISM", S::kUlong, false, false, true},
    {CKA_MODIFIABLE, "CKA_MODIFIABLE", S::kBool, false, false, false},
    {CKA_COPYABLE, "CKA_COPYABLE", S::kBool, false, false, false},
    {CKA_DESTROYABLE, "CKA_DESTROYABLE", S::kBool, false, false, false},
    {CKA_EC_PARAMS, "CKA_EC_PARAMS", S::kBytes, false, false, false},
    {CKA_EC_POINT, "CKA_EC_POINT", S::kBytes, false, false, true},
    {CKA_ALWAYS_AUTHENTICATE, "CKA_ALWAYS_AUTHENTICATE", S::kBool, false, false, false},
    {CKA_WRAP_WITH_TRUSTED, "CKA_WRAP_WITH_TRUSTED", S::kBool, false, false, false},
};

}  // namespace

const AttributeRule* FindAttributeRule(CK_ATTRIBUTE_TYPE type) {
  auto it =
      std::lower_bound(std::begin(kRules), std::end(kRules), type,
                       [](const AttributeRule& r, CK_ATTRIBUTE_TYPE t) { return r.type < t; });
  return it != std::end(kRules) && it->type == type ? it : nullptr;
}

std::span<const AttributeRule> AllAttributeRules() { return kRules; }

Result<AttributeMap> ValidateTemplate(const Template& tmpl) {
  AttributeMap out;
  for (const Attribute& a : tmpl) {
    const AttributeRule* rule = FindAttributeRule(a.type);
    if (rule == nullptr) {
      return MakeError(CKR_ATTRIBUTE_TYPE_INVALID,
                       "unknown attribute type " + std::to_string(a.type));
    }
    std::size_t want = rule->shape == AttrShape::kBool    ? sizeof(CK_BBOOL)
                       : rule->shape == AttrShape::kUlong ? sizeof(CK_ULONG)
                                                          : a.value.size();
    if (a.value.size() != want) {
      return MakeError(CKR_ATTRIBUTE_VALUE_INVALID,
                       std::string(rule->name) + " has a value of the wrong size");
    }
    auto [it, inserted] = out.emplace(a.type, a.value);
    if (!inserted && it->second != a.value) {
      return MakeError(CKR_TEMPLATE_INCONSISTENT, std::string(rule->name) + " given twice");
    }
  }
  return out;
}

Bytes BoolBytes(bool value) { return Bytes{static_cast<std::uint8_t>(value ? CK_TRUE : CK_FALSE)}; }

Bytes UlongBytes(CK_ULONG value) {
  Bytes out(sizeof(CK_ULONG));
  std::memcpy(out.data(), &value, sizeof value);
  return out;
}

std::optional<bool> GetBool(const AttributeMap& attrs, CK_ATTRIBUTE_TYPE type) {
  auto it = attrs.find(type);
  if (it == attrs.end() || it->second.size() != sizeof(CK_BBOOL)) return std::nullopt;
  return it->second[0] != CK_FALSE;
}

std::optional<CK_ULONG> GetUlong(const AttributeMap& attrs, CK_ATTRIBUTE_TYPE type) {
  auto it = attrs.find(type);
  if (it == attrs.end() || it->second.size() != sizeof(CK_ULONG)) return std::nullopt;
  CK_ULONG value;
  std::memcpy(&value, it->second.data(), sizeof value);
  return value;
}

bool BoolOr(const AttributeMap& attrs, CK_ATTRIBUTE_TYPE type, bool fallback) {
  return GetBool(attrs, type).value_or(fallback);
}

void SetDefault(AttributeMap& attrs, CK_ATTRIBUTE_TYPE type, Bytes value) {
  attrs.emplace(type, std::move(value));
}

bool Matches(const AttributeMap& attrs, const AttributeMap& tmpl) {
  for (const auto& [type, value] : tmpl) {
    auto it = attrs.find(type);
    if (it == attrs.end() || it->second != value) return false;
  }
  return true;
}

}  // namespace signet::core
