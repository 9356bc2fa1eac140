#include "core/mechanisms.h"

#include <algorithm>
#include <string>

namespace signet::core {
namespace {

using crypto::DigestAlg;
using crypto::SignScheme;

constexpr CK_FLAGS kSignVerify = CKF_SIGN | CKF_VERIFY;
constexpr CK_FLAGS kEcFlags = CKF_EC_F_P | CKF_EC_NAMEDCURVE | CKF_EC_UNCOMPRESS;

constexpr MechanismRule kMechanisms[] = {
    // Key generation.
    {CKM_RSA_PKCS_KEY_PAIR_GEN, "CKM_RSA_PKCS_KEY_PAIR_GEN", CKK_RSA, CKF_GENERATE_KEY_PAIR, 1024,
     4096, SignScheme::kRsaPkcs1, DigestAlg::kNone, false},
    {CKM_EC_KEY_PAIR_GEN, "CKM_EC_KEY_PAIR_GEN", CKK_EC, CKF_GENERATE_KEY_PAIR | kEcFlags, 256, 521,
     SignScheme::kEcdsa, DigestAlg::kNone, false},
    {CKM_EC_EDWARDS_KEY_PAIR_GEN, "CKM_EC_EDWARDS_KEY_PAIR_GEN", CKK_EC_EDWARDS,
     CKF_GENERATE_KEY_PAIR, 255, 255, SignScheme::kEd25519, DigestAlg::kNone, false},
    {CKM_AES_KEY_GEN, "CKM_AES_KEY_GEN", CKK_AES, CKF_GENERATE, 16, 32, SignScheme::kRsaPkcs1,
     DigestAlg::kNone, false},
    // RSA signatures.
    {CKM_RSA_PKCS, "CKM_RSA_PKCS", CKK_RSA, kSignVerify, 1024, 4096, SignScheme::kRsaPkcs1,
     DigestAlg::kNone, true},
    {CKM_SHA256_RSA_PKCS, "CKM_SHA256_RSA_PKCS", CKK_RSA, kSignVerify, 1024, 4096,
     SignScheme::kRsaPkcs1, DigestAlg::kSha256, false},
    {CKM_SHA384_RSA_PKCS, "CKM_SHA384_RSA_PKCS", CKK_RSA, kSignVerify, 1024, 4096,
     SignScheme::kRsaPkcs1, DigestAlg::kSha384, false},
    {CKM_SHA512_RSA_PKCS, "CKM_SHA512_RSA_PKCS", CKK_RSA, kSignVerify, 1024, 4096,
     SignScheme::kRsaPkcs1, DigestAlg::kSha512, false},
    {CKM_RSA_PKCS_PSS, "CKM_RSA_PKCS_PSS", CKK_RSA, kSignVerify, 1024, 4096, SignScheme::kRsaPss,
     DigestAlg::kNone, true},
    {CKM_SHA256_RSA_PKCS_PSS, "CKM_SHA256_RSA_PKCS_PSS", CKK_RSA, kSignVerify, 1024, 4096,
     SignScheme::kRsaPss, DigestAlg::kSha256, false},
    {CKM_SHA384_RSA_PKCS_PSS, "CKM_SHA384_RSA_PKCS_PSS", CKK_RSA, kSignVerify, 1024, 4096,
     SignScheme::kRsaPss, DigestAlg::kSha384, false},
    {CKM_SHA512_RSA_PKCS_PSS, "CKM_SHA512_RSA_PKCS_PSS", CKK_RSA, kSignVerify, 1024, 4096,
     SignScheme::kRsaPss, DigestAlg::kSha512, false},
    // ECDSA and EdDSA.
    {CKM_ECDSA, "CKM_ECDSA", CKK_EC, kSignVerify | kEcFlags, 256, 521, SignScheme::kEcdsa,
     DigestAlg::kNone, true},
    {CKM_ECDSA_SHA256, "CKM_ECDSA_SHA256", CKK_EC, kSignVerify | kEcFlags, 256, 521,
     SignScheme::kEcdsa, DigestAlg::kSha256, false},
    {CKM_ECDSA_SHA384, "CKM_ECDSA_SHA384", CKK_EC, kSignVerify | kEcFlags, 256, 521,
     SignScheme::kEcdsa, DigestAlg::kSha384, false},
    {CKM_ECDSA_SHA512, "CKM_ECDSA_SHA512", CKK_EC, kSignVerify | kEcFlags, 256, 521,
     SignScheme::kEcdsa, DigestAlg::kSha512, false},
    {CKM_EDDSA, "CKM_EDDSA", CKK_EC_EDWARDS, kSignVerify, 255, 255, SignScheme::kEd25519,
     DigestAlg::kNone, false},
    // AES.
    {CKM_AES_GCM, "CKM_AES_GCM", CKK_AES, CKF_ENCRYPT | CKF_DECRYPT, 16, 32, SignScheme::kRsaPkcs1,
     DigestAlg::kNone, false},
    {CKM_AES_KEY_WRAP_KWP, "CKM_AES_KEY_WRAP_KWP", CKK_AES, CKF_WRAP | CKF_UNWRAP, 16, 32,
     SignScheme::kRsaPkcs1, DigestAlg::kNone, false},
    // Digests.
    {CKM_SHA_1, "CKM_SHA_1", CKK_VENDOR_DEFINED, CKF_DIGEST, 0, 0, SignScheme::kRsaPkcs1,
     DigestAlg::kSha1, false},
    {CKM_SHA256, "CKM_SHA256", CKK_VENDOR_DEFINED, CKF_DIGEST, 0, 0, SignScheme::kRsaPkcs1,
     DigestAlg::kSha256, false},
    {CKM_SHA384, "CKM_SHA384", CKK_VENDOR_DEFINED, CKF_DIGEST, 0, 0, SignScheme::kRsaPkcs1,
     DigestAlg::kSha384, false},
    {CKM_SHA512, "CKM_SHA512", CKK_VENDOR_DEFINED, CKF_DIGEST, 0, 0, SignScheme::kRsaPkcs1,
     DigestAlg::kSha512, false},
};

}  // namespace

Result<const MechanismRule*> FindMechanism(CK_MECHANISM_TYPE type) {
  for (const MechanismRule& rule : kMechanisms) {
    if (rule.type == type) return &rule;
  }
  return MakeError(CKR_MECHANISM_INVALID,
                   "mechanism " + std::to_string(type) + " is not supported");
}

std::span<const MechanismRule> AllMechanisms() { return kMechanisms; }

crypto::DigestAlg DigestForMechanism(CK_MECHANISM_TYPE type) {
  for (const MechanismRule& rule : kMechanisms) {
    if (rule.type == type && (rule.flags & CKF_DIGEST) != 0) return rule.digest;
  }
  return DigestAlg::kNone;
}

crypto::DigestAlg DigestForMgf(CK_RSA_PKCS_MGF_TYPE mgf) {
  switch (mgf) {
    case CKG_MGF1_SHA1:
      return DigestAlg::kSha1;
    case CKG_MGF1_SHA256:
      return DigestAlg::kSha256;
    case CKG_MGF1_SHA384:
      return DigestAlg::kSha384;
    case CKG_MGF1_SHA512:
      return DigestAlg::kSha512;
    default:
      return DigestAlg::kNone;
  }
}

}  // namespace signet::core
