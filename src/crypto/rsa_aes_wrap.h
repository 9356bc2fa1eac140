// CKM_RSA_AES_KEY_WRAP (PKCS#11 v2.40 section 2.1.21): a key of any length
// wrapped under an RSA public key by way of a one-time AES key. The AES key
// is OAEP-encrypted under the RSA key, the key to wrap is wrapped under the
// AES key with RFC 5649 (AES-KWP), and the two are concatenated. This is
// how private keys (their PKCS#8) travel under an RSA key, since they do
// not fit one RSA block. Composed of crypto/rsa_encrypt.h and
// crypto/symmetric.h; every call makes its own contexts: safe from any
// thread.
#pragma once

#include "base/secure_bytes.h"
#include "crypto/keys.h"
#include "crypto/rsa_encrypt.h"
#include "signet/result.hpp"

namespace signet::crypto {

// RsaAesKeyWrap wraps `key_value` under the RSA public key `key`: a fresh
// random AES key of `aes_key_bytes` (16, 24 or 32; else
// CKR_MECHANISM_PARAM_INVALID), encrypted with `oaep` into k bytes (its
// padding kOaep; kPkcs1 for libhal's export, CKM_SIGNET_RSA_PKCS_AES_KEY_WRAP), then RFC 5649 of
// `key_value` under that AES key. The AES key is wiped before returning.
// CKR_WRAPPING_KEY_SIZE_RANGE when the RSA key is too short for the AES key under this OAEP hash.
Result<Bytes> RsaAesKeyWrap(const PublicKey& key, const RsaCipherParams& oaep,
                            std::size_t aes_key_bytes, ByteView key_value);

// RsaAesKeyUnwrap reverses RsaAesKeyWrap with the private key: the first k
// bytes (k the modulus length) are the OAEP-encrypted AES key, which must
// decrypt to `aes_key_bytes` bytes, the rest its RFC 5649 wrap.
// CKR_WRAPPED_KEY_LEN_RANGE when `wrapped` is too short for both parts or
// its second part cannot be an RFC 5649 wrap; every other failure (OAEP,
// the AES key's length, RFC 5649's integrity check) is
// CKR_WRAPPED_KEY_INVALID with one message, so that the answer does not
// tell which part failed.
Result<SecureBytes> RsaAesKeyUnwrap(const PrivateKey& key, const RsaCipherParams& oaep,
                                    std::size_t aes_key_bytes, ByteView wrapped);

}  // namespace signet::crypto
