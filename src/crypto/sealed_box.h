// A sealed box: bytes encrypted to an X25519 public key, so that whoever
// holds only the public key can seal but only the private key's holder can
// open. The key pool uses it to store pre-generated keys while nobody is
// logged in (docs/DESIGN.md "The key pool"): the pool's public key is in
// the token file in the clear, its private key wrapped under the KEK.
//
// Format: e (32 bytes, a fresh X25519 public key) || AES-KWP(k, plaintext)
// with k = HKDF-SHA256(ikm = X25519(e, R), salt = "", info = kSealedBoxInfo ||
// e || R, 32 bytes), R the recipient's public key (ECIES in the shape of
// RFC 9180's DHKEM, with RFC 5649 as the AEAD: the plaintext is key
// material, which KWP authenticates). Composed of crypto/key_agreement.h,
// crypto/hkdf.h and crypto/symmetric.h; no state, safe from any thread.
#pragma once

#include "base/secure_bytes.h"
#include "crypto/keys.h"
#include "signet/result.hpp"

namespace signet::crypto {

// Seal encrypts `plaintext` (non-empty) to the X25519 public key
// `recipient`. CKR_KEY_TYPE_INCONSISTENT when `recipient` is not X25519.
Result<Bytes> Seal(const PublicKey& recipient, ByteView plaintext);

// OpenSealed reverses Seal with the recipient's private key.
// CKR_ENCRYPTED_DATA_INVALID, with one message, for anything that is not a
// box sealed to this key (too short, another key, a changed byte);
// CKR_KEY_TYPE_INCONSISTENT when `recipient` is not X25519.
Result<SecureBytes> OpenSealed(const PrivateKey& recipient, ByteView sealed);

}  // namespace signet::crypto
