// The CLI's names for signature mechanisms ("rsa-pss-sha256") and the
// PKCS#11 mechanism each stands for. What a mechanism does (key type,
// digest, scheme) stays in core's mechanism table and the daemon; this only
// spells the user-facing names. Constant data: safe from any thread.
#pragma once

#include <string>
#include <string_view>

#include "crypto/digest.h"
#include "signet/result.hpp"

namespace signet::cli {

// RawForm: how a message too large for one request is signed instead:
// hashed by the CLI and given to the mechanism that takes a digest.
enum class RawForm { kNone, kRsaPkcs1, kRsaPss, kEcdsa };

// NamedMechanism: one CLI name. der_signature: the daemon returns the
// PKCS#11 raw r||s form, while files hold DER (what `openssl dgst` reads).
// digest: the hash the mechanism applies (kNone for Ed25519).
struct NamedMechanism {
  std::string_view name;
  CK_MECHANISM_TYPE type;
  bool der_signature;
  crypto::DigestAlg digest;
  RawForm raw_form;
};

// ParseMechanismName finds a CLI name; CKR_MECHANISM_INVALID listing the
// valid names otherwise. The pointer is to static data.
Result<const NamedMechanism*> ParseMechanismName(std::string_view name);

// MechanismNames: every name, comma-separated, for help texts.
std::string MechanismNames();

}  // namespace signet::cli
