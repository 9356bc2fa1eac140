// ExportPrivateComponent: one component of a private key in PKCS#11's
// attribute form (big-endian integers), for C_GetAttributeValue on a key
// whose CKA_SENSITIVE is false and CKA_EXTRACTABLE true (PKCS#11 v2.40 §4.9
// footnote 7: only such keys reveal them). The caller owns the wiped buffer.
// Pure function: safe from any thread.
#pragma once

#include "crypto/keys.h"
#include "base/secure_bytes.h"

namespace signet::crypto {

enum class PrivateComponent {
  kRsaPrivateExponent,  // CKA_PRIVATE_EXPONENT
  kRsaPrime1,           // CKA_PRIME_1
  kRsaPrime2,           // CKA_PRIME_2
  kRsaExponent1,        // CKA_EXPONENT_1
  kRsaExponent2,        // CKA_EXPONENT_2
  kRsaCoefficient,      // CKA_COEFFICIENT
  kEcValue,             // CKA_VALUE: the scalar d (field-size bytes) or Ed25519's 32-byte key
                        // (or a DH key's x, its own length)
};

// ExportPrivateComponent returns `which` of `key`. CKR_KEY_TYPE_INCONSISTENT
// when the key has no such component (an RSA component of an EC key, or an
// RSA key held without its CRT values); CKR_FUNCTION_FAILED when OpenSSL fails.
Result<SecureBytes> ExportPrivateComponent(const PrivateKey& key, PrivateComponent which);

}  // namespace signet::crypto
