// RSA encryption and decryption (PKCS#11 v2.40 §2.1.6-2.1.8): PKCS#1 v1.5
// padding (CKM_RSA_PKCS), raw RSA (CKM_RSA_X_509) and OAEP
// (CKM_RSA_PKCS_OAEP, RFC 8017 section 7.1), through OpenSSL 3's
// EVP_PKEY_encrypt / EVP_PKEY_decrypt. Every call makes its own context:
// safe from any thread, the keys being immutable.
#pragma once

#include "base/mechanism_table.h"
#include "base/secure_bytes.h"
#include "crypto/keys.h"
#include "signet/result.hpp"

namespace signet::crypto {

// RsaPadding: the encryption scheme.
enum class RsaPadding : std::uint8_t { kPkcs1, kNone, kOaep };

// RsaCipherParams: the scheme and, for OAEP, its hash, MGF1 hash and label
// (the label is borrowed for the call).
struct RsaCipherParams {
  RsaPadding padding = RsaPadding::kPkcs1;
  DigestAlg oaep_digest = DigestAlg::kSha1;
  DigestAlg mgf1_digest = DigestAlg::kSha1;
  ByteView label;
};

// RsaEncrypt encrypts `data` under an RSA public key. The input may be at
// most k - 11 bytes for PKCS#1 v1.5, k - 2 * hLen - 2 for OAEP and k for
// raw RSA (left-padded with zeros to k bytes), k being the modulus length;
// longer input is CKR_DATA_LEN_RANGE. Raw input not below the modulus is
// CKR_DATA_INVALID. The output is always k bytes.
Result<Bytes> RsaEncrypt(const PublicKey& key, const RsaCipherParams& params, ByteView data);

// RsaDecrypt decrypts `data` (exactly k bytes, else
// CKR_ENCRYPTED_DATA_LEN_RANGE) with an RSA private key. Every padding or
// OAEP failure, and a value not below the modulus, is
// CKR_ENCRYPTED_DATA_INVALID with one fixed message: the error says nothing
// about why, and signet's code takes the same path for every such failure
// (OpenSSL's padding checks are constant-time; see docs/PKCS11.md "RSA
// decryption and padding oracles"). Raw RSA returns all k bytes.
Result<SecureBytes> RsaDecrypt(const PrivateKey& key, const RsaCipherParams& params, ByteView data);

// RsaRawSign is raw RSA as a signature (CKM_RSA_X_509, PKCS#11 v2.40
// section 2.1.9): `input`, left-padded with zeros to k bytes as SoftHSMv2
// does, raised to the private exponent (blinded); k bytes out.
// CKR_DATA_LEN_RANGE for input longer than k, CKR_DATA_INVALID for a value
// not below the modulus.
Result<Bytes> RsaRawSign(const PrivateKey& key, ByteView input);

// RsaRawVerify checks a RsaRawSign signature: `signature` raised to the
// public exponent must equal `input` left-padded to k bytes (compared in
// constant time). CKR_SIGNATURE_LEN_RANGE when the signature is not k
// bytes, CKR_DATA_LEN_RANGE for input longer than k, CKR_SIGNATURE_INVALID
// otherwise (a signature not below the modulus too).
Status RsaRawVerify(const PublicKey& key, ByteView input, ByteView signature);

}  // namespace signet::crypto
