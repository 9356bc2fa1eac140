// ObjectRecord: what core/ knows about one object (token or session): its
// attributes, and for session keys the key material held in memory. A
// record is immutable once shared; a change builds a new record and swaps
// the pointer, so readers on other threads never see a half-updated object.
//
// Also the rules that turn a key into its PKCS#11 attributes (CKA_MODULUS,
// CKA_EC_POINT, ...) and back (a PublicKey from a public key object).
// Pure functions: safe from any thread.
#pragma once

#include <memory>

#include "core/attributes.h"
#include "crypto/keys.h"

namespace signet::core {

struct ObjectRecord {
  AttributeMap attributes;  // never holds a secret value of a key
  // Session keys only: the private key (parsed) or the secret key value.
  std::shared_ptr<const keystore::UnwrappedKey> session_secret;
  bool has_secret = false;  // token or session: a secret value exists

  CK_OBJECT_CLASS object_class() const {
    return FindUlong(attributes, CKA_CLASS).value_or(CKO_DATA);
  }
  CK_KEY_TYPE key_type() const {
    return FindUlong(attributes, CKA_KEY_TYPE).value_or(CKK_VENDOR_DEFINED);
  }
  bool is_token() const { return BoolOr(attributes, CKA_TOKEN, false); }
  bool is_private() const { return BoolOr(attributes, CKA_PRIVATE, false); }
};

using RecordPtr = std::shared_ptr<const ObjectRecord>;

// DerOctetString wraps `bytes` in a DER OCTET STRING (CKA_EC_POINT's form).
Bytes DerOctetString(ByteView bytes);

// PkcsKeyType maps a crypto key type to CKK_RSA / CKK_EC / CKK_EC_EDWARDS /
// CKK_EC_MONTGOMERY / CKK_DH.
CK_KEY_TYPE PkcsKeyType(crypto::KeyType type);

// CheckDaemonKeyType refuses the key types crypto/ offers to the benchmarks
// only (crypto::IsBenchOnly: secp192r1, 80-bit security) with
// CKR_CURVE_NOT_SUPPORTED. Called wherever a key enters the daemon: key
// pair generation, object import and unwrap, the key pool's --pool list
// (docs/PKCS11.md "Curves").
Status CheckDaemonKeyType(crypto::KeyType type);

// PublicKeyAttributes returns the attributes a public key determines:
// CKA_KEY_TYPE, CKA_PUBLIC_KEY_INFO (the SubjectPublicKeyInfo DER), and
// CKA_MODULUS, CKA_MODULUS_BITS, CKA_PUBLIC_EXPONENT (RSA) or CKA_EC_PARAMS,
// CKA_EC_POINT (EC, EdDSA), or CKA_PRIME, CKA_BASE, CKA_VALUE = y (DH).
Result<AttributeMap> PublicKeyAttributes(const crypto::PublicKey& key);

// PrivateKeyAttributes returns the attributes a private key determines:
// its public key's, less those of public keys only (CKA_MODULUS_BITS, DH's
// CKA_VALUE), and a DH key's CKA_VALUE_BITS (x's length).
Result<AttributeMap> PrivateKeyAttributes(const crypto::PrivateKey& key);

// PublicKeyFromAttributes rebuilds a public key from a key object's
// attributes. CKR_KEY_TYPE_INCONSISTENT when they do not describe one.
Result<crypto::PublicKey> PublicKeyFromAttributes(const AttributeMap& attrs);

}  // namespace signet::core
