// How the token backends (daemon and PKCS#11) sign a bench algorithm: the
// PKCS#11 signing mechanism, the key-pair generation mechanism and the
// crypto::SignParams that verify what the token returns, read by
// daemon_backend.cc and pkcs11_backend.cc. The bench chooses the signing
// mechanism per key family; its facts come from the mechanism table.
//
//   RSA:     CKM_SHA256_RSA_PKCS over a 32-byte message (what real clients
//            use; hashing 32 bytes costs well under 1 us)
//   ECDSA:   CKM_ECDSA over the SHA-2 digest, raw r||s signatures
//   Ed25519: CKM_EDDSA over a 32-byte message
// Immutable static data: safe from any thread.
#pragma once

#include <p11-kit/pkcs11.h>

#include <span>

#include "bench/sign_algorithms.h"
#include "crypto/keys.h"
#include "crypto/sign.h"

namespace signet::bench {

struct TokenMechanism {
  CK_MECHANISM_TYPE sign;     // signing mechanism
  CK_MECHANISM_TYPE keygen;   // key-pair generation mechanism
  CK_KEY_TYPE key_type;       // CKK_RSA, CKK_EC, CKK_EC_EDWARDS
  crypto::SignParams verify;  // how crypto::Verify checks the token's signature
  std::size_t input_size;     // bytes signed per operation
};

// TokenMechanismFor returns the row for `algo`. CKR_MECHANISM_INVALID for
// an algorithm no row covers.
Result<TokenMechanism> TokenMechanismFor(const SignAlgorithm& algo);

// TokenKeyLabel: the CKA_LABEL of the benchmark key of `algo`
// ("signet-bench-rsa2048"), so later runs reuse it.
std::string TokenKeyLabel(const SignAlgorithm& algo);

// PublicKeyFromAttributes rebuilds the public key from the values of
// CKA_MODULUS, CKA_PUBLIC_EXPONENT (RSA) or CKA_EC_PARAMS, CKA_EC_POINT
// (EC, Ed25519). CKR_KEY_TYPE_INCONSISTENT when neither pair is complete.
Result<crypto::PublicKey> PublicKeyFromAttributes(ByteView modulus,
                                                  ByteView exponent,
                                                  ByteView ec_params,
                                                  ByteView ec_point);

}  // namespace signet::bench
