#include "keystore/postgres_token_records.h"

#include "base/printable.h"
#include "keystore/attribute_codec.h"
#include "keystore/postgres_pin_records.h"
#include "keystore/postgres_token.h"
#include "keystore/token_rules.h"

namespace signet::keystore {
namespace {

Status ReadPgPins(PgConnection& db, std::int64_t token_id, TokenRecords& records) {
  auto so = LoadPgPinRecord(db, token_id, UserType::kSo);
  if (!so.ok()) {
    return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "damaged: SO PIN record: " + so.error().message);
  }
  records.pins.push_back(std::move(*so));
  auto user = LoadPgPinRecord(db, token_id, UserType::kUser);
  if (user.ok()) {
    records.pins.push_back(std::move(*user));
  } else if (user.error().code != CKR_USER_PIN_NOT_INITIALIZED) {
    return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "damaged: user PIN record: " + user.error().message);
  }
  return OkStatus();
}

Status ReadPgObjects(PgConnection& db, std::int64_t token_id, TokenRecords& records) {
  SIGNET_ASSIGN_OR_RETURN(PgResult rows,
                          db.Query("SELECT handle, attributes, wrapped_value FROM signet_objects "
                                   "WHERE token_id = $1 ORDER BY handle",
                                   {token_id}));
  for (int i = 0; i < rows.rows(); ++i) {
    ObjectRecord object;
    object.handle = rows.Int64(i, 0);
    auto attributes = DecodeAttributes(rows.Blob(i, 1));
    if (!attributes.ok()) {
      return MakeError(
          CKR_TOKEN_NOT_RECOGNIZED,
          "damaged: object " + std::to_string(object.handle) + ": " + attributes.error().message);
    }
    object.attributes = std::move(*attributes);
    if (!rows.IsNull(i, 2)) object.wrapped_value = rows.Blob(i, 2);
    records.objects.push_back(std::move(object));
  }
  return OkStatus();
}

// PlaceSlotId gives the new token `token_id` its slot id (see
// InsertPgTokenRecords) inside the caller's transaction.
Status PlaceSlotId(PgConnection& db, std::int64_t token_id, std::optional<CK_SLOT_ID> wanted) {
  std::optional<std::int64_t> slot;
  if (wanted) {
    const auto id = static_cast<std::int64_t>(*wanted);
    SIGNET_ASSIGN_OR_RETURN(PgResult taken,
                            db.Query("SELECT 1 FROM signet_tokens WHERE slot_id = $1", {id}));
    if (taken.rows() == 0) {
      SIGNET_TRY(db.Run("UPDATE signet_next_slot_id SET next = GREATEST(next, $1 + 1)", {id}));
      slot = id;
    }
  }
  if (!slot) {
    SIGNET_ASSIGN_OR_RETURN(
        PgResult row, db.Query("UPDATE signet_next_slot_id SET next = GREATEST(next, "
                               "(SELECT COALESCE(MAX(slot_id) + 1, 0) FROM signet_tokens)) + 1 "
                               "RETURNING next - 1"));
    slot = row.Int64(0, 0);
  }
  return db.Run("UPDATE signet_tokens SET slot_id = $2 WHERE token_id = $1", {token_id, *slot});
}

}  // namespace

Result<TokenRecords> ReadPgTokenRecords(PgConnection& db, std::string_view serial) {
  SIGNET_ASSIGN_OR_RETURN(PgTransaction txn, db.Begin());
  SIGNET_TRY(db.Run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"));
  SIGNET_ASSIGN_OR_RETURN(
      PgResult row, db.Query("SELECT token_id, label, max_pin_failures, slot_id FROM signet_tokens "
                             "WHERE serial = $1",
                             {serial}));
  const std::string name = "token " + PrintableText(serial) + " in " + db.Describe();
  if (row.rows() == 0) return MakeError(CKR_TOKEN_NOT_PRESENT, name + ": no such token");
  const std::int64_t token_id = row.Int64(0, 0);
  TokenRecords records;
  records.serial = std::string(serial);
  records.label = row.Text(0, 1);
  records.max_pin_failures = static_cast<int>(row.Int64(0, 2));
  if (!row.IsNull(0, 3)) records.slot_id = static_cast<CK_SLOT_ID>(row.Int64(0, 3));
  Status read = ReadPgPins(db, token_id, records);
  if (read.ok()) read = ReadPgObjects(db, token_id, records);
  if (!read.ok()) return MakeError(read.error().code, name + ": " + read.error().message);
  SIGNET_TRY(txn.Commit());
  return records;
}

Result<std::string> InsertPgTokenRecords(PgConnection& db, const TokenRecords& records,
                                         const RewrapSecret& rewrap) {
  SIGNET_TRY(CheckTokenLabel(records.label));
  // One transaction: the token appears to the nodes whole or not at all.
  SIGNET_ASSIGN_OR_RETURN(PgTransaction txn, db.Begin());
  SIGNET_ASSIGN_OR_RETURN(
      PgResult twin, db.Query("SELECT 1 FROM signet_tokens WHERE serial = $1", {records.serial}));
  if (twin.rows() != 0) {
    return MakeError(CKR_ARGUMENTS_BAD,
                     "token " + PrintableText(records.serial) + " is already in " + db.Describe());
  }
  SIGNET_ASSIGN_OR_RETURN(std::int64_t token_id, InsertPgToken(db, records.serial, records.label,
                                                               records.max_pin_failures));
  SIGNET_TRY(PlaceSlotId(db, token_id, records.slot_id));
  for (const PinRecord& pin : records.pins) SIGNET_TRY(StorePgPinRecord(db, token_id, pin));
  SIGNET_TRY(StorePgPoolSealKey(db, token_id, records.pool_key));
  for (const ObjectRecord& object : records.objects) {
    SIGNET_TRY(CheckNoClearSecrets(object.attributes));
    SIGNET_ASSIGN_OR_RETURN(ObjectHandle handle,
                            InsertPgObjectRow(db, token_id, object.attributes));
    if (!object.wrapped_value) continue;
    SIGNET_ASSIGN_OR_RETURN(Bytes wrapped, rewrap(object.handle, handle, *object.wrapped_value));
    SIGNET_TRY(StorePgWrappedValue(db, handle, wrapped));
  }
  SIGNET_TRY(txn.Commit());
  return records.serial;
}

}  // namespace signet::keystore
