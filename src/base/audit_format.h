// The chained audit log's record format (docs/SECURITY.md "Audit log"): the
// names of the fields and events that signetd's writer (daemon/audit_log.h)
// puts on every line and `signet audit verify` checks, written once so the
// two cannot drift. Each line is one JSON object; its "prev" is the
// lowercase hex SHA-256 of the previous line's exact bytes (without the
// newline), and the first line's "prev" is its own "start".
// Constants only: safe from any thread.
#pragma once

#include <cstddef>
#include <string_view>

namespace signet::audit_format {

// kSeq, kTime, kPrev: on every line. seq counts from 0 in each file; time
// is UTC RFC 3339 with microseconds ("2026-12-02T15:17:33.123456Z").
inline constexpr std::string_view kSeq = "seq";
inline constexpr std::string_view kTime = "time";
inline constexpr std::string_view kPrev = "prev";

// kEvent: on the header and the end record; a request's record has "op".
inline constexpr std::string_view kEvent = "event";
inline constexpr std::string_view kOp = "op";

// kStartEvent: the first line of each file. kStart is its 32 random bytes
// (hex), the chain's origin; kPreviousFile and kPreviousLastHash name the
// file it continues and that file's last line hash (null for a new log).
inline constexpr std::string_view kStartEvent = "audit_log_start";
inline constexpr std::string_view kStart = "start";
inline constexpr std::string_view kPreviousFile = "previous_file";
inline constexpr std::string_view kPreviousLastHash = "previous_last_hash";

// kEndEvent: the last line of a file closed by rotation or a clean
// shutdown; kReason says which (kReasonSighup, kReasonSize, kReasonShutdown).
inline constexpr std::string_view kEndEvent = "audit_log_end";
inline constexpr std::string_view kReason = "reason";
inline constexpr std::string_view kReasonSighup = "sighup";
inline constexpr std::string_view kReasonSize = "size";
inline constexpr std::string_view kReasonShutdown = "shutdown";

// kHashHexLength: a SHA-256 (and the random start) as hex digits.
inline constexpr std::size_t kHashHexLength = 64;

}  // namespace signet::audit_format
