// VerifyEcdsaP256: an independent check (OpenSSL's EVP, not signet's code)
// of a PKCS#11-form ECDSA signature (raw r||s) over `message` with SHA-256;
// P256PointToPem turns a CKA_EC_POINT into a public key OpenSSL reads.
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

// P256PointToPem: PEM of the P-256 public key whose CKA_EC_POINT (a DER
// OCTET STRING, 04 41 <65-byte point>) is `der_point`; "" if malformed.
std::string P256PointToPem(const std::vector<std::uint8_t>& der_point);

}  // namespace signet::e2e
