#include "cli/mechanism_names.h"

#include <array>

namespace signet::cli {
namespace {

using crypto::DigestAlg;

// Hash-and-sign mechanisms only: the daemon hashes the message, so the
// signature is what `openssl dgst -sign` would produce for the same key.
// Messages too large for one request are hashed by the CLI and sent in the
// raw form instead (sign_input.h); the signature is the same.
constexpr auto kMechanisms = std::to_array<NamedMechanism>({
    {"rsa-pkcs1-sha256", CKM_SHA256_RSA_PKCS, false, DigestAlg::kSha256, RawForm::kRsaPkcs1},
    {"rsa-pkcs1-sha384", CKM_SHA384_RSA_PKCS, false, DigestAlg::kSha384, RawForm::kRsaPkcs1},
    {"rsa-pkcs1-sha512", CKM_SHA512_RSA_PKCS, false, DigestAlg::kSha512, RawForm::kRsaPkcs1},
    {"rsa-pss-sha256", CKM_SHA256_RSA_PKCS_PSS, false, DigestAlg::kSha256, RawForm::kRsaPss},
    {"rsa-pss-sha384", CKM_SHA384_RSA_PKCS_PSS, false, DigestAlg::kSha384, RawForm::kRsaPss},
    {"rsa-pss-sha512", CKM_SHA512_RSA_PKCS_PSS, false, DigestAlg::kSha512, RawForm::kRsaPss},
    {"ecdsa-sha256", CKM_ECDSA_SHA256, true, DigestAlg::kSha256, RawForm::kEcdsa},
    {"ecdsa-sha384", CKM_ECDSA_SHA384, true, DigestAlg::kSha384, RawForm::kEcdsa},
    {"ecdsa-sha512", CKM_ECDSA_SHA512, true, DigestAlg::kSha512, RawForm::kEcdsa},
    {"ed25519", CKM_EDDSA, false, DigestAlg::kNone, RawForm::kNone},
});

}  // namespace

Result<const NamedMechanism*> ParseMechanismName(std::string_view name) {
  for (const NamedMechanism& mechanism : kMechanisms) {
    if (mechanism.name == name) return &mechanism;
  }
  return MakeError(CKR_MECHANISM_INVALID,
                   "unknown mechanism '" + std::string(name) + "' (want " + MechanismNames() + ")");
}

std::string MechanismNames() {
  std::string names;
  for (const NamedMechanism& mechanism : kMechanisms) {
    if (!names.empty()) names += ", ";
    names += mechanism.name;
  }
  return names;
}

}  // namespace signet::cli
