// Backup and restore of a token file (issue 14): a consistent copy taken
// while a daemon keeps serving the token, made with SQLite's online backup
// API from one read transaction (not a file copy, which could catch the
// database half-written or miss what still sits in the WAL), and checked
// after writing. A backup holds exactly what the token file holds: keys
// wrapped under the token's KEK, PIN records; restoring it needs no PIN,
// and using its keys needs the PIN that was current when it was taken.
// Functions touch only the files named; the caller of RestoreToken holds
// the data directory's lock (LockDataDir), so no daemon serves it meanwhile.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "keystore/token.h"

namespace signet::keystore {

// TokenCopyReport: what a checked copy holds.
struct TokenCopyReport {
  std::string serial;
  std::string label;
  std::int64_t objects = 0;       // token objects (keys, certificates, data)
  std::int64_t pool_entries = 0;  // pre-generated keys (core/key_pool.h)
  std::uintmax_t bytes = 0;       // the copy's file size
};

// PeekTokenInfo reads a token file's label, serial and slot id with a
// read-only connection (no migration, no write: safe while a daemon serves
// it). CKR_TOKEN_NOT_RECOGNIZED when the file is not a token.
Result<TokenInfo> PeekTokenInfo(const std::filesystem::path& token_file);

// PeekDirectoryTokens: PeekTokenInfo of every token file in `dir`, in file
// order; a file that is not a token is left out (the daemon that serves the
// directory reports it).
Result<std::vector<TokenInfo>> PeekDirectoryTokens(const std::filesystem::path& dir);

// BackupToken copies the token file `token_file` to `out`, a new file
// (mode 0600; CKR_ARGUMENTS_BAD when it exists), then checks the copy: it
// opens as a signet token, SQLite's integrity_check passes, and it holds as
// many objects and pool entries as the token did at the snapshot. A copy
// that fails the check is removed (CKR_FUNCTION_FAILED saying why);
// CKR_DEVICE_ERROR for I/O errors.
Result<TokenCopyReport> BackupToken(const std::filesystem::path& token_file,
                                    const std::filesystem::path& out);

// RestoreToken checks `backup` as BackupToken checks a copy, then installs
// it as `dir`/<serial>.token (copied by the same API to a temporary file,
// checked again, renamed into place). A token with the backup's serial
// already in `dir` is CKR_ARGUMENTS_BAD unless `replace`; a label another
// token in `others` (the directory's tokens) has is CKR_ARGUMENTS_BAD (token
// labels are unique, keystore/slot_ids.h), as is a serial that is not one.
// The restored token keeps its slot id unless another token has it (then
// the daemon gives it a new one), and comes without its pool entries: the
// original may still hand them out, and a pooled key must reach one client
// only (the pool refills).
Result<TokenCopyReport> RestoreToken(const std::filesystem::path& backup,
                                     const std::filesystem::path& dir, bool replace,
                                     const std::vector<TokenInfo>& others);

}  // namespace signet::keystore
