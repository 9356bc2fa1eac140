// Internal to crypto/: the one table that describes each KeyType (its
// KeySpec name, OpenSSL key and group names, CKA_EC_PARAMS DER and field
// size). keys.cc, sign.cc and ecdsa_format.cc read it; nobody else should.
// Immutable static data: safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "crypto/keys.h"

namespace signet::crypto::internal {

struct KeyTypeInfo {
  KeyType type;
  std::string_view spec_name;                   // "rsa", "ec:p256", "ed25519"
  const char* ossl_type;                        // EVP_PKEY type name: "RSA", "EC", "ED25519"
  const char* group_name;                       // OpenSSL group for EC keys, else nullptr
  int nid;                                      // curve NID for EC keys, else NID_undef
  std::span<const std::uint8_t> ec_params_der;  // DER OID; empty for RSA
  std::size_t field_bytes;  // EC field size in bytes; the raw key size of the others
};

// IsRawKey: the types OpenSSL holds as raw byte strings (Ed25519, X25519,
// X448: EVP_PKEY_new_raw_*_key), whose public and private keys are both
// field_bytes long.
bool IsRawKey(KeyType type);

// InfoFor returns the table row for `type` (every KeyType has one).
const KeyTypeInfo& InfoFor(KeyType type);

// InfoForCurveNid returns the EC row whose curve is `nid`, or nullptr.
const KeyTypeInfo* InfoForCurveNid(int nid);

// AllKeyTypes lists every row, for tests and lookups.
std::span<const KeyTypeInfo> AllKeyTypes();

}  // namespace signet::crypto::internal

namespace signet::crypto::internal {

// SpecOfPkey reads the KeySpec of a parsed key. CKR_KEY_TYPE_INCONSISTENT for
// key types signet does not support (RSA-PSS-restricted, DSA, Ed448, ...),
// CKR_CURVE_NOT_SUPPORTED for other curves, CKR_KEY_SIZE_RANGE for RSA
// moduli outside 512-16384 bits.
Result<KeySpec> SpecOfPkey(const EVP_PKEY* pkey);

// EcKeypairFromParts builds the key pair of the ECDSA curve `type` from its
// private scalar d (big-endian) and its public point (04||X||Y), which the
// caller computed from d: it is not checked against d here.
// CKR_ATTRIBUTE_VALUE_INVALID when OpenSSL refuses the parts.
Result<EvpPkeyPtr> EcKeypairFromParts(KeyType type, ByteView d, ByteView public_point);

}  // namespace signet::crypto::internal
