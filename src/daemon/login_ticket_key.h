// ReadLoginTicketKey: the key the nodes of one shared keystore seal re-login
// tickets with (core/login_ticket.h; `signetd --login-ticket-key FILE`).
// The file holds the 32 bytes as 64 hex digits (`openssl rand -hex 32`),
// a final newline allowed, and must be readable by its owner alone: a
// ticket plus this key opens the PIN inside. Every node of the keystore
// gets the same file; it never goes into the database. docs/SCALING.md.
#pragma once

#include <filesystem>

#include "base/secure_bytes.h"
#include "signet/result.hpp"

namespace signet::daemon {

// ReadLoginTicketKey: CKR_ARGUMENTS_BAD (with the reason) for a file that
// cannot be read, that others may read, or that holds anything else.
Result<SecureBytes> ReadLoginTicketKey(const std::filesystem::path& file);

}  // namespace signet::daemon
