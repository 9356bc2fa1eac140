#include "cli/mechanism_names.h"

#include <array>

namespace signet::cli {
namespace {

// Hash-and-sign mechanisms only: the daemon hashes the message, so the
// signature is what `openssl dgst -sign` would produce for the same key.
constexpr auto kMechanisms = std::to_array<NamedMechanism>({
    {"rsa-pkcs1-sha256", CKM_SHA256_RSA_PKCS, false},
    {"rsa-pkcs1-sha384", CKM_SHA384_RSA_PKCS, false},
    {"rsa-pkcs1-sha512", CKM_SHA512_RSA_PKCS, false},
    {"rsa-pss-sha256", CKM_SHA256_RSA_PKCS_PSS, false},
    {"rsa-pss-sha384", CKM_SHA384_RSA_PKCS_PSS, false},
    {"rsa-pss-sha512", CKM_SHA512_RSA_PKCS_PSS, false},
    {"ecdsa-sha256", CKM_ECDSA_SHA256, true},
    {"ecdsa-sha384", CKM_ECDSA_SHA384, true},
    {"ecdsa-sha512", CKM_ECDSA_SHA512, true},
    {"ed25519", CKM_EDDSA, false},
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
