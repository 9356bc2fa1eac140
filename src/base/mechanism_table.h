// The mechanism table: every fact about every mechanism signet offers, and
// about the hash functions they use, declared once. The daemon checks
// requests against it and reports it in GetInfo (so the PKCS#11 module's
// C_GetMechanismList / C_GetMechanismInfo come from it); the module reads a
// row's parameter form to copy a CK_MECHANISM; the CLI finds its mechanism
// names here; core/mechanisms.cc binds each row's family to its crypto/
// operation. Adding a mechanism is one row here plus, for a new family, its
// binding there (docs/DESIGN.md "Adding a mechanism").
//
// Header-only constexpr data without OpenSSL, so every layer may read it.
// Immutable: safe from any thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "signet/protocol.hpp"

namespace signet {

// DigestAlg: the hash functions signet computes (crypto/digest.h binds each
// to OpenSSL). kNone: no hash (the caller hashed, or the scheme hashes
// itself, as EdDSA does).
enum class DigestAlg : std::uint8_t { kNone, kMd5, kSha1, kSha224, kSha256, kSha384, kSha512 };

// DigestFacts: one hash function. `digest_info` is the DER prefix of a
// PKCS#1 v1.5 DigestInfo for this hash (RFC 8017 section 9.2, note 1): the
// bytes CKM_RSA_PKCS expects before the digest.
struct DigestFacts {
  DigestAlg alg;
  CK_MECHANISM_TYPE mechanism;  // CKM_SHA256; 0 for kNone
  CK_RSA_PKCS_MGF_TYPE mgf;     // CKG_MGF1_SHA256; 0 where PKCS#11 names none
  std::string_view name;        // "sha256": logs, reports, CLI names
  std::string_view openssl_name;
  std::size_t size;  // output bytes
  std::array<std::uint8_t, 19> digest_info_bytes;
  std::size_t digest_info_size;

  constexpr std::span<const std::uint8_t> digest_info() const {
    return {digest_info_bytes.data(), digest_info_size};
  }
};

// One row per DigestAlg, in enum order.
inline constexpr DigestFacts kDigestTable[] = {
    {DigestAlg::kNone, 0, 0, "none", "", 0, {}, 0},
    {DigestAlg::kMd5,
     CKM_MD5,
     0,
     "md5",
     "MD5",
     16,
     {0x30, 0x20, 0x30, 0x0c, 0x06, 0x08, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x02, 0x05, 0x05,
      0x00, 0x04, 0x10},
     18},
    {DigestAlg::kSha1,
     CKM_SHA_1,
     CKG_MGF1_SHA1,
     "sha1",
     "SHA1",
     20,
     {0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14},
     15},
    {DigestAlg::kSha224,
     CKM_SHA224,
     CKG_MGF1_SHA224,
     "sha224",
     "SHA224",
     28,
     {0x30, 0x2d, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x04,
      0x05, 0x00, 0x04, 0x1c},
     19},
    {DigestAlg::kSha256,
     CKM_SHA256,
     CKG_MGF1_SHA256,
     "sha256",
     "SHA256",
     32,
     {0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01,
      0x05, 0x00, 0x04, 0x20},
     19},
    {DigestAlg::kSha384,
     CKM_SHA384,
     CKG_MGF1_SHA384,
     "sha384",
     "SHA384",
     48,
     {0x30, 0x41, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02,
      0x05, 0x00, 0x04, 0x30},
     19},
    {DigestAlg::kSha512,
     CKM_SHA512,
     CKG_MGF1_SHA512,
     "sha512",
     "SHA512",
     64,
     {0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03,
      0x05, 0x00, 0x04, 0x40},
     19},
};

constexpr const DigestFacts& FactsOf(DigestAlg alg) {
  return kDigestTable[static_cast<std::size_t>(alg)];
}

// DigestForMechanism maps a hash mechanism (CKM_SHA256, as a digest
// mechanism or a PSS/OAEP hashAlg) to its DigestAlg; kNone if it is none.
constexpr DigestAlg DigestForMechanism(CK_MECHANISM_TYPE mechanism) {
  for (const DigestFacts& facts : kDigestTable) {
    if (facts.alg != DigestAlg::kNone && facts.mechanism == mechanism) return facts.alg;
  }
  return DigestAlg::kNone;
}

// DigestForMgf maps CKG_MGF1_SHA256 etc. to its DigestAlg; kNone if unknown.
constexpr DigestAlg DigestForMgf(CK_RSA_PKCS_MGF_TYPE mgf) {
  for (const DigestFacts& facts : kDigestTable) {
    if (facts.mgf != 0 && facts.mgf == mgf) return facts.alg;
  }
  return DigestAlg::kNone;
}

// kEcKdfTable: the key derivation functions of CK_ECDH1_DERIVE_PARAMS
// (PKCS#11 v2.40 section 2.3.18's CK_EC_KDF_TYPE) that signet runs, and the
// hash each applies: CKD_NULL (the shared secret itself) and the ANSI X9.63
// KDF with a SHA hash.
struct EcKdfFacts {
  CK_ULONG kdf;      // CK_EC_KDF_TYPE
  DigestAlg digest;  // kNone for CKD_NULL
};
inline constexpr EcKdfFacts kEcKdfTable[] = {
    {CKD_NULL, DigestAlg::kNone},         {CKD_SHA1_KDF, DigestAlg::kSha1},
    {CKD_SHA224_KDF, DigestAlg::kSha224}, {CKD_SHA256_KDF, DigestAlg::kSha256},
    {CKD_SHA384_KDF, DigestAlg::kSha384}, {CKD_SHA512_KDF, DigestAlg::kSha512},
};

// FindEcKdf returns the row of `kdf`, nullptr when signet does not run it.
constexpr const EcKdfFacts* FindEcKdf(CK_ULONG kdf) {
  for (const EcKdfFacts& facts : kEcKdfTable) {
    if (facts.kdf == kdf) return &facts;
  }
  return nullptr;
}

// MechanismFamily: the operation a mechanism performs. core/mechanisms.cc
// binds each family to crypto/; mechanisms of one family differ only in
// their row's facts (digest, key sizes).
enum class MechanismFamily : std::uint8_t {
  kRsaKeyPairGen,
  kEcKeyPairGen,
  kEdwardsKeyPairGen,
  kAesKeyGen,
  kRsaPkcs1,  // PKCS#1 v1.5 signatures
  kRsaPss,
  kEcdsa,
  kEddsa,
  kAesGcm,
  kAesKeyWrapPad,  // RFC 5649
  kDigest,
  // AES block modes and key wrap.
  kAesEcb,
  kAesCbc,
  kAesCbcPad,  // PKCS#7 padding
  kAesCtr,
  kAesKeyWrap,       // RFC 3394
  kAesKeyWrapPkcs7,  // PKCS#7 padding, then RFC 3394
  kRsaX509,          // raw RSA encryption (rsaenc lane)
  kRsaOaep,          // RSA OAEP encryption, RFC 8017 section 7.1 (rsaenc lane)
  // Key derivation (C_DeriveKey).
  kEcdh,                  // ECDH, SEC 1 section 3.3.1, then CK_ECDH1_DERIVE_PARAMS' KDF
  kEcdhCofactor,          // cofactor ECDH (ECC CDH), then the KDF
  kMontgomeryKeyPairGen,  // X25519 / X448 (RFC 7748)
  // Generic secrets and MACs.
  kGenericSecretKeyGen,  // CKM_GENERIC_SECRET_KEY_GEN
  kHmac,                 // HMAC (RFC 2104) with the row's digest
  kAesCmac,              // AES-CMAC (NIST SP 800-38B)
  kDesKeyGen,            // CKM_DES_KEY_GEN, CKM_DES2/3_KEY_GEN (odd parity)
  kDesEcb,
  kDesCbc,
  kDesCbcPad,      // PKCS#7 padding
  kRsaAesKeyWrap,  // CKM_RSA_AES_KEY_WRAP: OAEP of a one-time AES key, then RFC 5649
  kHkdf,           // HKDF (RFC 5869) from a secret key, CK_HKDF_PARAMS
  kHkdfData,       // the same HKDF, its output a data object (CKM_HKDF_DATA)
  // Derivations from a secret key's value (PKCS#11 v2.40 section 2.38).
  kConcatenateBaseAndKey,   // base || other key
  kConcatenateBaseAndData,  // base || data
  kConcatenateDataAndBase,  // data || base
  kXorBaseAndData,          // base XOR data
  kEncryptData,             // the row's cipher over the data: ECB (kStringData) or CBC (an IV too)
  kDes3Cmac,                // triple-DES CMAC (NIST SP 800-38B), 8-byte MAC
  kDhKeyPairGen,            // PKCS #3 DH key pairs in the RFC 7919 groups
  kDh,                      // PKCS #3 DH key agreement: Z, the prime's length
};

// ParamKind: the form of a mechanism's CK_MECHANISM parameter. The module
// copies the structures into typed values (signet/types.hpp); kIv,
// kPublicValue and the parameter of a mechanism it does not know travel as
// their bytes.
enum class ParamKind : std::uint8_t {
  kNone,
  kPss,                // CK_RSA_PKCS_PSS_PARAMS
  kGcm,                // CK_GCM_PARAMS
  kIv,                 // an IV, its bytes (16 for AES-CBC; 8, optional, for AES key wrap)
  kAesCtr,             // CK_AES_CTR_PARAMS
  kOaep,               // CK_RSA_PKCS_OAEP_PARAMS
  kMacLength,          // CK_MAC_GENERAL_PARAMS: the MAC's length in bytes
  kEcdh,               // CK_ECDH1_DERIVE_PARAMS
  kEddsa,              // CK_EDDSA_PARAMS, or none (plain Ed25519 / Ed448)
  kHkdf,               // CK_HKDF_PARAMS
  kRsaAesWrap,         // CK_RSA_AES_KEY_WRAP_PARAMS
  kStringData,         // CK_KEY_DERIVATION_STRING_DATA
  kAesCbcEncryptData,  // CK_AES_CBC_ENCRYPT_DATA_PARAMS
  kDesCbcEncryptData,  // CK_DES_CBC_ENCRYPT_DATA_PARAMS
  kKeyHandle,          // CK_OBJECT_HANDLE (CKM_CONCATENATE_BASE_AND_KEY)
  kPublicValue,        // the other party's public value, its bytes (DH)
};

// MechanismRow: one mechanism. Key sizes are in bits for RSA/EC/EdDSA and
// CKM_GENERIC_SECRET_KEY_GEN, and in bytes for AES and the HMACs (PKCS#11
// v2.40 section 2: "ulMinKeySize ... in bits or bytes depending on the
// mechanism"); zero for mechanisms without a key.
struct MechanismRow {
  CK_MECHANISM_TYPE type = 0;
  std::string_view name;  // "CKM_SHA256_RSA_PKCS": audit log, errors
  MechanismFamily family = MechanismFamily::kDigest;
  CK_KEY_TYPE key_type = CK_UNAVAILABLE_INFORMATION;  // the key it works with
  // A second key type the mechanism accepts: CKK_EC_MONTGOMERY (X25519,
  // X448) beside CKK_EC for ECDH; an HMAC's PKCS#11 3.0 key type
  // (CKK_SHA256_HMAC) beside CKK_GENERIC_SECRET; triple DES's CKK_DES2
  // beside CKK_DES3. AcceptsKeyType reads both.
  CK_KEY_TYPE alt_key_type = CK_UNAVAILABLE_INFORMATION;
  CK_FLAGS flags = 0;  // CK_MECHANISM_INFO flags: CKF_SIGN | CKF_VERIFY ...
  CK_ULONG min_key_size = 0;
  CK_ULONG max_key_size = 0;
  ParamKind param = ParamKind::kNone;
  DigestAlg digest = DigestAlg::kNone;  // the hash the mechanism applies itself
  std::string_view cli_name;            // `signet sign -m` name; empty if none
};

namespace mechanism_flags {
inline constexpr CK_FLAGS kSignVerify = CKF_SIGN | CKF_VERIFY;
inline constexpr CK_FLAGS kEc = CKF_EC_F_P | CKF_EC_NAMEDCURVE | CKF_EC_UNCOMPRESS;
}  // namespace mechanism_flags

// The table, in the order GetInfo reports it.
inline constexpr MechanismRow kMechanismTable[] = {
    // Key generation.
    {.type = CKM_RSA_PKCS_KEY_PAIR_GEN,
     .name = "CKM_RSA_PKCS_KEY_PAIR_GEN",
     .family = MechanismFamily::kRsaKeyPairGen,
     .key_type = CKK_RSA,
     .flags = CKF_GENERATE_KEY_PAIR,
     .min_key_size = 1024,
     .max_key_size = 4096},
    {.type = CKM_EC_KEY_PAIR_GEN,
     .name = "CKM_EC_KEY_PAIR_GEN",
     .family = MechanismFamily::kEcKeyPairGen,
     .key_type = CKK_EC,
     .flags = CKF_GENERATE_KEY_PAIR | mechanism_flags::kEc,
     .min_key_size = 256,
     .max_key_size = 521},
    // Ed25519 and Ed448: 255 and 448 bits, as PKCS#11 3.0 counts them.
    {.type = CKM_EC_EDWARDS_KEY_PAIR_GEN,
     .name = "CKM_EC_EDWARDS_KEY_PAIR_GEN",
     .family = MechanismFamily::kEdwardsKeyPairGen,
     .key_type = CKK_EC_EDWARDS,
     .flags = CKF_GENERATE_KEY_PAIR,
     .min_key_size = 255,
     .max_key_size = 448},
    // X25519 and X448: 255 and 448 bits, as PKCS#11 3.0 counts them.
    {.type = CKM_EC_MONTGOMERY_KEY_PAIR_GEN,
     .name = "CKM_EC_MONTGOMERY_KEY_PAIR_GEN",
     .family = MechanismFamily::kMontgomeryKeyPairGen,
     .key_type = CKK_EC_MONTGOMERY,
     .flags = CKF_GENERATE_KEY_PAIR,
     .min_key_size = 255,
     .max_key_size = 448},
    // Diffie-Hellman (PKCS #3) in the RFC 7919 groups ffdhe2048, ffdhe3072,
    // ffdhe4096, ffdhe6144 and ffdhe8192, recognised by CKA_PRIME and
    // CKA_BASE; sizes are the prime's bits (docs/PKCS11.md
    // "Diffie-Hellman").
    {.type = CKM_DH_PKCS_KEY_PAIR_GEN,
     .name = "CKM_DH_PKCS_KEY_PAIR_GEN",
     .family = MechanismFamily::kDhKeyPairGen,
     .key_type = CKK_DH,
     .flags = CKF_GENERATE_KEY_PAIR,
     .min_key_size = 2048,
     .max_key_size = 8192},
    {.type = CKM_AES_KEY_GEN,
     .name = "CKM_AES_KEY_GEN",
     .family = MechanismFamily::kAesKeyGen,
     .key_type = CKK_AES,
     .flags = CKF_GENERATE,
     .min_key_size = 16,
     .max_key_size = 32},
    // Triple DES keys: 16 bytes (two-key, CKK_DES2) and 24 (three-key).
    {.type = CKM_DES2_KEY_GEN,
     .name = "CKM_DES2_KEY_GEN",
     .family = MechanismFamily::kDesKeyGen,
     .key_type = CKK_DES2,
     .flags = CKF_GENERATE,
     .min_key_size = 16,
     .max_key_size = 16},
    {.type = CKM_DES3_KEY_GEN,
     .name = "CKM_DES3_KEY_GEN",
     .family = MechanismFamily::kDesKeyGen,
     .key_type = CKK_DES3,
     .flags = CKF_GENERATE,
     .min_key_size = 24,
     .max_key_size = 24},
    // Single DES (legacy: offered only when signetd loaded OpenSSL's legacy
    // provider; docs/PKCS11.md "Single DES"), 8-byte keys.
    {.type = CKM_DES_KEY_GEN,
     .name = "CKM_DES_KEY_GEN",
     .family = MechanismFamily::kDesKeyGen,
     .key_type = CKK_DES,
     .flags = CKF_GENERATE,
     .min_key_size = 8,
     .max_key_size = 8},
    // Generic secrets of 1-512 bytes, in bits as the specification counts
    // them for this mechanism (docs/PKCS11.md "Generic secrets and MACs").
    {.type = CKM_GENERIC_SECRET_KEY_GEN,
     .name = "CKM_GENERIC_SECRET_KEY_GEN",
     .family = MechanismFamily::kGenericSecretKeyGen,
     .key_type = CKK_GENERIC_SECRET,
     .flags = CKF_GENERATE,
     .min_key_size = 8,
     .max_key_size = 4096},
    // RSA signatures. CKM_RSA_PKCS signs a DigestInfo the caller built, and
    // encrypts, decrypts, wraps and unwraps (secret keys) with PKCS#1 v1.5
    // padding (RFC 8017 section 7.2).
    {.type = CKM_RSA_PKCS,
     .name = "CKM_RSA_PKCS",
     .family = MechanismFamily::kRsaPkcs1,
     .key_type = CKK_RSA,
     .flags = mechanism_flags::kSignVerify | CKF_ENCRYPT | CKF_DECRYPT | CKF_WRAP | CKF_UNWRAP,
     .min_key_size = 1024,
     .max_key_size = 4096},
    {.type = CKM_SHA1_RSA_PKCS,
     .name = "CKM_SHA1_RSA_PKCS",
     .family = MechanismFamily::kRsaPkcs1,
     .key_type = CKK_RSA,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1024,
     .max_key_size = 4096,
     .digest = DigestAlg::kSha1,
     .cli_name = "rsa-pkcs1-sha1"},
    {.type = CKM_SHA224_RSA_PKCS,
     .name = "CKM_SHA224_RSA_PKCS",
     .family = MechanismFamily::kRsaPkcs1,
     .key_type = CKK_RSA,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1024,
     .max_key_size = 4096,
     .digest = DigestAlg::kSha224,
     .cli_name = "rsa-pkcs1-sha224"},
    {.type = CKM_SHA256_RSA_PKCS,
     .name = "CKM_SHA256_RSA_PKCS",
     .family = MechanismFamily::kRsaPkcs1,
     .key_type = CKK_RSA,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1024,
     .max_key_size = 4096,
     .digest = DigestAlg::kSha256,
     .cli_name = "rsa-pkcs1-sha256"},
    {.type = CKM_SHA384_RSA_PKCS,
     .name = "CKM_SHA384_RSA_PKCS",
     .family = MechanismFamily::kRsaPkcs1,
     .key_type = CKK_RSA,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1024,
     .max_key_size = 4096,
     .digest = DigestAlg::kSha384,
     .cli_name = "rsa-pkcs1-sha384"},
    {.type = CKM_SHA512_RSA_PKCS,
     .name = "CKM_SHA512_RSA_PKCS",
     .family = MechanismFamily::kRsaPkcs1,
     .key_type = CKK_RSA,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1024,
     .max_key_size = 4096,
     .digest = DigestAlg::kSha512,
     .cli_name = "rsa-pkcs1-sha512"},
    {.type = CKM_RSA_PKCS_PSS,
     .name = "CKM_RSA_PKCS_PSS",
     .family = MechanismFamily::kRsaPss,
     .key_type = CKK_RSA,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1024,
     .max_key_size = 4096,
     .param = ParamKind::kPss},
    {.type = CKM_SHA1_RSA_PKCS_PSS,
     .name = "CKM_SHA1_RSA_PKCS_PSS",
     .family = MechanismFamily::kRsaPss,
     .key_type = CKK_RSA,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1024,
     .max_key_size = 4096,
     .param = ParamKind::kPss,
     .digest = DigestAlg::kSha1,
     .cli_name = "rsa-pss-sha1"},
    {.type = CKM_SHA224_RSA_PKCS_PSS,
     .name = "CKM_SHA224_RSA_PKCS_PSS",
     .family = MechanismFamily::kRsaPss,
     .key_type = CKK_RSA,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1024,
     .max_key_size = 4096,
     .param = ParamKind::kPss,
     .digest = DigestAlg::kSha224,
     .cli_name = "rsa-pss-sha224"},
    {.type = CKM_SHA256_RSA_PKCS_PSS,
     .name = "CKM_SHA256_RSA_PKCS_PSS",
     .family = MechanismFamily::kRsaPss,
     .key_type = CKK_RSA,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1024,
     .max_key_size = 4096,
     .param = ParamKind::kPss,
     .digest = DigestAlg::kSha256,
     .cli_name = "rsa-pss-sha256"},
    {.type = CKM_SHA384_RSA_PKCS_PSS,
     .name = "CKM_SHA384_RSA_PKCS_PSS",
     .family = MechanismFamily::kRsaPss,
     .key_type = CKK_RSA,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1024,
     .max_key_size = 4096,
     .param = ParamKind::kPss,
     .digest = DigestAlg::kSha384,
     .cli_name = "rsa-pss-sha384"},
    {.type = CKM_SHA512_RSA_PKCS_PSS,
     .name = "CKM_SHA512_RSA_PKCS_PSS",
     .family = MechanismFamily::kRsaPss,
     .key_type = CKK_RSA,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1024,
     .max_key_size = 4096,
     .param = ParamKind::kPss,
     .digest = DigestAlg::kSha512,
     .cli_name = "rsa-pss-sha512"},
    // RSA encryption: raw RSA and OAEP (PKCS#1 v1.5 is CKM_RSA_PKCS above);
    // OAEP wraps and unwraps secret keys too. Raw RSA also signs and
    // verifies (its input left-padded with zeros to the modulus length).
    {.type = CKM_RSA_X_509,
     .name = "CKM_RSA_X_509",
     .family = MechanismFamily::kRsaX509,
     .key_type = CKK_RSA,
     .flags = CKF_ENCRYPT | CKF_DECRYPT | mechanism_flags::kSignVerify,
     .min_key_size = 1024,
     .max_key_size = 4096},
    {.type = CKM_RSA_PKCS_OAEP,
     .name = "CKM_RSA_PKCS_OAEP",
     .family = MechanismFamily::kRsaOaep,
     .key_type = CKK_RSA,
     .flags = CKF_ENCRYPT | CKF_DECRYPT | CKF_WRAP | CKF_UNWRAP,
     .min_key_size = 1024,
     .max_key_size = 4096,
     .param = ParamKind::kOaep},
    // Any key, private keys too, under an RSA key: a one-time AES key,
    // OAEP-encrypted, then RFC 5649 of the key (PKCS#11 v2.40 section 2.1.21).
    {.type = CKM_RSA_AES_KEY_WRAP,
     .name = "CKM_RSA_AES_KEY_WRAP",
     .family = MechanismFamily::kRsaAesKeyWrap,
     .key_type = CKK_RSA,
     .flags = CKF_WRAP | CKF_UNWRAP,
     .min_key_size = 1024,
     .max_key_size = 4096,
     .param = ParamKind::kRsaAesWrap},
    // The same with PKCS#1 v1.5 and a 256-bit AES key, as Cryptech's libhal
    // exports keys (vendor-defined; docs/CRYPTECH.md).
    {.type = CKM_SIGNET_RSA_PKCS_AES_KEY_WRAP,
     .name = "CKM_SIGNET_RSA_PKCS_AES_KEY_WRAP",
     .family = MechanismFamily::kRsaAesKeyWrap,
     .key_type = CKK_RSA,
     .flags = CKF_WRAP | CKF_UNWRAP,
     .min_key_size = 1024,
     .max_key_size = 4096,
     .param = ParamKind::kNone},
    // ECDSA and EdDSA. CKM_ECDSA signs a digest the caller computed.
    {.type = CKM_ECDSA,
     .name = "CKM_ECDSA",
     .family = MechanismFamily::kEcdsa,
     .key_type = CKK_EC,
     .flags = mechanism_flags::kSignVerify | mechanism_flags::kEc,
     .min_key_size = 256,
     .max_key_size = 521},
    {.type = CKM_ECDSA_SHA1,
     .name = "CKM_ECDSA_SHA1",
     .family = MechanismFamily::kEcdsa,
     .key_type = CKK_EC,
     .flags = mechanism_flags::kSignVerify | mechanism_flags::kEc,
     .min_key_size = 256,
     .max_key_size = 521,
     .digest = DigestAlg::kSha1,
     .cli_name = "ecdsa-sha1"},
    {.type = CKM_ECDSA_SHA224,
     .name = "CKM_ECDSA_SHA224",
     .family = MechanismFamily::kEcdsa,
     .key_type = CKK_EC,
     .flags = mechanism_flags::kSignVerify | mechanism_flags::kEc,
     .min_key_size = 256,
     .max_key_size = 521,
     .digest = DigestAlg::kSha224,
     .cli_name = "ecdsa-sha224"},
    {.type = CKM_ECDSA_SHA256,
     .name = "CKM_ECDSA_SHA256",
     .family = MechanismFamily::kEcdsa,
     .key_type = CKK_EC,
     .flags = mechanism_flags::kSignVerify | mechanism_flags::kEc,
     .min_key_size = 256,
     .max_key_size = 521,
     .digest = DigestAlg::kSha256,
     .cli_name = "ecdsa-sha256"},
    {.type = CKM_ECDSA_SHA384,
     .name = "CKM_ECDSA_SHA384",
     .family = MechanismFamily::kEcdsa,
     .key_type = CKK_EC,
     .flags = mechanism_flags::kSignVerify | mechanism_flags::kEc,
     .min_key_size = 256,
     .max_key_size = 521,
     .digest = DigestAlg::kSha384,
     .cli_name = "ecdsa-sha384"},
    {.type = CKM_ECDSA_SHA512,
     .name = "CKM_ECDSA_SHA512",
     .family = MechanismFamily::kEcdsa,
     .key_type = CKK_EC,
     .flags = mechanism_flags::kSignVerify | mechanism_flags::kEc,
     .min_key_size = 256,
     .max_key_size = 521,
     .digest = DigestAlg::kSha512,
     .cli_name = "ecdsa-sha512"},
    {.type = CKM_EDDSA,
     .name = "CKM_EDDSA",
     .family = MechanismFamily::kEddsa,
     .key_type = CKK_EC_EDWARDS,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 255,
     .max_key_size = 448,
     .param = ParamKind::kEddsa,
     .cli_name = "ed25519"},
    // AES. CKM_AES_KEY_WRAP_PAD (0x210A) is PKCS#7 padding, then RFC 3394,
    // as PKCS#11 defines it; RFC 5649 is CKM_AES_KEY_WRAP_KWP (0x210B).
    {.type = CKM_AES_ECB,
     .name = "CKM_AES_ECB",
     .family = MechanismFamily::kAesEcb,
     .key_type = CKK_AES,
     .flags = CKF_ENCRYPT | CKF_DECRYPT,
     .min_key_size = 16,
     .max_key_size = 32},
    {.type = CKM_AES_CBC,
     .name = "CKM_AES_CBC",
     .family = MechanismFamily::kAesCbc,
     .key_type = CKK_AES,
     .flags = CKF_ENCRYPT | CKF_DECRYPT,
     .min_key_size = 16,
     .max_key_size = 32,
     .param = ParamKind::kIv},
    {.type = CKM_AES_CBC_PAD,
     .name = "CKM_AES_CBC_PAD",
     .family = MechanismFamily::kAesCbcPad,
     .key_type = CKK_AES,
     .flags = CKF_ENCRYPT | CKF_DECRYPT | CKF_WRAP | CKF_UNWRAP,
     .min_key_size = 16,
     .max_key_size = 32,
     .param = ParamKind::kIv},
    {.type = CKM_AES_CTR,
     .name = "CKM_AES_CTR",
     .family = MechanismFamily::kAesCtr,
     .key_type = CKK_AES,
     .flags = CKF_ENCRYPT | CKF_DECRYPT,
     .min_key_size = 16,
     .max_key_size = 32,
     .param = ParamKind::kAesCtr},
    {.type = CKM_AES_GCM,
     .name = "CKM_AES_GCM",
     .family = MechanismFamily::kAesGcm,
     .key_type = CKK_AES,
     .flags = CKF_ENCRYPT | CKF_DECRYPT,
     .min_key_size = 16,
     .max_key_size = 32,
     .param = ParamKind::kGcm},
    {.type = CKM_AES_KEY_WRAP,
     .name = "CKM_AES_KEY_WRAP",
     .family = MechanismFamily::kAesKeyWrap,
     .key_type = CKK_AES,
     .flags = CKF_WRAP | CKF_UNWRAP,
     .min_key_size = 16,
     .max_key_size = 32,
     .param = ParamKind::kIv},
    {.type = CKM_AES_KEY_WRAP_PAD,
     .name = "CKM_AES_KEY_WRAP_PAD",
     .family = MechanismFamily::kAesKeyWrapPkcs7,
     .key_type = CKK_AES,
     .flags = CKF_WRAP | CKF_UNWRAP,
     .min_key_size = 16,
     .max_key_size = 32,
     .param = ParamKind::kIv},
    {.type = CKM_AES_KEY_WRAP_KWP,
     .name = "CKM_AES_KEY_WRAP_KWP",
     .family = MechanismFamily::kAesKeyWrapPad,
     .key_type = CKK_AES,
     .flags = CKF_WRAP | CKF_UNWRAP,
     .min_key_size = 16,
     .max_key_size = 32},
    // Triple DES (legacy: payment systems; docs/PKCS11.md "Triple DES")
    // with two-key and three-key keys, key sizes in bytes.
    {.type = CKM_DES3_ECB,
     .name = "CKM_DES3_ECB",
     .family = MechanismFamily::kDesEcb,
     .key_type = CKK_DES3,
     .alt_key_type = CKK_DES2,
     .flags = CKF_ENCRYPT | CKF_DECRYPT | CKF_WRAP | CKF_UNWRAP,
     .min_key_size = 16,
     .max_key_size = 24},
    {.type = CKM_DES3_CBC,
     .name = "CKM_DES3_CBC",
     .family = MechanismFamily::kDesCbc,
     .key_type = CKK_DES3,
     .alt_key_type = CKK_DES2,
     .flags = CKF_ENCRYPT | CKF_DECRYPT | CKF_WRAP | CKF_UNWRAP,
     .min_key_size = 16,
     .max_key_size = 24,
     .param = ParamKind::kIv},
    {.type = CKM_DES3_CBC_PAD,
     .name = "CKM_DES3_CBC_PAD",
     .family = MechanismFamily::kDesCbcPad,
     .key_type = CKK_DES3,
     .alt_key_type = CKK_DES2,
     .flags = CKF_ENCRYPT | CKF_DECRYPT | CKF_WRAP | CKF_UNWRAP,
     .min_key_size = 16,
     .max_key_size = 24,
     .param = ParamKind::kIv},
    // Single DES, the same modes (legacy provider only, as its key gen).
    // They never wrap: a 56-bit key would hand whatever it wraps to a brute
    // force search (docs/PKCS11.md "Single DES").
    {.type = CKM_DES_ECB,
     .name = "CKM_DES_ECB",
     .family = MechanismFamily::kDesEcb,
     .key_type = CKK_DES,
     .flags = CKF_ENCRYPT | CKF_DECRYPT | CKF_UNWRAP,
     .min_key_size = 8,
     .max_key_size = 8},
    {.type = CKM_DES_CBC,
     .name = "CKM_DES_CBC",
     .family = MechanismFamily::kDesCbc,
     .key_type = CKK_DES,
     .flags = CKF_ENCRYPT | CKF_DECRYPT | CKF_UNWRAP,
     .min_key_size = 8,
     .max_key_size = 8,
     .param = ParamKind::kIv},
    {.type = CKM_DES_CBC_PAD,
     .name = "CKM_DES_CBC_PAD",
     .family = MechanismFamily::kDesCbcPad,
     .key_type = CKK_DES,
     .flags = CKF_ENCRYPT | CKF_DECRYPT | CKF_UNWRAP,
     .min_key_size = 8,
     .max_key_size = 8,
     .param = ParamKind::kIv},
    // Triple-DES CMAC; the *_GENERAL form (0x137) comes before the full one
    // (0x138) in PKCS#11's numbering, unlike AES's.
    {.type = CKM_DES3_CMAC,
     .name = "CKM_DES3_CMAC",
     .family = MechanismFamily::kDes3Cmac,
     .key_type = CKK_DES3,
     .alt_key_type = CKK_DES2,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 16,
     .max_key_size = 24},
    {.type = CKM_DES3_CMAC_GENERAL,
     .name = "CKM_DES3_CMAC_GENERAL",
     .family = MechanismFamily::kDes3Cmac,
     .key_type = CKK_DES3,
     .alt_key_type = CKK_DES2,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 16,
     .max_key_size = 24,
     .param = ParamKind::kMacLength},
    {.type = CKM_AES_CMAC,
     .name = "CKM_AES_CMAC",
     .family = MechanismFamily::kAesCmac,
     .key_type = CKK_AES,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 16,
     .max_key_size = 32},
    {.type = CKM_AES_CMAC_GENERAL,
     .name = "CKM_AES_CMAC_GENERAL",
     .family = MechanismFamily::kAesCmac,
     .key_type = CKK_AES,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 16,
     .max_key_size = 32,
     .param = ParamKind::kMacLength},
    // HMAC over generic secrets and the PKCS#11 3.0 HMAC key types, any
    // length 1-512 bytes; the *_GENERAL forms take CK_MAC_GENERAL_PARAMS.
    {.type = CKM_SHA_1_HMAC,
     .name = "CKM_SHA_1_HMAC",
     .family = MechanismFamily::kHmac,
     .key_type = CKK_GENERIC_SECRET,
     .alt_key_type = CKK_SHA_1_HMAC,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1,
     .max_key_size = 512,
     .digest = DigestAlg::kSha1},
    {.type = CKM_SHA_1_HMAC_GENERAL,
     .name = "CKM_SHA_1_HMAC_GENERAL",
     .family = MechanismFamily::kHmac,
     .key_type = CKK_GENERIC_SECRET,
     .alt_key_type = CKK_SHA_1_HMAC,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1,
     .max_key_size = 512,
     .param = ParamKind::kMacLength,
     .digest = DigestAlg::kSha1},
    {.type = CKM_SHA224_HMAC,
     .name = "CKM_SHA224_HMAC",
     .family = MechanismFamily::kHmac,
     .key_type = CKK_GENERIC_SECRET,
     .alt_key_type = CKK_SHA224_HMAC,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1,
     .max_key_size = 512,
     .digest = DigestAlg::kSha224},
    {.type = CKM_SHA224_HMAC_GENERAL,
     .name = "CKM_SHA224_HMAC_GENERAL",
     .family = MechanismFamily::kHmac,
     .key_type = CKK_GENERIC_SECRET,
     .alt_key_type = CKK_SHA224_HMAC,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1,
     .max_key_size = 512,
     .param = ParamKind::kMacLength,
     .digest = DigestAlg::kSha224},
    {.type = CKM_SHA256_HMAC,
     .name = "CKM_SHA256_HMAC",
     .family = MechanismFamily::kHmac,
     .key_type = CKK_GENERIC_SECRET,
     .alt_key_type = CKK_SHA256_HMAC,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1,
     .max_key_size = 512,
     .digest = DigestAlg::kSha256},
    {.type = CKM_SHA256_HMAC_GENERAL,
     .name = "CKM_SHA256_HMAC_GENERAL",
     .family = MechanismFamily::kHmac,
     .key_type = CKK_GENERIC_SECRET,
     .alt_key_type = CKK_SHA256_HMAC,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1,
     .max_key_size = 512,
     .param = ParamKind::kMacLength,
     .digest = DigestAlg::kSha256},
    {.type = CKM_SHA384_HMAC,
     .name = "CKM_SHA384_HMAC",
     .family = MechanismFamily::kHmac,
     .key_type = CKK_GENERIC_SECRET,
     .alt_key_type = CKK_SHA384_HMAC,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1,
     .max_key_size = 512,
     .digest = DigestAlg::kSha384},
    {.type = CKM_SHA384_HMAC_GENERAL,
     .name = "CKM_SHA384_HMAC_GENERAL",
     .family = MechanismFamily::kHmac,
     .key_type = CKK_GENERIC_SECRET,
     .alt_key_type = CKK_SHA384_HMAC,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1,
     .max_key_size = 512,
     .param = ParamKind::kMacLength,
     .digest = DigestAlg::kSha384},
    {.type = CKM_SHA512_HMAC,
     .name = "CKM_SHA512_HMAC",
     .family = MechanismFamily::kHmac,
     .key_type = CKK_GENERIC_SECRET,
     .alt_key_type = CKK_SHA512_HMAC,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1,
     .max_key_size = 512,
     .digest = DigestAlg::kSha512},
    {.type = CKM_SHA512_HMAC_GENERAL,
     .name = "CKM_SHA512_HMAC_GENERAL",
     .family = MechanismFamily::kHmac,
     .key_type = CKK_GENERIC_SECRET,
     .alt_key_type = CKK_SHA512_HMAC,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1,
     .max_key_size = 512,
     .param = ParamKind::kMacLength,
     .digest = DigestAlg::kSha512},
    // Legacy: HMAC-MD5 for old protocols only (docs/PKCS11.md).
    {.type = CKM_MD5_HMAC,
     .name = "CKM_MD5_HMAC",
     .family = MechanismFamily::kHmac,
     .key_type = CKK_GENERIC_SECRET,
     .alt_key_type = CKK_MD5_HMAC,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1,
     .max_key_size = 512,
     .digest = DigestAlg::kMd5},
    {.type = CKM_MD5_HMAC_GENERAL,
     .name = "CKM_MD5_HMAC_GENERAL",
     .family = MechanismFamily::kHmac,
     .key_type = CKK_GENERIC_SECRET,
     .alt_key_type = CKK_MD5_HMAC,
     .flags = mechanism_flags::kSignVerify,
     .min_key_size = 1,
     .max_key_size = 512,
     .param = ParamKind::kMacLength,
     .digest = DigestAlg::kMd5},
    // Key derivation. ECDH with CK_ECDH1_DERIVE_PARAMS: the KDF (CKD_NULL or
    // the ANSI X9.63 CKD_SHA*_KDF) and the other party's public point. With
    // X25519 / X448 keys (PKCS#11 3.0 section 2.3.6) CKM_ECDH1_DERIVE only.
    {.type = CKM_ECDH1_DERIVE,
     .name = "CKM_ECDH1_DERIVE",
     .family = MechanismFamily::kEcdh,
     .key_type = CKK_EC,
     .alt_key_type = CKK_EC_MONTGOMERY,
     .flags = CKF_DERIVE | mechanism_flags::kEc,
     .min_key_size = 255,
     .max_key_size = 521,
     .param = ParamKind::kEcdh},
    {.type = CKM_ECDH1_COFACTOR_DERIVE,
     .name = "CKM_ECDH1_COFACTOR_DERIVE",
     .family = MechanismFamily::kEcdhCofactor,
     .key_type = CKK_EC,
     .flags = CKF_DERIVE | mechanism_flags::kEc,
     .min_key_size = 256,
     .max_key_size = 521,
     .param = ParamKind::kEcdh},
    // DH (PKCS#11 v2.40 section 2.5.7): the parameter is the other party's
    // public value y, big-endian.
    {.type = CKM_DH_PKCS_DERIVE,
     .name = "CKM_DH_PKCS_DERIVE",
     .family = MechanismFamily::kDh,
     .key_type = CKK_DH,
     .flags = CKF_DERIVE,
     .min_key_size = 2048,
     .max_key_size = 8192,
     .param = ParamKind::kPublicValue},
    // HKDF (PKCS#11 3.0 section 2.43) from a generic secret or CKK_HKDF
    // key of 1-1024 bytes (an ffdhe8192 secret is 1024); CKM_HKDF_KEY_GEN
    // makes CKK_HKDF keys, sizes in bits as for CKM_GENERIC_SECRET_KEY_GEN.
    {.type = CKM_HKDF_DERIVE,
     .name = "CKM_HKDF_DERIVE",
     .family = MechanismFamily::kHkdf,
     .key_type = CKK_GENERIC_SECRET,
     .alt_key_type = CKK_HKDF,
     .flags = CKF_DERIVE,
     .min_key_size = 1,
     .max_key_size = 1024,
     .param = ParamKind::kHkdf},
    // CKM_HKDF_DATA (3.0 section 2.43.7): the same derivation, its output
    // a CKO_DATA object's CKA_VALUE (docs/PKCS11.md "HKDF").
    {.type = CKM_HKDF_DATA,
     .name = "CKM_HKDF_DATA",
     .family = MechanismFamily::kHkdfData,
     .key_type = CKK_GENERIC_SECRET,
     .alt_key_type = CKK_HKDF,
     .flags = CKF_DERIVE,
     .min_key_size = 1,
     .max_key_size = 1024,
     .param = ParamKind::kHkdf},
    {.type = CKM_HKDF_KEY_GEN,
     .name = "CKM_HKDF_KEY_GEN",
     .family = MechanismFamily::kGenericSecretKeyGen,
     .key_type = CKK_HKDF,
     .flags = CKF_GENERATE,
     .min_key_size = 8,
     .max_key_size = 4096},
    // Concatenation and XOR (v2.40 section 2.38) from a secret key of any
    // type, 1-1024 bytes; the encrypt-data derivations (sections 2.10.x,
    // 2.11.x) from an AES or triple-DES key. docs/PKCS11.md "Derived keys".
    {.type = CKM_CONCATENATE_BASE_AND_KEY,
     .name = "CKM_CONCATENATE_BASE_AND_KEY",
     .family = MechanismFamily::kConcatenateBaseAndKey,
     .key_type = CKK_GENERIC_SECRET,
     .flags = CKF_DERIVE,
     .min_key_size = 1,
     .max_key_size = 1024,
     .param = ParamKind::kKeyHandle},
    {.type = CKM_CONCATENATE_BASE_AND_DATA,
     .name = "CKM_CONCATENATE_BASE_AND_DATA",
     .family = MechanismFamily::kConcatenateBaseAndData,
     .key_type = CKK_GENERIC_SECRET,
     .flags = CKF_DERIVE,
     .min_key_size = 1,
     .max_key_size = 1024,
     .param = ParamKind::kStringData},
    {.type = CKM_CONCATENATE_DATA_AND_BASE,
     .name = "CKM_CONCATENATE_DATA_AND_BASE",
     .family = MechanismFamily::kConcatenateDataAndBase,
     .key_type = CKK_GENERIC_SECRET,
     .flags = CKF_DERIVE,
     .min_key_size = 1,
     .max_key_size = 1024,
     .param = ParamKind::kStringData},
    {.type = CKM_XOR_BASE_AND_DATA,
     .name = "CKM_XOR_BASE_AND_DATA",
     .family = MechanismFamily::kXorBaseAndData,
     .key_type = CKK_GENERIC_SECRET,
     .flags = CKF_DERIVE,
     .min_key_size = 1,
     .max_key_size = 1024,
     .param = ParamKind::kStringData},
    {.type = CKM_AES_ECB_ENCRYPT_DATA,
     .name = "CKM_AES_ECB_ENCRYPT_DATA",
     .family = MechanismFamily::kEncryptData,
     .key_type = CKK_AES,
     .flags = CKF_DERIVE,
     .min_key_size = 16,
     .max_key_size = 32,
     .param = ParamKind::kStringData},
    {.type = CKM_AES_CBC_ENCRYPT_DATA,
     .name = "CKM_AES_CBC_ENCRYPT_DATA",
     .family = MechanismFamily::kEncryptData,
     .key_type = CKK_AES,
     .flags = CKF_DERIVE,
     .min_key_size = 16,
     .max_key_size = 32,
     .param = ParamKind::kAesCbcEncryptData},
    {.type = CKM_DES3_ECB_ENCRYPT_DATA,
     .name = "CKM_DES3_ECB_ENCRYPT_DATA",
     .family = MechanismFamily::kEncryptData,
     .key_type = CKK_DES3,
     .alt_key_type = CKK_DES2,
     .flags = CKF_DERIVE,
     .min_key_size = 16,
     .max_key_size = 24,
     .param = ParamKind::kStringData},
    {.type = CKM_DES3_CBC_ENCRYPT_DATA,
     .name = "CKM_DES3_CBC_ENCRYPT_DATA",
     .family = MechanismFamily::kEncryptData,
     .key_type = CKK_DES3,
     .alt_key_type = CKK_DES2,
     .flags = CKF_DERIVE,
     .min_key_size = 16,
     .max_key_size = 24,
     .param = ParamKind::kDesCbcEncryptData},
    // Digests. MD5 is legacy (docs/PKCS11.md).
    {.type = CKM_MD5,
     .name = "CKM_MD5",
     .family = MechanismFamily::kDigest,
     .flags = CKF_DIGEST,
     .digest = DigestAlg::kMd5},
    {.type = CKM_SHA_1,
     .name = "CKM_SHA_1",
     .family = MechanismFamily::kDigest,
     .flags = CKF_DIGEST,
     .digest = DigestAlg::kSha1},
    {.type = CKM_SHA224,
     .name = "CKM_SHA224",
     .family = MechanismFamily::kDigest,
     .flags = CKF_DIGEST,
     .digest = DigestAlg::kSha224},
    {.type = CKM_SHA256,
     .name = "CKM_SHA256",
     .family = MechanismFamily::kDigest,
     .flags = CKF_DIGEST,
     .digest = DigestAlg::kSha256},
    {.type = CKM_SHA384,
     .name = "CKM_SHA384",
     .family = MechanismFamily::kDigest,
     .flags = CKF_DIGEST,
     .digest = DigestAlg::kSha384},
    {.type = CKM_SHA512,
     .name = "CKM_SHA512",
     .family = MechanismFamily::kDigest,
     .flags = CKF_DIGEST,
     .digest = DigestAlg::kSha512},
};

// FindMechanismRow returns the row for `type`, nullptr if signet offers no
// such mechanism.
constexpr const MechanismRow* FindMechanismRow(CK_MECHANISM_TYPE type) {
  for (const MechanismRow& row : kMechanismTable) {
    if (row.type == type) return &row;
  }
  return nullptr;
}

// FindMechanismByCliName returns the row named `name` for the CLI
// ("rsa-pss-sha256"), nullptr if none.
constexpr const MechanismRow* FindMechanismByCliName(std::string_view name) {
  for (const MechanismRow& row : kMechanismTable) {
    if (!row.cli_name.empty() && row.cli_name == name) return &row;
  }
  return nullptr;
}

// NeedsLegacyProvider: the mechanism is single DES, which OpenSSL keeps in
// its legacy provider; signetd offers it only when that provider loaded.
constexpr bool NeedsLegacyProvider(const MechanismRow& row) { return row.key_type == CKK_DES; }

// IsSignature: the family signs and verifies.
constexpr bool IsSignature(MechanismFamily family) {
  return family == MechanismFamily::kRsaPkcs1 || family == MechanismFamily::kRsaPss ||
         family == MechanismFamily::kEcdsa || family == MechanismFamily::kEddsa;
}

// IsMac: the family computes a MAC with a secret key (C_Sign / C_Verify).
constexpr bool IsMac(MechanismFamily family) {
  return family == MechanismFamily::kHmac || family == MechanismFamily::kAesCmac ||
         family == MechanismFamily::kDes3Cmac;
}

// IsGenericSecretKeyType: keys of `key_type` are generic secrets: a value of
// any length that HMAC or HKDF takes (CKK_GENERIC_SECRET, and the PKCS#11
// 3.0 HMAC and HKDF key types the HMAC and HKDF rows name).
constexpr bool IsGenericSecretKeyType(CK_KEY_TYPE key_type) {
  if (key_type == CKK_GENERIC_SECRET) return true;
  for (const MechanismRow& row : kMechanismTable) {
    if ((row.family == MechanismFamily::kHmac || row.family == MechanismFamily::kHkdf) &&
        row.alt_key_type == key_type) {
      return true;
    }
  }
  return false;
}

// DerivesFromAnySecretKey: a derivation family (concatenation, XOR) whose
// base key, and other key, may be a secret key of any type.
constexpr bool DerivesFromAnySecretKey(MechanismFamily family) {
  return family == MechanismFamily::kConcatenateBaseAndKey ||
         family == MechanismFamily::kConcatenateBaseAndData ||
         family == MechanismFamily::kConcatenateDataAndBase ||
         family == MechanismFamily::kXorBaseAndData;
}

// DerivedKeyInherits: a derivation family whose key is sensitive when an
// input key is, and unextractable when one is (v2.40 section 2.38; signet
// holds the encrypt-data forms to it too, docs/PKCS11.md "Derived keys").
constexpr bool DerivedKeyInherits(MechanismFamily family) {
  return DerivesFromAnySecretKey(family) || family == MechanismFamily::kEncryptData;
}

// DerivesData: a derivation family whose output is a CKO_DATA object, not
// a key (CKM_HKDF_DATA).
constexpr bool DerivesData(MechanismFamily family) { return family == MechanismFamily::kHkdfData; }

// DerivesFromPrivateKey: a derivation family whose base key is a private
// key (key agreement: ECDH, DH); the others derive from a secret key's value.
constexpr bool DerivesFromPrivateKey(MechanismFamily family) {
  return family == MechanismFamily::kEcdh || family == MechanismFamily::kEcdhCofactor ||
         family == MechanismFamily::kDh;
}

// SignsDigest: a signature mechanism whose input is already a digest (or,
// for CKM_RSA_PKCS, a DigestInfo): CKM_ECDSA, CKM_RSA_PKCS_PSS. EdDSA always
// signs the whole message.
constexpr bool SignsDigest(const MechanismRow& row) {
  return IsSignature(row.family) && row.family != MechanismFamily::kEddsa &&
         row.digest == DigestAlg::kNone;
}

// AcceptsKeyType: the mechanism works with keys of `key_type` (its row's
// key type or second key type).
constexpr bool AcceptsKeyType(const MechanismRow& row, CK_KEY_TYPE key_type) {
  return key_type == row.key_type ||
         (row.alt_key_type != CK_UNAVAILABLE_INFORMATION && key_type == row.alt_key_type);
}

// MultiPartInDaemon: the daemon keeps the state of this mechanism's
// multi-part operations (C_*Update), so input of any length passes through
// in bounded memory: the block ciphers, AES-GCM, MACs and digests. The
// module buffers the input of the others up to one frame (single-part
// mechanisms such as RSA encryption, and signatures).
constexpr bool MultiPartInDaemon(const MechanismRow& row) {
  switch (row.family) {
    case MechanismFamily::kAesEcb:
    case MechanismFamily::kAesCbc:
    case MechanismFamily::kAesCbcPad:
    case MechanismFamily::kAesCtr:
    case MechanismFamily::kAesGcm:
    case MechanismFamily::kDesEcb:
    case MechanismFamily::kDesCbc:
    case MechanismFamily::kDesCbcPad:
    case MechanismFamily::kHmac:
    case MechanismFamily::kAesCmac:
    case MechanismFamily::kDes3Cmac:
    case MechanismFamily::kDigest:
      return true;
    default:
      return false;
  }
}

// KeyPairGenFor returns the key-pair generation row for keys of `key_type`,
// nullptr if none.
constexpr const MechanismRow* KeyPairGenFor(CK_KEY_TYPE key_type) {
  for (const MechanismRow& row : kMechanismTable) {
    if ((row.flags & CKF_GENERATE_KEY_PAIR) != 0 && row.key_type == key_type) return &row;
  }
  return nullptr;
}

}  // namespace signet
