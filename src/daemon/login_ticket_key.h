// ReadLoginTicketKeys: the keys the nodes of one shared keystore seal
// re-login tickets with (core/login_ticket.h; `signetd --login-ticket-key
// FILE`). The file holds one to kMaxLoginTicketKeys keys, each 32 bytes as
// 64 hex digits on a line of its own (`openssl rand -hex 32`): the first
// seals new tickets, every one opens them, so the key can be rotated with
// no ticket refused (docs/SCALING.md "Running it"). It must be readable
// by its owner alone: a ticket plus its key opens the PIN inside. Every
// node of the keystore gets the same file; it never goes into the
// database.
#pragma once

#include <cstddef>
#include <filesystem>
#include <vector>

#include "base/secure_bytes.h"
#include "signet/result.hpp"

namespace signet::daemon {

// kMaxLoginTicketKeys: the new key, the current one and the one before.
inline constexpr std::size_t kMaxLoginTicketKeys = 3;

// ReadLoginTicketKeys: CKR_ARGUMENTS_BAD (with the reason) for a file that
// cannot be read, that others may read, or that holds anything else.
Result<std::vector<SecureBytes>> ReadLoginTicketKeys(const std::filesystem::path& file);

}  // namespace signet::daemon
