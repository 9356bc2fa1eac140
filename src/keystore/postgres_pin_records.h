// PIN records of one token in the shared PostgreSQL keystore (issue 18;
// docs/SCALING.md): pin_records.h's database functions over the
// `signet_pin_records` table, for the token `token_id`. Each failure count
// changes in one statement that returns the new value, so ten wrong PINs
// spread over any number of nodes lock the token exactly as on one node,
// and a right PIN resets the count only while it is below the limit, so a
// lock set by another node meanwhile holds. The token rows themselves:
// InsertPgToken.
//
// Thread contract: as PgConnection's (the caller serialises use of `db`).
#pragma once

#include <cstdint>
#include <string_view>

#include "keystore/pin_records.h"
#include "keystore/postgres_db.h"

namespace signet::keystore {

// InsertPgToken adds a token's row and returns its token_id.
// CKR_ARGUMENTS_BAD "a token labelled 'LABEL' already exists" when another
// token of the keystore has `label` (the database's UNIQUE constraint
// decides, also between nodes creating tokens at once); the database's
// errors otherwise.
Result<std::int64_t> InsertPgToken(PgConnection& db, std::string_view serial,
                                   std::string_view label, int max_pin_failures);

// LoadPgPinRecord reads `user`'s record; CKR_USER_PIN_NOT_INITIALIZED when
// there is none, CKR_DEVICE_ERROR when its KDF cost is implausible.
Result<PinRecord> LoadPgPinRecord(PgConnection& db, std::int64_t token_id, UserType user);

// StorePgPinRecord inserts or replaces `record` (its failure count too).
Status StorePgPinRecord(PgConnection& db, std::int64_t token_id, const PinRecord& record);

// RecordPgPinFailure adds one failure and returns the new count, committed
// before it returns. CKR_USER_PIN_NOT_INITIALIZED when there is no record.
Result<int> RecordPgPinFailure(PgConnection& db, std::int64_t token_id, UserType user);

// ResetPgPinFailures sets the count back to 0 unless it already reached
// `max_failures`: then CKR_PIN_LOCKED.
Status ResetPgPinFailures(PgConnection& db, std::int64_t token_id, UserType user, int max_failures);

}  // namespace signet::keystore
