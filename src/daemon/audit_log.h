// AuditLog: signetd's chained audit log (`--audit-log FILE`,
// `--audit-syslog`; docs/SECURITY.md "Audit log"). Each record is one JSON
// line (base/audit_format.h) carrying its number in the file ("seq"), the
// UTC time, and "prev", the SHA-256 of the previous line's bytes; the first
// line of each file is a header whose "prev" is a random start it records,
// so a line edited, deleted or moved breaks the chain where it was.
//
// Durability: Append returns only after the line is written and
// fdatasync()ed, so the dispatcher writes it before the reply it records
// leaves. A file is closed with an end record (Rotate, Close), renamed
// aside as FILE.<UTC time> and followed by a new FILE whose header names
// it and its last line's hash. A FILE found at Open is set aside the same
// way (without an end record: its writer is gone).
//
// Thread contract: every method may be called from any thread; one mutex
// serialises seq, prev and the file (the signing path never comes here).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "base/mutex.h"
#include "signet/result.hpp"

namespace signet::daemon {

// AuditLogOptions: where the records go and when a file is rotated.
struct AuditLogOptions {
  // path: the log file; empty for none (syslog only).
  std::filesystem::path path;
  // syslog: also send every line to syslog(3), facility LOG_AUTHPRIV.
  bool syslog = false;
  // max_bytes: rotate once the file reaches this size (0: never by size).
  std::uint64_t max_bytes = 0;
  // clock: the records' time and the rotated files' names (a seam for tests).
  std::function<std::chrono::system_clock::time_point()> clock = [] {
    return std::chrono::system_clock::now();
  };
};

class AuditLog {
 public:
  // Open starts the log: sets a FILE already there aside, creates FILE and
  // writes its header (synced, with the directory). An error when the file
  // cannot be created or written: signetd then refuses to start.
  static Result<std::unique_ptr<AuditLog>> Open(AuditLogOptions options);
  // ~AuditLog closes the log like Close(kReasonShutdown) if still open.
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  // Append writes `fields` (a JSON object: the request's record) as the
  // next line, after "seq", "time" and "prev", and syncs it. On error
  // nothing of the line stays in the file and the chain is unchanged; the
  // error says why (CKR_DEVICE_ERROR). Rotates afterwards when the file
  // reached max_bytes (a failed rotation is logged, not returned: the line
  // is written).
  Status Append(const nlohmann::ordered_json& fields) EXCLUDES(mu_);

  // Rotate closes the file with an end record giving `reason`, renames it
  // to FILE.<UTC time> (unless someone moved it away already: then the new
  // file's header names no file, only the hash), and starts a new FILE.
  // With no file (syslog only), nothing. On error the current file stays
  // in use.
  Status Rotate(std::string_view reason) EXCLUDES(mu_);

  // Close writes the end record with `reason` and closes the log; later
  // Appends fail. Idempotent.
  Status Close(std::string_view reason) EXCLUDES(mu_);

 private:
  explicit AuditLog(AuditLogOptions options);

  // Write sends one line (without its newline) to the file and syslog and
  // advances seq and prev; the error leaves both, and the file, as before.
  Status Write(nlohmann::ordered_json line) REQUIRES(mu_);
  // StartFile draws a new start and writes the header of the file open as
  // fd_ (or of the syslog stream), which continues `previous_last_hash`.
  Status StartFile(const std::optional<std::string>& previous_file,
                   const std::optional<std::string>& previous_last_hash) REQUIRES(mu_);
  // WritePendingHeader writes the header StartFile could not (nothing if
  // none is pending): a file's records never precede its header.
  Status WritePendingHeader() REQUIRES(mu_);
  Status RotateLocked(std::string_view reason) REQUIRES(mu_);
  Status CloseLocked(std::string_view reason) REQUIRES(mu_);

  const AuditLogOptions options_;
  base::Mutex mu_;
  int fd_ GUARDED_BY(mu_) = -1;
  bool closed_ GUARDED_BY(mu_) = false;
  std::uint64_t seq_ GUARDED_BY(mu_) = 0;   // the next line's
  std::string prev_ GUARDED_BY(mu_);        // hex SHA-256 of the last line
  std::uint64_t size_ GUARDED_BY(mu_) = 0;  // bytes in the current file
  std::optional<nlohmann::ordered_json> pending_header_ GUARDED_BY(mu_);
};

}  // namespace signet::daemon
