// Re-login tickets (docs/SCALING.md "The PIN trade-off"): after a login, a
// node that holds the nodes' shared ticket key hands the PKCS#11 module a
// ticket with which the module logs in again on another node when its node
// dies, without keeping the PIN itself.
//
// ticket = "SGTK" || version 1 || expiry (u64 big-endian, Unix seconds)
//          || nonce (12) || AES-256-GCM(ticket key, nonce, PIN)
// with the token's serial, the user type and the header as the GCM
// associated data, so a ticket opens only for the token and user it was
// issued for, only before its expiry, and only with the key. Pure
// functions: safe from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <string_view>

#include "base/secure_bytes.h"
#include "keystore/pin_policy.h"
#include "keystore/token.h"

namespace signet::core {

// kLoginTicketKeySize: the ticket key is AES-256's.
inline constexpr std::size_t kLoginTicketKeySize = 32;

using TicketClock = std::chrono::system_clock;

// SealLoginTicket makes a ticket for `pin` of `user` on the token `serial`,
// good until `expiry`. CKR_ARGUMENTS_BAD for a key of the wrong size.
Result<Bytes> SealLoginTicket(ByteView key, std::string_view serial, keystore::UserType user,
                              ByteView pin, TicketClock::time_point expiry);

// OpenLoginTicket returns the PIN inside `ticket` when it was sealed under
// `key` for this serial and user: CKR_PIN_EXPIRED past its expiry,
// CKR_PIN_INCORRECT for any other ticket (forged, damaged, another token's,
// another user's, another key's).
Result<SecureBytes> OpenLoginTicket(ByteView key, std::string_view serial, keystore::UserType user,
                                    ByteView ticket, TicketClock::time_point now);

}  // namespace signet::core
