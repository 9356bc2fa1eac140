#include "core/attributes.h"

#include <algorithm>
#include <cstring>

#include "signet/attribute_array.hpp"

namespace signet::core {
namespace {

using S = AttrShape;

// Sorted by type so FindAttributeRule can binary-search.
constexpr AttributeRule kRules[] = {
    // type                      name                     shape     secret derived
    {CKA_CLASS, "CKA_CLASS", S::kUlong, false, false},
    {CKA_TOKEN, "CKA_TOKEN", S::kBool, false, false},
    {CKA_PRIVATE, "CKA_PRIVATE", S::kBool, false, false},
    {CKA_LABEL, "CKA_LABEL", S::kBytes, false, false},
    {CKA_UNIQUE_ID, "CKA_UNIQUE_ID", S::kBytes, false, true},
    {CKA_APPLICATION, "CKA_APPLICATION", S::kBytes, false, false},
    {CKA_VALUE, "CKA_VALUE", S::kBytes, false, false},
    {CKA_OBJECT_ID, "CKA_OBJECT_ID", S::kBytes, false, false},
    {CKA_CERTIFICATE_TYPE, "CKA_CERTIFICATE_TYPE", S::kUlong, false, false},
    {CKA_ISSUER, "CKA_ISSUER", S::kBytes, false, false},
    {CKA_SERIAL_NUMBER, "CKA_SERIAL_NUMBER", S::kBytes, false, false},
    {CKA_TRUSTED, "CKA_TRUSTED", S::kBool, false, false},
    {CKA_CERTIFICATE_CATEGORY, "CKA_CERTIFICATE_CATEGORY", S::kUlong, false, false},
    {CKA_JAVA_MIDP_SECURITY_DOMAIN, "CKA_JAVA_MIDP_SECURITY_DOMAIN", S::kUlong, false, false},
    {CKA_URL, "CKA_URL", S::kBytes, false, false},
    {CKA_HASH_OF_SUBJECT_PUBLIC_KEY, "CKA_HASH_OF_SUBJECT_PUBLIC_KEY", S::kBytes, false, false},
    {CKA_HASH_OF_ISSUER_PUBLIC_KEY, "CKA_HASH_OF_ISSUER_PUBLIC_KEY", S::kBytes, false, false},
    {CKA_NAME_HASH_ALGORITHM, "CKA_NAME_HASH_ALGORITHM", S::kUlong, false, false},
    {CKA_CHECK_VALUE, "CKA_CHECK_VALUE", S::kBytes, false, true},
    {CKA_KEY_TYPE, "CKA_KEY_TYPE", S::kUlong, false, false},
    {CKA_SUBJECT, "CKA_SUBJECT", S::kBytes, false, false},
    {CKA_ID, "CKA_ID", S::kBytes, false, false},
    {CKA_SENSITIVE, "CKA_SENSITIVE", S::kBool, false, false},
    {CKA_ENCRYPT, "CKA_ENCRYPT", S::kBool, false, false},
    {CKA_DECRYPT, "CKA_DECRYPT", S::kBool, false, false},
    {CKA_WRAP, "CKA_WRAP", S::kBool, false, false},
    {CKA_UNWRAP, "CKA_UNWRAP", S::kBool, false, false},
    {CKA_SIGN, "CKA_SIGN", S::kBool, false, false},
    {CKA_SIGN_RECOVER, "CKA_SIGN_RECOVER", S::kBool, false, false},
    {CKA_VERIFY, "CKA_VERIFY", S::kBool, false, false},
    {CKA_VERIFY_RECOVER, "CKA_VERIFY_RECOVER", S::kBool, false, false},
    {CKA_DERIVE, "CKA_DERIVE", S::kBool, false, false},
    {CKA_START_DATE, "CKA_START_DATE", S::kBytes, false, false},
    {CKA_END_DATE, "CKA_END_DATE", S::kBytes, false, false},
    {CKA_MODULUS, "CKA_MODULUS", S::kBytes, false, true},
    {CKA_MODULUS_BITS, "CKA_MODULUS_BITS", S::kUlong, false, false},
    {CKA_PUBLIC_EXPONENT, "CKA_PUBLIC_EXPONENT", S::kBytes, false, false},
    {CKA_PRIVATE_EXPONENT, "CKA_PRIVATE_EXPONENT", S::kBytes, true, false},
    {CKA_PRIME_1, "CKA_PRIME_1", S::kBytes, true, false},
    {CKA_PRIME_2, "CKA_PRIME_2", S::kBytes, true, false},
    {CKA_EXPONENT_1, "CKA_EXPONENT_1", S::kBytes, true, false},
    {CKA_EXPONENT_2, "CKA_EXPONENT_2", S::kBytes, true, false},
    {CKA_COEFFICIENT, "CKA_COEFFICIENT", S::kBytes, true, false},
    {CKA_PUBLIC_KEY_INFO, "CKA_PUBLIC_KEY_INFO", S::kBytes, false, true},
    {CKA_PRIME, "CKA_PRIME", S::kBytes, false, false},
    {CKA_BASE, "CKA_BASE", S::kBytes, false, false},
    {CKA_VALUE_BITS, "CKA_VALUE_BITS", S::kUlong, false, true},
    {CKA_VALUE_LEN, "CKA_VALUE_LEN", S::kUlong, false, false},
    {CKA_EXTRACTABLE, "CKA_EXTRACTABLE", S::kBool, false, false},
    {CKA_LOCAL, "CKA_LOCAL", S::kBool, false, true},
    {CKA_NEVER_EXTRACTABLE, "CKA_NEVER_EXTRACTABLE", S::kBool, false, true},
    {CKA_ALWAYS_SENSITIVE, "CKA_ALWAYS_SENSITIVE", S::kBool, false, true},
    {CKA_KEY_GEN_MECHANISM, "CKA_KEY_GEN_MECHANISM", S::kUlong, false, true},
    {CKA_MODIFIABLE, "CKA_MODIFIABLE", S::kBool, false, false},
    {CKA_COPYABLE, "CKA_COPYABLE", S::kBool, false, false},
    {CKA_DESTROYABLE, "CKA_DESTROYABLE", S::kBool, false, false},
    {CKA_EC_PARAMS, "CKA_EC_PARAMS", S::kBytes, false, false},
    {CKA_EC_POINT, "CKA_EC_POINT", S::kBytes, false, true},
    {CKA_ALWAYS_AUTHENTICATE, "CKA_ALWAYS_AUTHENTICATE", S::kBool, false, false},
    {CKA_WRAP_WITH_TRUSTED, "CKA_WRAP_WITH_TRUSTED", S::kBool, false, false},
    {CKA_WRAP_TEMPLATE, "CKA_WRAP_TEMPLATE", S::kTemplate, false, false},
    {CKA_UNWRAP_TEMPLATE, "CKA_UNWRAP_TEMPLATE", S::kTemplate, false, false},
    {CKA_DERIVE_TEMPLATE, "CKA_DERIVE_TEMPLATE", S::kTemplate, false, false},
    {CKA_ALLOWED_MECHANISMS, "CKA_ALLOWED_MECHANISMS", S::kUlongArray, false, false},
};

// ValueFits: is `value` laid out as `rule` says? A template-valued
// attribute must decode, and its attributes must pass ValidateTemplate.
bool ValueFits(const AttributeRule& rule, const Bytes& value) {
  switch (rule.shape) {
    case S::kBool:
      return value.size() == sizeof(CK_BBOOL);
    case S::kUlong:
      return value.size() == sizeof(CK_ULONG);
    case S::kBytes:
      return true;
    case S::kUlongArray:
      return value.size() % sizeof(CK_ULONG) == 0;
    case S::kTemplate:
      return DecodeTemplateValue(value).ok();
  }
  return false;
}

}  // namespace

Result<Template> DecodeTemplateValue(ByteView value) {
  std::optional<std::vector<NestedAttribute>> nested = DecodeAttributeArray(value);
  if (!nested) return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "malformed attribute template");
  Template out;
  for (NestedAttribute& a : *nested) out.push_back({a.type, std::move(a.value)});
  SIGNET_TRY(ValidateTemplate(out));
  return out;
}

std::vector<CK_MECHANISM_TYPE> UlongArray(const AttributeMap& attrs, CK_ATTRIBUTE_TYPE type) {
  std::vector<CK_MECHANISM_TYPE> out;
  auto it = attrs.find(type);
  if (it == attrs.end()) return out;
  out.resize(it->second.size() / sizeof(CK_ULONG));
  if (!out.empty()) std::memcpy(out.data(), it->second.data(), out.size() * sizeof(CK_ULONG));
  return out;
}

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
    if (!ValueFits(*rule, a.value)) {
      return MakeError(CKR_ATTRIBUTE_VALUE_INVALID,
                       std::string(rule->name) + " has a malformed value");
    }
    auto [it, inserted] = out.emplace(a.type, a.value);
    if (!inserted && it->second != a.value) {
      return MakeError(CKR_TEMPLATE_INCONSISTENT, std::string(rule->name) + " given twice");
    }
  }
  return out;
}

bool BoolOr(const AttributeMap& attrs, CK_ATTRIBUTE_TYPE type, bool fallback) {
  return FindBool(attrs, type).value_or(fallback);
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
