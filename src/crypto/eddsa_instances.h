// Internal to crypto/: the RFC 8032 EdDSA instances OpenSSL 3.0 lacks —
// Ed25519ctx, Ed25519ph, Ed448 with a context and Ed448ph — through libdecaf
// (Mike Hamburg's Ed448-Goldilocks library, from which OpenSSL's own curve448
// code came; docs/DESIGN.md "Dependencies"). sign.cc sends a CKM_EDDSA
// signature here when its CK_EDDSA_PARAMS ask for prehashing or a context;
// plain Ed25519 and Ed448 stay with OpenSSL. The keys stay EVP_PKEYs: the
// 32- / 57-byte private key is read out for one call and wiped after it.
//
// Thread contract: stateless; any thread, any number at once.
#pragma once

#include "crypto/sign.h"

namespace signet::crypto::internal {

// DecafEddsaSign signs `message` (the whole message: for the ph instances
// it is hashed here, SHA-512 for Ed25519ph and SHAKE256 to 64 bytes for
// Ed448ph) with the instance `instance` names. REQUIRES: `type` is kEd25519
// or kEd448 and sign.cc's CheckParams accepted `instance`.
Result<Bytes> DecafEddsaSign(EVP_PKEY* pkey, KeyType type, const EddsaInstance& instance,
                             ByteView message);

// DecafEddsaVerify checks `signature` over `message` under the same
// instance. CKR_SIGNATURE_INVALID when it does not hold. REQUIRES: as above,
// and `signature` has the instance's length.
Status DecafEddsaVerify(EVP_PKEY* pkey, KeyType type, const EddsaInstance& instance,
                        ByteView message, ByteView signature);

}  // namespace signet::crypto::internal
