// The token database schema: which SQLite file is a signet token, and the
// ordered list of migration steps that build and upgrade its tables.
//
// A signet token carries PRAGMA application_id = kApplicationId and
// PRAGMA user_version = the number of migration steps applied. Opening an
// older token runs the missing steps in one transaction; a newer one is
// refused. Called only by SqliteToken, under its database mutex.
#pragma once

#include <cstdint>

#include "keystore/sqlite_db.h"

namespace signet::keystore {

// kApplicationId: "SGNT" in the SQLite header (offset 68), so `file(1)` and
// Open can tell a token from any other SQLite database.
inline constexpr std::int32_t kApplicationId = 0x53474E54;

// CurrentSchemaVersion: the user_version a fully migrated token has.
int CurrentSchemaVersion();

// CheckIsToken fails with CKR_TOKEN_NOT_RECOGNIZED unless `db` is a signet
// token (right application_id, schema version 1..current). Reads only.
Status CheckIsToken(Database& db);

// CheckIntegrity runs SQLite's quick_check over the whole file and fails
// with CKR_TOKEN_NOT_RECOGNIZED ("damaged: ...") when any page or index is
// malformed or unreadable. Reads only.
Status CheckIntegrity(Database& db);

// MigrateSchema brings the schema to CurrentSchemaVersion. REQUIRES: a write
// transaction is open (the caller commits it with its own changes), so a
// crash leaves either the old schema or the new, never half. On a fresh,
// empty database it also stamps kApplicationId.
Status MigrateSchema(Database& db);

}  // namespace signet::keystore
