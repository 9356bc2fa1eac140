// A token file's records (token_records.h): read from an existing file
// without changing it, and written as a new file in one transaction. The
// DirectoryKeystore's ReadTokenRecords and CreateTokenFromRecords
// (keystore.h). Functions touch only the file named; the caller holds the
// data directory's lock (LockDataDir), so no daemon uses the files meanwhile.
#pragma once

#include <filesystem>

#include "keystore/token_records.h"

namespace signet::keystore {

// ReadTokenFileRecords reads the token file `file` on a read-only
// connection, in one read transaction: after the checks Token::Open makes
// (a signet token, SQLite's quick_check) its metadata, PIN records and
// objects. A token of an older schema is read as it is, not migrated.
// CKR_TOKEN_NOT_RECOGNIZED when it is not a healthy token; every message
// starts with "token file PATH: ".
Result<TokenRecords> ReadTokenFileRecords(const std::filesystem::path& file);

// CreateTokenFileFromRecords makes `file` (mode 0600; it must not exist) a
// token holding `records` (CreateTokenFromRecords' rules), all in one
// transaction; on any failure the file is removed again.
// CKR_ARGUMENTS_BAD for a label that is not 1-32 bytes or a file that
// exists; `rewrap`'s error as is; CKR_DEVICE_ERROR on I/O failure.
Status CreateTokenFileFromRecords(const std::filesystem::path& file, const TokenRecords& records,
                                  const RewrapSecret& rewrap);

}  // namespace signet::keystore
