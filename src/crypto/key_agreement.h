// Key agreement: elliptic-curve Diffie-Hellman (SEC 1 v2 section 3.3.1, the
// primitive of PKCS#11's CKM_ECDH1_DERIVE and CKM_ECDH1_COFACTOR_DERIVE;
// X25519 and X448 of RFC 7748 for CKK_EC_MONTGOMERY keys)
// and the ANSI X9.63 key derivation function (SEC 1 v2 section 3.6.1,
// PKCS#11's CKD_SHA*_KDF), both through OpenSSL's EVP_PKEY_derive and
// EVP_KDF "X963KDF". The KDF is fetched once per process.
//
// Shared secrets and derived keys leave only as SecureBytes. Every function
// is safe to call from any thread.
#pragma once

#include <cstddef>

#include "base/mechanism_table.h"
#include "base/secure_bytes.h"
#include "crypto/keys.h"
#include "signet/result.hpp"

namespace signet::crypto {

// EcdhSharedSecret computes the x-coordinate of d * Q for the private key
// `own` and the other party's public key `peer` (SEC 1 "Z"), as many bytes
// as the curve's field; for X25519 / X448 the RFC 7748 function's 32 / 56
// bytes. `cofactor`: multiply by the curve's cofactor too (ECC CDH); the
// same result on the prime curves signet offers, whose cofactor is 1, and
// ignored for X25519 / X448, whose scalars clear it. CKR_KEY_TYPE_INCONSISTENT
// when `own` is neither; CKR_MECHANISM_PARAM_INVALID when `peer` is on
// another curve, or the result is the point at infinity or all zero.
Result<SecureBytes> EcdhSharedSecret(const PrivateKey& own, const PublicKey& peer, bool cofactor);

// X963Kdf derives `length` bytes from the shared secret `z` and
// `shared_info` with hash `digest` (ANSI X9.63: Hash(z || counter ||
// shared_info) for counter = 1, 2, ..., big-endian 32 bits).
// CKR_MECHANISM_PARAM_INVALID for kNone or kMd5; CKR_KEY_SIZE_RANGE for a
// zero length.
Result<SecureBytes> X963Kdf(DigestAlg digest, ByteView z, ByteView shared_info, std::size_t length);

}  // namespace signet::crypto
