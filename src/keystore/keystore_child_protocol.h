// What keystore_child and the process tests agree on: token options for
// files the child opens and its exit codes. Test-only header.
#pragma once

#include <p11-kit/pkcs11.h>

#include <cstdint>
#include <utility>

namespace signet::keystore {

inline constexpr std::uint64_t kChildScryptN = 1024;
inline constexpr int kChildMaxPinFailures = 3;
inline constexpr int kExitPinIncorrect = 3;
inline constexpr int kExitPinLocked = 4;

// kChildExitCodes: CK_RV → exit status, for errors the parent tests for.
inline constexpr std::pair<CK_RV, int> kChildExitCodes[] = {
    {CKR_PIN_INCORRECT, kExitPinIncorrect},
    {CKR_PIN_LOCKED, kExitPinLocked},
};

}  // namespace signet::keystore
