// The byte form of PKCS#11's template-valued attributes (CKA_WRAP_TEMPLATE,
// CKA_UNWRAP_TEMPLATE, CKA_DERIVE_TEMPLATE: CKF_ARRAY_ATTRIBUTE types whose
// value is an array of CK_ATTRIBUTE). A C array of CK_ATTRIBUTE holds
// pointers, so the module turns it into this form for the wire, the daemon
// stores it as is, and the module turns it back into the caller's array on
// C_GetAttributeValue (PKCS#11 v2.40 §4.1.4, §5.7).
//
// Form: for each attribute in order, its type as a CK_ULONG, its value's
// length as a CK_ULONG (both in the C ABI byte form the wire uses for every
// CK_ULONG value), then the value bytes. Nested arrays are not allowed.
// CKA_ALLOWED_MECHANISMS (an array of CK_MECHANISM_TYPE, no pointers) keeps
// its C ABI bytes. Header-only pure functions: safe from any thread.
#pragma once

#include <p11-kit/pkcs11.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

namespace signet {

// NestedAttribute: one element of a template-valued attribute.
struct NestedAttribute {
  CK_ATTRIBUTE_TYPE type = 0;
  std::vector<std::uint8_t> value;
};

// IsTemplateAttribute: true for the three attributes whose value is an
// array of CK_ATTRIBUTE.
inline bool IsTemplateAttribute(CK_ATTRIBUTE_TYPE type) {
  return type == CKA_WRAP_TEMPLATE || type == CKA_UNWRAP_TEMPLATE || type == CKA_DERIVE_TEMPLATE;
}

// EncodeAttributeArray returns the byte form of `attrs`.
inline std::vector<std::uint8_t> EncodeAttributeArray(const std::vector<NestedAttribute>& attrs) {
  std::vector<std::uint8_t> out;
  for (const NestedAttribute& a : attrs) {
    const CK_ULONG head[2] = {a.type, static_cast<CK_ULONG>(a.value.size())};
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(head);
    out.insert(out.end(), bytes, bytes + sizeof head);
    out.insert(out.end(), a.value.begin(), a.value.end());
  }
  return out;
}

// DecodeAttributeArray parses the byte form; nullopt when it is malformed
// (truncated, or a nested CKF_ARRAY_ATTRIBUTE type).
inline std::optional<std::vector<NestedAttribute>> DecodeAttributeArray(
    std::span<const std::uint8_t> bytes) {
  std::vector<NestedAttribute> out;
  std::size_t at = 0;
  while (at < bytes.size()) {
    CK_ULONG head[2];
    if (bytes.size() - at < sizeof head) return std::nullopt;
    std::memcpy(head, bytes.data() + at, sizeof head);
    at += sizeof head;
    if ((head[0] & CKF_ARRAY_ATTRIBUTE) != 0 || head[1] > bytes.size() - at) return std::nullopt;
    out.push_back(
        {head[0], std::vector<std::uint8_t>(bytes.begin() + at, bytes.begin() + at + head[1])});
    at += head[1];
  }
  return out;
}

}  // namespace signet
