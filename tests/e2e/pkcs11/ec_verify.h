// VerifyEcdsaP256: an independent check (OpenSSL's EVP, not signet's code)
// of a PKCS#11-form ECDSA signature (raw r||s) over `message` with SHA-256.
// Stateless; safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace signet::e2e {

// VerifyEcdsaP256 returns true when `sig` (64 bytes r||s) verifies under the
// PEM public key.
bool VerifyEcdsaP256(const std::string& public_pem, const std::vector<std::uint8_t>& message,
                     const std::vector<std::uint8_t>& sig);

}  // namespace signet::e2e
