// The data directory: where a daemon or `signet init` finds its tokens.
// Convention: one file per token, named `<serial>.token` (serial = 16
// lower-case hex characters), directory mode 0700, files 0600. Functions are
// safe from any thread; they touch only the file system.
#pragma once

#include <filesystem>
#include <memory>
#include <string_view>
#include <vector>

#include "keystore/token.h"

namespace signet::keystore {

// kTokenFileExtension: the suffix of every token file in a data directory.
inline constexpr std::string_view kTokenFileExtension = ".token";

// EnsureDataDirectory creates `dir` (mode 0700, with parents) when missing.
// CKR_DEVICE_ERROR when it cannot.
Status EnsureDataDirectory(const std::filesystem::path& dir);

// IsTokenSerial: whether `text` is a serial as NewTokenSerial makes them
// (16 lower-case hex characters), so `dir/<text>.token` stays in `dir`.
bool IsTokenSerial(std::string_view text);

// CreateEmptyFile makes `file` with mode 0600 (SQLite gives its -wal and
// -shm files the same mode), never through a symlink. CKR_ARGUMENTS_BAD when
// it exists, CKR_DEVICE_ERROR for other failures.
Status CreateEmptyFile(const std::filesystem::path& file);

// RemoveTokenFiles deletes a token file and its WAL companions (-wal, -shm);
// errors are ignored (what is gone is gone).
void RemoveTokenFiles(const std::filesystem::path& file);

// SyncDirectory makes a newly created, renamed or removed entry of `dir`
// durable (fsync of the directory; best effort).
void SyncDirectory(const std::filesystem::path& dir);

// TokenFilePath returns `dir/<serial>.token`.
std::filesystem::path TokenFilePath(const std::filesystem::path& dir, std::string_view serial);

// ListTokenFiles returns the token files in `dir` (names matching the
// convention, whatever kind of file they are: a directory or a dangling
// symlink under a token's name is listed, so Token::Open reports it),
// sorted by name. CKR_DEVICE_ERROR when `dir` cannot be read;
// an absent directory yields an empty list.
Result<std::vector<std::filesystem::path>> ListTokenFiles(const std::filesystem::path& dir);

// CreateInDirectory creates `dir` (mode 0700, with parents) when missing and
// a new token in it under a fresh random serial; see Token::Create for the
// other arguments and errors. The caller learns the serial from Info().
Result<std::unique_ptr<Token>> CreateInDirectory(const std::filesystem::path& dir,
                                                 std::string_view label, ByteView so_pin,
                                                 ByteView user_pin, const TokenOptions& options);

// DataDirLock: an exclusive advisory lock (flock) on `dir/signetd.lock`.
// A running signetd holds it for its lifetime; `signet admin` commands that
// change token files behind the daemon's back take it too, so they refuse
// to run while a daemon serves the directory. The kernel drops the lock
// when its holder exits, also on SIGKILL. Not thread-affine; move-only.
class DataDirLock {
 public:
  explicit DataDirLock(int fd) : fd_(fd) {}
  ~DataDirLock();
  DataDirLock(const DataDirLock&) = delete;
  DataDirLock& operator=(const DataDirLock&) = delete;

 private:
  int fd_;
};

// kDataDirLockName: the lock file's name inside a data directory.
inline constexpr std::string_view kDataDirLockName = "signetd.lock";

// LockDataDir takes the lock without waiting and writes `holder` (who holds
// it: "signetd on /run/signet/signetd.sock") and its pid into the lock file,
// so that the next process refused names it. CKR_FUNCTION_FAILED naming the
// holder when another process holds the lock (a running signetd);
// CKR_DEVICE_ERROR when the file cannot be opened.
Result<std::unique_ptr<DataDirLock>> LockDataDir(const std::filesystem::path& dir,
                                                 std::string_view holder);

}  // namespace signet::keystore
