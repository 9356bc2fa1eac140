#include "daemon/audit_log.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "base/audit_format.h"
#include "base/hex.h"
#include "base/secure_bytes.h"
#include "crypto/digest.h"
#include "crypto/symmetric.h"
#include "daemon/log.h"
#include "keystore/data_dir.h"

namespace signet::daemon {
namespace {

namespace fmt = audit_format;
using Json = nlohmann::ordered_json;
using TimePoint = std::chrono::system_clock::time_point;

// kStartBytes: the random start's length (hex: twice as many digits).
constexpr std::size_t kStartBytes = 32;

Error ErrnoError(const std::string& what, const std::filesystem::path& path, int err) {
  return MakeError(CKR_DEVICE_ERROR,
                   "audit log " + path.string() + ": " + what + ": " + std::strerror(err));
}

std::string Sha256Hex(std::string_view line) {
  auto digest = crypto::Digest(DigestAlg::kSha256, AsBytes(line));
  return digest.ok() ? ToHex(*digest) : std::string();
}

// FormatTime: `format` (strftime, UTC) then the microseconds and "Z".
std::string FormatTime(TimePoint t, const char* format, const char* separator) {
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch());
  std::time_t seconds = std::chrono::system_clock::to_time_t(TimePoint(
      std::chrono::duration_cast<std::chrono::seconds>(micros - micros % std::chrono::seconds(1))));
  long long fraction = (micros.count() % 1'000'000 + 1'000'000) % 1'000'000;
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  std::array<char, 64> text{};
  std::size_t n = std::strftime(text.data(), text.size(), format, &tm);
  std::array<char, 16> micro{};
  std::snprintf(micro.data(), micro.size(), "%s%06lldZ", separator, fraction);
  return std::string(text.data(), n) + micro.data();
}

// Rfc3339: "2026-12-02T15:17:33.123456Z".
std::string Rfc3339(TimePoint t) { return FormatTime(t, "%Y-%m-%dT%H:%M:%S", "."); }

// FileTime: "20261202T151733.123456Z", for the names of rotated files.
std::string FileTime(TimePoint t) { return FormatTime(t, "%Y%m%dT%H%M%S", "."); }

// WriteAll writes `data` at the end of `fd` (O_APPEND), retrying short writes.
int WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

// LastLineHash: the hash of the last line of `fd` that ends in a newline
// (a partial line after it is ignored); nullopt when there is none. Reads
// backwards from the end, so a long log costs only its tail.
Result<std::optional<std::string>> LastLineHash(int fd, off_t size,
                                                const std::filesystem::path& path) {
  constexpr off_t kChunk = 64 * 1024;
  std::string tail;  // the file's bytes from `pos` to the end
  off_t pos = size;
  std::optional<std::size_t> end;  // offset in `tail` of the last newline
  while (pos > 0) {
    off_t n = std::min(kChunk, pos);
    pos -= n;
    std::string block(static_cast<std::size_t>(n), '\0');
    ssize_t got = ::pread(fd, block.data(), block.size(), pos);
    if (got != n) return ErrnoError("read", path, got < 0 ? errno : EIO);
    tail.insert(0, block);
    if (end) *end += block.size();
    if (!end) {
      std::size_t at = tail.rfind('\n');
      if (at != std::string::npos) end = at;
    }
    if (end && *end > 0) {
      std::size_t before = tail.rfind('\n', *end - 1);
      if (before != std::string::npos) {
        return std::optional<std::string>(Sha256Hex(tail.substr(before + 1, *end - before - 1)));
      }
    }
  }
  if (!end) return std::optional<std::string>();
  return std::optional<std::string>(Sha256Hex(tail.substr(0, *end)));
}

// SetAside renames `path` to PATH.<time> (PATH.<time>-2 ... if taken) and
// returns the new name.
Result<std::filesystem::path> SetAside(const std::filesystem::path& path, TimePoint now) {
  const std::string base = path.string() + "." + FileTime(now);
  for (int n = 1; n < 1000; ++n) {
    std::filesystem::path aside = n == 1 ? base : base + "-" + std::to_string(n);
    int rc = ::renameat2(AT_FDCWD, path.c_str(), AT_FDCWD, aside.c_str(), RENAME_NOREPLACE);
    if (rc != 0 && errno == EINVAL) {  // a file system without RENAME_NOREPLACE
      if (std::filesystem::exists(aside)) continue;
      rc = ::rename(path.c_str(), aside.c_str());
    }
    if (rc == 0) return aside;
    if (errno != EEXIST) return ErrnoError("rename to " + aside.string(), path, errno);
  }
  return MakeError(CKR_DEVICE_ERROR, "audit log " + path.string() + ": no free name to rotate to");
}

// OpenEmpty opens `path` for appending, creating it (0600); an existing
// file must be empty (a log is never appended to another's file).
Result<int> OpenEmpty(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return ErrnoError("open", path, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return MakeError(CKR_DEVICE_ERROR,
                     "audit log " + path.string() + ": exists and is not an empty file");
  }
  return fd;
}

// SameFile: whether `path` still names the file open as `fd`.
bool SameFile(int fd, const std::filesystem::path& path) {
  struct stat open_file {
  }, named{};
  return ::fstat(fd, &open_file) == 0 && ::stat(path.c_str(), &named) == 0 &&
         open_file.st_dev == named.st_dev && open_file.st_ino == named.st_ino;
}

Json OptionalString(const std::optional<std::string>& value) {
  return value ? Json(*value) : Json(nullptr);
}

}  // namespace

AuditLog::AuditLog(AuditLogOptions options) : options_(std::move(options)) {}

Result<std::unique_ptr<AuditLog>> AuditLog::Open(AuditLogOptions options) {
  std::unique_ptr<AuditLog> log(new AuditLog(std::move(options)));
  const std::filesystem::path& path = log->options_.path;
  if (log->options_.syslog) ::openlog("signetd", LOG_PID, LOG_AUTHPRIV);
  std::optional<std::string> previous_file;
  std::optional<std::string> previous_last_hash;
  if (!path.empty()) {
    // A log left by an earlier daemon: set it aside and continue its chain.
    int old = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st {};
    if (old >= 0 && ::fstat(old, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      auto hash = LastLineHash(old, st.st_size, path);
      ::close(old);
      if (!hash.ok()) return hash.error();
      SIGNET_ASSIGN_OR_RETURN(std::filesystem::path aside, SetAside(path, log->options_.clock()));
      previous_file = aside.filename().string();
      previous_last_hash = *hash;
    } else if (old >= 0) {
      ::close(old);
    }
  }
  base::MutexLock lock(&log->mu_);
  if (!path.empty()) {
    SIGNET_ASSIGN_OR_RETURN(log->fd_, OpenEmpty(path));
  }
  SIGNET_TRY(log->StartFile(previous_file, previous_last_hash));
  return log;
}

AuditLog::~AuditLog() {
  Status closed = Close(fmt::kReasonShutdown);
  (void)closed;  // nothing left to tell: Close logged nothing, the caller chose not to
}

Status AuditLog::StartFile(const std::optional<std::string>& previous_file,
                           const std::optional<std::string>& previous_last_hash) {
  std::array<std::uint8_t, kStartBytes> start{};
  SIGNET_TRY(crypto::FillRandom(start));
  seq_ = 0;
  size_ = 0;
  prev_ = ToHex(start);
  pending_header_ = Json{{fmt::kEvent, fmt::kStartEvent},
                         {fmt::kStart, prev_},
                         {fmt::kPreviousFile, OptionalString(previous_file)},
                         {fmt::kPreviousLastHash, OptionalString(previous_last_hash)}};
  if (!options_.path.empty()) keystore::SyncDirectory(options_.path.parent_path());
  return WritePendingHeader();
}

Status AuditLog::WritePendingHeader() {
  if (!pending_header_) return OkStatus();
  SIGNET_TRY(Write(*pending_header_));
  pending_header_.reset();
  return OkStatus();
}

Status AuditLog::Write(Json fields) {
  Json line = {{fmt::kSeq, seq_}, {fmt::kTime, Rfc3339(options_.clock())}, {fmt::kPrev, prev_}};
  for (auto& [name, value] : fields.items()) {
    if (!line.contains(name)) line[name] = std::move(value);
  }
  // Values are escaped ASCII; replace (never throw on) anything else.
  std::string text = line.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (fd_ >= 0) {
    text.push_back('\n');
    int err = WriteAll(fd_, text);
    if (err == 0 && ::fdatasync(fd_) != 0) err = errno;
    if (err != 0) {
      // Take back what reached the file, so the next line continues the chain.
      if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
        Log("audit log " + options_.path.string() + ": cannot remove a partly written line");
      }
      return ErrnoError("write", options_.path, err);
    }
    size_ += text.size();
    text.pop_back();
  }
  if (options_.syslog) ::syslog(LOG_AUTHPRIV | LOG_NOTICE, "%s", text.c_str());
  prev_ = Sha256Hex(text);
  ++seq_;
  return OkStatus();
}

Status AuditLog::Append(const Json& fields) {
  base::MutexLock lock(&mu_);
  if (closed_) return MakeError(CKR_DEVICE_ERROR, "audit log is closed");
  SIGNET_TRY(WritePendingHeader());  // a header that failed to write at rotation
  SIGNET_TRY(Write(fields));
  if (options_.max_bytes > 0 && size_ >= options_.max_bytes) {
    if (Status rotated = RotateLocked(fmt::kReasonSize); !rotated.ok()) {
      Log("audit log: rotation by size failed, writing on: " + rotated.error().message);
    }
  }
  return OkStatus();
}

Status AuditLog::Rotate(std::string_view reason) {
  base::MutexLock lock(&mu_);
  if (closed_) return MakeError(CKR_DEVICE_ERROR, "audit log is closed");
  return RotateLocked(reason);
}

Status AuditLog::RotateLocked(std::string_view reason) {
  const std::filesystem::path& path = options_.path;
  if (path.empty()) return OkStatus();
  std::optional<std::filesystem::path> aside;
  if (SameFile(fd_, path)) {
    SIGNET_ASSIGN_OR_RETURN(aside, SetAside(path, options_.clock()));
  }
  // else: the operator moved the file already (logrotate); it is closed where it is.
  auto fresh = OpenEmpty(path);
  if (!fresh.ok()) {
    if (aside) ::rename(aside->c_str(), path.c_str());  // keep writing where we were
    return fresh.error();
  }
  Status end = pending_header_ ? OkStatus()  // nothing written to it: no end record either
                               : Write({{fmt::kEvent, fmt::kEndEvent}, {fmt::kReason, reason}});
  if (!end.ok()) {
    // The new header still names the last line that was written.
    Log(end.error().message + " (the rotated file has no end record)");
  }
  ::close(fd_);
  fd_ = *fresh;
  return StartFile(aside ? std::optional<std::string>(aside->filename().string()) : std::nullopt,
                   prev_);
}

Status AuditLog::Close(std::string_view reason) {
  base::MutexLock lock(&mu_);
  return CloseLocked(reason);
}

Status AuditLog::CloseLocked(std::string_view reason) {
  if (closed_) return OkStatus();
  closed_ = true;
  // A file whose header never got written stays empty rather than start with an end.
  Status end = pending_header_ ? Status(MakeError(CKR_DEVICE_ERROR, "audit log has no header"))
                               : Write({{fmt::kEvent, fmt::kEndEvent}, {fmt::kReason, reason}});
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (options_.syslog) ::closelog();
  return end;
}

}  // namespace signet::daemon
