// Internal to crypto/: ECDSA on secp256k1 through libsecp256k1 (Bitcoin
// Core's constant-time library for this one curve), which signs more than
// ten times faster than OpenSSL's generic prime-curve code
// (docs/PERFORMANCE.md "secp256k1 through libsecp256k1 (issue 16)").
// sign.cc sends secp256k1 ECDSA here unless SignParams::engine asks for
// OpenSSL; keys.cc generates secp256k1 keys here. The keys stay EVP_PKEYs
// for the rest of signet (PKCS#8, SubjectPublicKeyInfo, keystore wrapping):
// PrivateKey and PublicKey keep the forms libsecp256k1 works on beside
// them, made once when the key object is built.
//
// Thread contract: one process-wide libsecp256k1 context, created and
// randomised once on first use, afterwards only ever passed as const.
// libsecp256k1 documents a context used through const pointers as safe
// from many threads at once (secp256k1.h, secp256k1_context), so signing
// and verifying take no lock. Secp256k1Secret and Secp256k1Point are
// immutable once built.
#pragma once

#include <memory>

#include "crypto/ossl_ptr.h"
#include "crypto/sign.h"
#include "signet/result.hpp"

namespace signet::crypto::internal {

// Secp256k1Secret: the 32-byte private scalar of a secp256k1 key,
// big-endian, copied once out of the EVP_PKEY so that a signature does not
// extract it again; wiped (explicit_bzero) when destroyed. Defined in
// secp256k1_ecdsa.cc.
class Secp256k1Secret;

// Secp256k1Point: a secp256k1 public key parsed into libsecp256k1's form.
// Defined in secp256k1_ecdsa.cc.
class Secp256k1Point;

// Secp256k1SecretOf reads the private scalar of a secp256k1 EVP_PKEY.
// CKR_ATTRIBUTE_VALUE_INVALID when libsecp256k1 refuses it (0, or not below
// the group order: a PKCS#8 key OpenSSL parses without checking);
// CKR_FUNCTION_FAILED when the key has no private part.
Result<std::shared_ptr<const Secp256k1Secret>> Secp256k1SecretOf(const EVP_PKEY* pkey);

// Secp256k1PointOf parses the public point of a secp256k1 EVP_PKEY.
// CKR_ATTRIBUTE_VALUE_INVALID when libsecp256k1 refuses the point.
Result<std::shared_ptr<const Secp256k1Point>> Secp256k1PointOf(const EVP_PKEY* pkey);

// Secp256k1KeyPair: a new key as the rest of signet holds it and its
// cached scalar.
struct Secp256k1KeyPair {
  EvpPkeyPtr pkey;
  std::shared_ptr<const Secp256k1Secret> secret;
};

// Secp256k1Generate draws a scalar from the DRBG until libsecp256k1
// accepts it (secp256k1_ec_seckey_verify: 0 < d < n; a 32-byte string
// fails with probability about 2^-128), computes d*G with libsecp256k1 and
// builds the EVP_PKEY from both. CKR_FUNCTION_FAILED when the DRBG or
// OpenSSL fails.
Result<Secp256k1KeyPair> Secp256k1Generate();

// Secp256k1Sign signs `digest` (any length: ECDSA uses its leftmost 256
// bits, a shorter digest is the big-endian number it spells, as OpenSSL
// reads it) with ECDSA. The nonce is RFC 6979's with 32 fresh DRBG bytes as
// its extra data (section 3.6), so signatures are randomised as OpenSSL's
// are and stay safe if the DRBG is weak. The result is always low-S
// (s <= n/2), in `format`: DER or raw r||s of 2 x 32 bytes.
// CKR_GENERAL_ERROR when `key` is nullptr (a secp256k1 PrivateKey always
// has one); CKR_FUNCTION_FAILED when libsecp256k1 or the DRBG fails.
Result<Bytes> Secp256k1Sign(const Secp256k1Secret* key, ByteView digest, EcdsaFormat format);

// Secp256k1Verify checks `signature` (in `format`) over `digest` (read as
// Secp256k1Sign reads it). A high-S signature is normalised first, so it
// verifies as it does with OpenSSL (libsecp256k1 alone accepts low-S only).
// CKR_SIGNATURE_INVALID when it does not verify or does not parse (DER must
// be strict DER, as OpenSSL requires); CKR_GENERAL_ERROR when `key` is
// nullptr. The caller has checked the signature's length.
Status Secp256k1Verify(const Secp256k1Point* key, ByteView digest, ByteView signature,
                       EcdsaFormat format);

}  // namespace signet::crypto::internal
