// PIN policy: the rules every PIN a token stores must meet. They live here,
// below both callers that set PINs — signetd (core::Hsm: InitToken, InitPin,
// SetPin) and the offline `signet init` (cli/, which links the keystore but
// not core/) — and the keystore's Token enforces them on every PIN it seals
// (Create, InitUserPin, SetPin), so no path to a token can skip them.
// Callers may check earlier to answer before other work (core/ does, so a
// re-initialisation with a bad user PIN is refused before the token is
// wiped). Pure functions, safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "signet/result.hpp"

namespace signet::keystore {

// kMinPinLen / kMaxPinLen: the PIN length bounds in bytes, reported as
// CK_TOKEN_INFO's ulMinPinLen / ulMaxPinLen.
inline constexpr std::size_t kMinPinLen = 4;
inline constexpr std::size_t kMaxPinLen = 256;

// CheckPinLength returns OK when `pin` is kMinPinLen..kMaxPinLen bytes long,
// else CKR_PIN_LEN_RANGE "<which> length must be 4-256 bytes". `which`
// names the PIN for the message ("SO PIN", "PIN"). The PIN is not copied.
Status CheckPinLength(std::span<const std::uint8_t> pin, std::string_view which);

}  // namespace signet::keystore
