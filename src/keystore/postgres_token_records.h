// A PostgreSQL token's records (token_records.h): read in one snapshot
// without changing anything, and written as a new token in one
// transaction. The PostgresKeystore's ReadTokenRecords and
// CreateTokenFromRecords (keystore.h).
//
// Thread contract: as PgConnection's (the caller serialises use of `db`).
#pragma once

#include <string>
#include <string_view>

#include "keystore/postgres_db.h"
#include "keystore/token_records.h"

namespace signet::keystore {

// ReadPgTokenRecords reads the token with `serial` in one read-only
// REPEATABLE READ transaction: what another node commits meanwhile is
// either all in it or not at all. CKR_TOKEN_NOT_PRESENT when there is no
// such token; CKR_TOKEN_NOT_RECOGNIZED when it has no SO PIN record or a
// row does not decode; the database's errors.
Result<TokenRecords> ReadPgTokenRecords(PgConnection& db, std::string_view serial);

// InsertPgTokenRecords stores `records` as a new token in one transaction
// (CreateTokenFromRecords' rules) and returns its serial. Its slot id is
// kept unless another token has it; otherwise, or when it has none, it
// takes the next one from the shared counter, which it advances past the
// id either way. CKR_ARGUMENTS_BAD for a label that is not 1-32 bytes, or
// a label or serial another token has; `rewrap`'s error as is; the
// database's errors (nothing is stored then).
Result<std::string> InsertPgTokenRecords(PgConnection& db, const TokenRecords& records,
                                         const RewrapSecret& rewrap);

}  // namespace signet::keystore
