// The CLI's names for signature mechanisms ("rsa-pss-sha256"): the
// cli_name column of the mechanism table (base/mechanism_table.h), where
// every other fact about the mechanism (key type, digest, family) is too.
// Hash-and-sign mechanisms only: the daemon hashes the message, so the
// signature is what `openssl dgst -sign` would produce for the same key.
// Messages too large for one request are hashed by the CLI and sent to the
// mechanism of the same family that takes a digest (sign_input.h).
// Constant data: safe from any thread.
#pragma once

#include <string>
#include <string_view>

#include "base/mechanism_table.h"
#include "signet/result.hpp"

namespace signet::cli {

// ParseMechanismName finds a CLI name; CKR_MECHANISM_INVALID listing the
// valid names otherwise. The pointer is to static data.
Result<const MechanismRow*> ParseMechanismName(std::string_view name);

// MechanismNames: every name, comma-separated, for help texts.
std::string MechanismNames();

// WritesDerSignature: the daemon returns ECDSA signatures in PKCS#11's raw
// r||s form, while files hold DER (what `openssl dgst` reads).
inline bool WritesDerSignature(const MechanismRow& row) {
  return row.family == MechanismFamily::kEcdsa;
}

}  // namespace signet::cli
