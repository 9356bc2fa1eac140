// Mechanism table: every mechanism signet offers, declared once, with the
// key type it needs, the CK_MECHANISM_INFO it reports (key size range and
// flags) and, for signatures, the crypto/ scheme and digest it maps to.
// core/ checks requests against it; the daemon sends it in GetInfo, so the
// PKCS#11 module's C_GetMechanismList/C_GetMechanismInfo come from it too.
// Immutable static data: safe from any thread.
#pragma once

#include <span>
#include <string_view>

#include "crypto/digest.h"
#include "crypto/sign.h"
#include "signet/protocol.hpp"
#include "signet/result.hpp"

namespace signet::core {

// MechanismRule: one row. Key sizes are in bits for RSA/EC/EdDSA and in
// bytes for AES (PKCS#11 §2: "ulMinKeySize ... in bits or bytes depending
// on the mechanism").
struct MechanismRule {
  CK_MECHANISM_TYPE type;
  std::string_view name;
  CK_KEY_TYPE key_type;  // key the mechanism works with; ignored for digests
  CK_FLAGS flags;        // CKF_SIGN | CKF_VERIFY | CKF_GENERATE_KEY_PAIR ...
  CK_ULONG min_key_size;
  CK_ULONG max_key_size;
  crypto::SignScheme scheme;  // signature mechanisms only
  crypto::DigestAlg digest;   // hash applied by the mechanism (kNone: caller hashed)
  bool prehashed;             // signature input is a digest (CKM_ECDSA, CKM_RSA_PKCS_PSS)
};

// FindMechanism returns the row for `type`; CKR_MECHANISM_INVALID if none.
Result<const MechanismRule*> FindMechanism(CK_MECHANISM_TYPE type);

// AllMechanisms lists the table in the order GetInfo reports it.
std::span<const MechanismRule> AllMechanisms();

// DigestForMechanism maps CKM_SHA256 etc. (used as digest mechanism or as a
// PSS hashAlg) to a DigestAlg; kNone when not a hash mechanism.
crypto::DigestAlg DigestForMechanism(CK_MECHANISM_TYPE type);

// DigestForMgf maps CKG_MGF1_SHA256 etc. to a DigestAlg; kNone if unknown.
crypto::DigestAlg DigestForMgf(CK_RSA_PKCS_MGF_TYPE mgf);

}  // namespace signet::core
