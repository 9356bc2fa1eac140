// What each kind of cryptographic operation (signet/types.hpp
// OperationKind) asks of its mechanism and key: the CK_MECHANISM_INFO flag
// the mechanism must have, and the key's usage attribute (0: no key).
// Read by the module's C_*Init checks and the daemon's multi-part start,
// so both check the same facts. Header-only constexpr data.
#pragma once

#include <p11-kit/pkcs11.h>

#include <cstddef>

#include "signet/types.hpp"

namespace signet {

struct OperationRule {
  OperationKind kind;
  CK_FLAGS mechanism_flag;      // CK_MECHANISM_INFO.flags bit
  CK_ATTRIBUTE_TYPE key_usage;  // the key's permission attribute; 0: no key
};

// kOperationRules: indexed by OperationKind.
inline constexpr OperationRule kOperationRules[kOperationKindCount] = {
    {OperationKind::kSign, CKF_SIGN, CKA_SIGN},
    {OperationKind::kVerify, CKF_VERIFY, CKA_VERIFY},
    {OperationKind::kDigest, CKF_DIGEST, 0},
    {OperationKind::kEncrypt, CKF_ENCRYPT, CKA_ENCRYPT},
    {OperationKind::kDecrypt, CKF_DECRYPT, CKA_DECRYPT},
};

constexpr const OperationRule& RuleFor(OperationKind kind) {
  return kOperationRules[static_cast<std::size_t>(kind)];
}

static_assert(RuleFor(OperationKind::kDecrypt).kind == OperationKind::kDecrypt);
static_assert(RuleFor(OperationKind::kSign).kind == OperationKind::kSign);

}  // namespace signet
