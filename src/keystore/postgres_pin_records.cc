#include "keystore/postgres_pin_records.h"

#include <string>

#include "base/printable.h"

namespace signet::keystore {

Result<std::int64_t> InsertPgToken(PgConnection& db, std::string_view serial,
                                   std::string_view label, int max_pin_failures) {
  auto row = db.Query(
      "INSERT INTO signet_tokens (serial, label, max_pin_failures) VALUES ($1, $2, $3) "
      "RETURNING token_id",
      {serial, label, std::int64_t{max_pin_failures}});
  if (!row.ok()) {
    if (db.last_sqlstate() == kUniqueViolation) {
      return MakeError(CKR_ARGUMENTS_BAD, "a token labelled '" + PrintableText(label) +
                                              "' already exists in " + db.Describe());
    }
    return std::move(row).error();
  }
  return row->Int64(0, 0);
}

Result<PinRecord> LoadPgPinRecord(PgConnection& db, std::int64_t token_id, UserType user) {
  SIGNET_ASSIGN_OR_RETURN(
      PgResult row,
      db.Query("SELECT kdf_n, kdf_r, kdf_p, salt, wrapped_kek, failures FROM signet_pin_records "
               "WHERE token_id = $1 AND user_type = $2",
               {token_id, std::int64_t{UserTypeCode(user)}}));
  if (row.rows() == 0) return MakeError(CKR_USER_PIN_NOT_INITIALIZED, "PIN not initialised");
  if (!PlausibleCost(row.Int64(0, 0), row.Int64(0, 1), row.Int64(0, 2))) {
    return MakeError(CKR_DEVICE_ERROR, "PIN record has an implausible KDF cost");
  }
  PinRecord record;
  record.user = user;
  record.kdf.n = static_cast<std::uint64_t>(row.Int64(0, 0));
  record.kdf.r = static_cast<std::uint32_t>(row.Int64(0, 1));
  record.kdf.p = static_cast<std::uint32_t>(row.Int64(0, 2));
  record.salt = row.Blob(0, 3);
  record.wrapped_kek = row.Blob(0, 4);
  record.failures = static_cast<int>(row.Int64(0, 5));
  return record;
}

Status StorePgPinRecord(PgConnection& db, std::int64_t token_id, const PinRecord& record) {
  return db.Run(
      "INSERT INTO signet_pin_records "
      "(token_id, user_type, kdf_n, kdf_r, kdf_p, salt, wrapped_kek, failures) "
      "VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
      "ON CONFLICT (token_id, user_type) DO UPDATE SET kdf_n = EXCLUDED.kdf_n, "
      "kdf_r = EXCLUDED.kdf_r, kdf_p = EXCLUDED.kdf_p, salt = EXCLUDED.salt, "
      "wrapped_kek = EXCLUDED.wrapped_kek, failures = EXCLUDED.failures",
      {token_id, std::int64_t{UserTypeCode(record.user)}, static_cast<std::int64_t>(record.kdf.n),
       std::int64_t{record.kdf.r}, std::int64_t{record.kdf.p}, ByteView(record.salt),
       ByteView(record.wrapped_kek), std::int64_t{record.failures}});
}

Result<int> RecordPgPinFailure(PgConnection& db, std::int64_t token_id, UserType user) {
  // One statement: the increment and the value returned are the same row
  // version, whatever other nodes do at the same time.
  SIGNET_ASSIGN_OR_RETURN(PgResult row,
                          db.Query("UPDATE signet_pin_records SET failures = failures + 1 "
                                   "WHERE token_id = $1 AND user_type = $2 RETURNING failures",
                                   {token_id, std::int64_t{UserTypeCode(user)}}));
  if (row.rows() == 0) return MakeError(CKR_USER_PIN_NOT_INITIALIZED, "PIN not initialised");
  return static_cast<int>(row.Int64(0, 0));
}

Status ResetPgPinFailures(PgConnection& db, std::int64_t token_id, UserType user,
                          int max_failures) {
  SIGNET_ASSIGN_OR_RETURN(
      PgResult row,
      db.Query("UPDATE signet_pin_records SET failures = 0 "
               "WHERE token_id = $1 AND user_type = $2 AND failures < $3 RETURNING 1",
               {token_id, std::int64_t{UserTypeCode(user)}, std::int64_t{max_failures}}));
  if (row.rows() == 0) return MakeError(CKR_PIN_LOCKED, "PIN locked");
  return OkStatus();
}

}  // namespace signet::keystore
