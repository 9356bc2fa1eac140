// Conversions between the PKCS#11 C ABI and the client library's types, and
// the specification's rules for caller-supplied output buffers. Pure
// functions; safe from any thread.
#pragma once

#include <p11-kit/pkcs11.h>

#include <cstddef>
#include <string_view>

#include "base/secure_bytes.h"
#include "signet/attribute_array.hpp"
#include "signet/client.hpp"

namespace signet::pkcs11 {

// WriteOutput returns `data` to a caller by PKCS#11 v2.40 §5.2's rules:
// out == NULL → *out_len = size, CKR_OK (a length query); *out_len too small
// → *out_len = size, CKR_BUFFER_TOO_SMALL; else copies and sets *out_len.
// CKR_ARGUMENTS_BAD when out_len is NULL.
CK_RV WriteOutput(ByteView data, CK_BYTE_PTR out, CK_ULONG_PTR out_len);

// KeepsOperation: true when WriteOutput's result `rv` leaves the operation
// active (§5.2: a length query or a too-small buffer did not consume the
// output).
inline bool KeepsOperation(CK_RV rv, CK_BYTE_PTR out) {
  return rv == CKR_BUFFER_TOO_SMALL || (rv == CKR_OK && out == nullptr);
}

// PadCopy writes `text` into a fixed-size, blank-padded, unterminated
// PKCS#11 string field of `size` bytes (truncating).
void PadCopy(std::string_view text, unsigned char* field, std::size_t size);

// TrimPadded reads a blank-padded field (e.g. C_InitToken's 32-byte label).
std::string_view TrimPadded(const unsigned char* field, std::size_t size);

// ToTemplate copies a caller's attribute array. CKR_ARGUMENTS_BAD for a NULL
// array with a non-zero count or a NULL value with a non-zero length.
// Template-valued attributes (CKA_WRAP_TEMPLATE, CKA_UNWRAP_TEMPLATE,
// CKA_DERIVE_TEMPLATE) travel in signet/attribute_array.hpp's byte form
// (CKR_ATTRIBUTE_VALUE_INVALID when not an array of CK_ATTRIBUTE);
// CKA_ALLOWED_MECHANISMS as its C bytes; other CKF_ARRAY_ATTRIBUTE types are
// CKR_ATTRIBUTE_TYPE_INVALID.
[[nodiscard]] Result<client::Template> ToTemplate(CK_ATTRIBUTE_PTR attrs, CK_ULONG count);

// ToMechanism copies a CK_MECHANISM with its parameter in the typed form
// the mechanism table names (base/mechanism_table.h ParamKind):
// CK_RSA_PKCS_PSS_PARAMS for the PSS family, CK_GCM_PARAMS for CKM_AES_GCM,
// CK_AES_CTR_PARAMS for CKM_AES_CTR; other parameters (IVs) as their bytes.
// CKR_ARGUMENTS_BAD for NULL; CKR_MECHANISM_PARAM_INVALID for a parameter of
// the wrong size or a missing one that the mechanism needs.
[[nodiscard]] Result<client::Mechanism> ToMechanism(CK_MECHANISM_PTR mechanism);

// KeyHandleRv: functions taking a key name an unknown one
// CKR_KEY_HANDLE_INVALID, where the daemon says CKR_OBJECT_HANDLE_INVALID.
inline CK_RV KeyHandleRv(CK_RV rv) {
  return rv == CKR_OBJECT_HANDLE_INVALID ? CKR_KEY_HANDLE_INVALID : rv;
}

// ToView views a caller's (pointer, length) pair; NULL with length 0 is
// an empty view.
inline ByteView ToView(const CK_BYTE* data, CK_ULONG len) {
  return data == nullptr ? ByteView{} : ByteView{data, len};
}

}  // namespace signet::pkcs11
