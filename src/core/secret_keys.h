// Secret key types: which key types signet keeps as secret keys and what
// each one's value must be - AES (16, 24 or 32 bytes), DES (CKK_DES 8
// bytes, CKK_DES2 16, CKK_DES3 24) and generic secrets (CKK_GENERIC_SECRET and the
// PKCS#11 3.0 HMAC key types, 1-1024 bytes) - with the CKA_CHECK_VALUE each
// gets and how a new value is made. Read by C_CreateObject / C_UnwrapKey
// (an imported value) and C_GenerateKey (the length to make).
// Pure functions: safe from any thread.
#pragma once

#include <cstddef>

#include "base/mechanism_table.h"
#include "core/attributes.h"
#include "signet/result.hpp"

namespace signet::core {

// kMaxGenericSecretBytes: the longest generic secret signet stores: the
// shared secret of ffdhe8192, the largest DH group. The HMAC rows and
// CKM_GENERIC_SECRET_KEY_GEN stop at 512 bytes (their rows say so); a longer
// secret serves the derivations (HKDF, concatenation) that follow DH.
inline constexpr std::size_t kMaxGenericSecretBytes = 1024;

// IsDesKeyType: CKK_DES, CKK_DES2 or CKK_DES3, whose bytes' low bits are
// parity bits the cipher ignores.
constexpr bool IsDesKeyType(CK_KEY_TYPE type) {
  return type == CKK_DES || type == CKK_DES2 || type == CKK_DES3;
}

// CheckSecretKeyValue: `value` can be a secret key of `type`.
// CKR_KEY_TYPE_INCONSISTENT for a type signet does not keep as a secret key;
// CKR_ATTRIBUTE_VALUE_INVALID for a length the type does not have.
Status CheckSecretKeyValue(CK_KEY_TYPE type, ByteView value);

// SecretKeyCheckValue returns CKA_CHECK_VALUE of a secret key of `type`
// whose value CheckSecretKeyValue accepted.
Result<Bytes> SecretKeyCheckValue(CK_KEY_TYPE type, ByteView value);

// GeneratedSecretLength reads how many bytes C_GenerateKey makes for the
// key-generation row `rule` from the template's CKA_VALUE_LEN:
// CKR_TEMPLATE_INCOMPLETE without it, CKR_KEY_SIZE_RANGE outside the row's
// range (AES: 16, 24 or 32 bytes; generic secrets: 8-4096 bits, whole bytes).
// DES keys have their type's length (the template has no CKA_VALUE_LEN).
Result<std::size_t> GeneratedSecretLength(const MechanismRow& rule, const AttributeMap& attrs);

// FixedSecretLength: the length every key of `type` has (DES: 8, 16 or 24
// bytes), 0 for types of several lengths.
std::size_t FixedSecretLength(CK_KEY_TYPE type);

// NewSecretValue draws `length` random bytes for a new key of `type`. A
// DES key gets odd parity in every byte (FIPS 46-3), a triple-DES one never two
// equal neighbouring DES keys (K1 = K2 or K2 = K3 would make it single DES).
Result<SecureBytes> NewSecretValue(CK_KEY_TYPE type, std::size_t length);

}  // namespace signet::core
