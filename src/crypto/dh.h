// Finite-field Diffie-Hellman (PKCS #3, PKCS#11 v2.40 section 2.5's CKK_DH,
// CKM_DH_PKCS_KEY_PAIR_GEN and CKM_DH_PKCS_DERIVE) in the RFC 7919 groups
// ffdhe2048, ffdhe3072, ffdhe4096, ffdhe6144 and ffdhe8192 only: a group is recognised by the
// values of its prime and base, and any other group is refused, so signet
// never runs DH in a group whose order it cannot trust (RFC 7919 section 1).
// Keys are PrivateKey / PublicKey of the kDhFfdhe* key types (keys.h).
//
// Shared secrets leave only as SecureBytes. Every function is safe to call
// from any thread.
#pragma once

#include <cstddef>

#include "base/secure_bytes.h"
#include "crypto/keys.h"
#include "signet/result.hpp"

namespace signet::crypto {

// DhGroup: a group's public values, big-endian without leading zeros
// (PKCS#11 CKA_PRIME and CKA_BASE).
struct DhGroup {
  Bytes prime;
  Bytes base;
};

// DhGroupValues returns the prime and base of the DH key type `type`;
// CKR_KEY_TYPE_INCONSISTENT when `type` is not one.
Result<DhGroup> DhGroupValues(KeyType type);

// DhGroupOf maps CKA_PRIME and CKA_BASE (leading zero bytes allowed) to
// the RFC 7919 group they are; CKR_ATTRIBUTE_VALUE_INVALID for any other
// prime or base, of any size (docs/PKCS11.md "Diffie-Hellman").
Result<KeyType> DhGroupOf(ByteView prime, ByteView base);

// DhMinPrivateBits: the shortest private value signet makes in the group,
// RFC 7919 section 5.2's exponent sizes (225, 275, 325, 375 and 400 bits); 0 when
// `type` is not a DH group.
std::size_t DhMinPrivateBits(KeyType type);

// DhPublicValue returns y = g^x mod p of a DH public key (PKCS#11
// CKA_VALUE of the public key), big-endian without leading zeros;
// CKR_KEY_TYPE_INCONSISTENT for other keys.
Result<Bytes> DhPublicValue(const PublicKey& key);

// DhPrivateValueBits returns the length in bits of a DH private key's x
// (PKCS#11 CKA_VALUE_BITS); CKR_KEY_TYPE_INCONSISTENT for other keys.
Result<std::size_t> DhPrivateValueBits(const PrivateKey& key);

// DhSharedSecret computes Z = peer^x mod p for the private key `own` and
// the other party's public value `peer` (big-endian), as many bytes as
// the prime (leading zeros kept: NIST SP 800-56A's fixed-length Z, as
// SoftHSMv2 gives it). CKR_KEY_TYPE_INCONSISTENT when `own` is not a DH
// key; CKR_MECHANISM_PARAM_INVALID unless 1 < peer < p - 1 (SP 800-56A
// section 5.6.2.3.1's partial check; a full one follows, whether peer is in
// the prime-order subgroup).
Result<SecureBytes> DhSharedSecret(const PrivateKey& own, ByteView peer);

}  // namespace signet::crypto
