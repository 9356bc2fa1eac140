// AuditLine: the daemon log's record of a security-relevant request, one
// line per request: who (the connection's peer), what (login, PIN and
// token changes, key creation, import, copy, change, destruction, wrap and
// unwrap), on which token, with which key label or handle, and the result
// by name. Signatures and other uses of a key are not logged one by one
// (`signet stats` counts them).
//
// Never contains a secret: PINs and attribute values are not read, except
// CKA_LABEL and CKA_ID (printed escaped: non-printable bytes as \xNN) and
// the numeric CKA_CLASS / CKA_KEY_TYPE. Thread-safe: it locks the client
// state only to find a session's slot.
#pragma once

#include <optional>
#include <string>

#include "core/client_state.h"
#include "proto/signet_generated.h"

namespace signet::daemon {

// AuditLine returns "audit op=... result=... peer=..." for an audited
// request, nullopt for any other.
std::optional<std::string> AuditLine(const wire::Request& request, CK_RV rv,
                                     core::ClientState& client) EXCLUDES(client.mu);

}  // namespace signet::daemon
