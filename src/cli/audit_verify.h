// VerifyAuditLog: the checks behind `signet audit verify` for signetd's
// chained audit log (docs/SECURITY.md "Audit log", base/audit_format.h):
// every line complete and a JSON object, seq counting up from 0, each prev
// the hash of the line before, the first line a header whose prev is its
// start, and, across files given oldest first, each header naming the
// previous file's last line hash. It reports the first break by file and
// line, saying which line was changed, deleted, moved or cut where the
// chain tells; what is no break but worth knowing (a file still open, one
// a killed daemon left without an end record) goes to notes. Pure: works
// on bytes already read; safe from any thread.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace signet::cli {

// AuditLogFile: one file of the log, `name` as the report shows it.
struct AuditLogFile {
  std::string name;
  std::string bytes;
};

// AuditBreak: where the chain breaks first (line counts from 1) and why.
struct AuditBreak {
  std::string file;
  std::size_t line = 0;
  std::string reason;
};

// AuditFileSummary: what one intact file holds.
struct AuditFileSummary {
  std::string name;
  std::size_t records = 0;  // lines, header and end record included
  std::string start;
  std::string last_hash;
  bool closed = false;  // ends with an end record
};

// AuditVerification: the outcome. When `broken` is set, files, records,
// start and last_hash cover what was checked before the break.
struct AuditVerification {
  std::optional<AuditBreak> broken;
  std::vector<std::string> notes;
  std::vector<AuditFileSummary> files;
  std::size_t records = 0;
  std::string start;      // the first file's start
  std::string last_hash;  // the hash of the last line of the last file
};

// VerifyAuditLog checks `files`, oldest first.
AuditVerification VerifyAuditLog(const std::vector<AuditLogFile>& files);

}  // namespace signet::cli
