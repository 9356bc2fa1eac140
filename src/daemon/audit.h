// AuditRecord: the audit log's record of a security-relevant request, one
// per request: who (the connection's peer), what (login, PIN and token
// changes, key creation, import, copy, change, destruction, wrap, unwrap and
// derivation), on which token, with which key label or handle, and the
// result by name. Signatures and other uses of a key are not recorded one
// by one (`signet stats` counts them). The record is printed as a text line
// on stderr (AuditText) or, with `signetd --audit-log`, as the fields of a
// chained JSON line (AuditJson, daemon/audit_log.h).
//
// Never contains a secret: PINs and attribute values are not read, except
// CKA_LABEL and CKA_ID (escaped: only printable ASCII, other bytes as \xNN)
// and the numeric CKA_CLASS / CKA_KEY_TYPE. Thread-safe: it locks the client
// state only to find a session's slot.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/client_state.h"
#include "proto/signet_generated.h"

namespace signet::daemon {

// AuditField: one named value of a record, in the order the line prints it.
struct AuditField {
  enum class Kind {
    kText,    // printed as is (names, handles "0x..", CK_RV names)
    kQuoted,  // client bytes, already escaped; the text line quotes them
    kNumber,  // a decimal number (a slot id, a count): a JSON number
  };
  std::string name;
  std::string value;
  Kind kind = Kind::kText;
};

// AuditRecord: the fields of one audited request, "op" first, "result" and
// "peer" last.
struct AuditRecord {
  std::vector<AuditField> fields;
};

// DescribeAudited returns the record of an audited request that ended with
// `rv`, nullopt for any other request.
std::optional<AuditRecord> DescribeAudited(const wire::Request& request, CK_RV rv,
                                           core::ClientState& client) EXCLUDES(client.mu);

// AuditText returns "audit op=... result=... peer=..." for stderr: one
// line, quoted fields in double quotes.
std::string AuditText(const AuditRecord& record);

// AuditJson returns the record's fields as one JSON object in their order
// (a quoted field as its escaped text, a number as a JSON number).
nlohmann::ordered_json AuditJson(const AuditRecord& record);

}  // namespace signet::daemon
