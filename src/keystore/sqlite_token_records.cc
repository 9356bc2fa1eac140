#include "keystore/sqlite_token_records.h"

#include "keystore/attribute_codec.h"
#include "keystore/data_dir.h"
#include "keystore/schema.h"
#include "keystore/sqlite_token.h"
#include "keystore/token_rules.h"

namespace signet::keystore {
namespace {

// kSlotIdSchemaVersion: the schema step that added token_meta.slot_id
// (schema.cc, step 3); an older file has none.
constexpr std::int64_t kSlotIdSchemaVersion = 3;

Status ReadMeta(Database& db, TokenRecords& records) {
  SIGNET_ASSIGN_OR_RETURN(std::int64_t version, db.PragmaInt("user_version"));
  const char* slot_column = version >= kSlotIdSchemaVersion ? "slot_id" : "NULL";
  SIGNET_ASSIGN_OR_RETURN(Statement stmt,
                          db.Prepare(std::string("SELECT label, serial, max_pin_failures, ") +
                                     slot_column + " FROM token_meta"));
  SIGNET_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "damaged: token has no metadata");
  records.label = stmt.ColumnText(0);
  records.serial = stmt.ColumnText(1);
  records.max_pin_failures = static_cast<int>(stmt.ColumnInt64(2));
  if (!stmt.ColumnIsNull(3)) records.slot_id = static_cast<CK_SLOT_ID>(stmt.ColumnInt64(3));
  if (records.max_pin_failures < 1) {
    return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "damaged: implausible PIN failure limit");
  }
  return OkStatus();
}

Status ReadPins(Database& db, TokenRecords& records) {
  auto so = LoadPinRecord(db, UserType::kSo);
  if (!so.ok()) {
    return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "damaged: SO PIN record: " + so.error().message);
  }
  records.pins.push_back(std::move(*so));
  auto user = LoadPinRecord(db, UserType::kUser);
  if (user.ok()) {
    records.pins.push_back(std::move(*user));
  } else if (user.error().code != CKR_USER_PIN_NOT_INITIALIZED) {
    return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "damaged: user PIN record: " + user.error().message);
  }
  return OkStatus();
}

Status ReadObjects(Database& db, TokenRecords& records) {
  SIGNET_ASSIGN_OR_RETURN(
      Statement stmt,
      db.Prepare("SELECT handle, attributes, wrapped_value FROM objects ORDER BY handle"));
  for (;;) {
    SIGNET_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return OkStatus();
    ObjectRecord object;
    object.handle = stmt.ColumnInt64(0);
    SIGNET_ASSIGN_OR_RETURN(object.attributes, DecodeAttributes(stmt.ColumnBlob(1)));
    if (!stmt.ColumnIsNull(2)) object.wrapped_value = stmt.ColumnBlob(2);
    records.objects.push_back(std::move(object));
  }
}

Result<TokenRecords> ReadRecords(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    return MakeError(CKR_TOKEN_NOT_PRESENT, "not a regular file");
  }
  SIGNET_ASSIGN_OR_RETURN(auto db, Database::OpenReadOnly(file));
  SIGNET_TRY(CheckIsToken(*db));
  // One read transaction: every row below comes from the same snapshot.
  // It ends when the connection closes.
  SIGNET_TRY(db->Exec("BEGIN"));
  SIGNET_TRY(CheckIntegrity(*db));
  TokenRecords records;
  SIGNET_TRY(ReadMeta(*db, records));
  SIGNET_TRY(ReadPins(*db, records));
  SIGNET_TRY(ReadObjects(*db, records));
  return records;
}

// WriteRecords fills the empty file `file` with `records` in one
// transaction.
Status WriteRecords(const std::filesystem::path& file, const TokenRecords& records,
                    const RewrapSecret& rewrap) {
  SIGNET_ASSIGN_OR_RETURN(auto db, Database::Open(file));
  SIGNET_TRY(db->ConfigureDurability());
  SIGNET_ASSIGN_OR_RETURN(Transaction txn, db->Begin());
  SIGNET_TRY(MigrateSchema(*db));
  SIGNET_TRY(InsertTokenMeta(*db, records.label, records.serial, records.max_pin_failures));
  if (records.slot_id) {
    SIGNET_ASSIGN_OR_RETURN(Statement slot,
                            db->Prepare("UPDATE token_meta SET slot_id = ?1 WHERE id = 1"));
    SIGNET_TRY(slot.Bind(1, static_cast<std::int64_t>(*records.slot_id)));
    SIGNET_TRY(slot.Run());
  }
  for (const PinRecord& pin : records.pins) SIGNET_TRY(StorePinRecord(*db, pin));
  SIGNET_TRY(StorePoolSealKey(*db, records.pool_key));
  for (const ObjectRecord& object : records.objects) {
    SIGNET_TRY(CheckNoClearSecrets(object.attributes));
    SIGNET_ASSIGN_OR_RETURN(ObjectHandle handle, InsertObjectRow(*db, object.attributes));
    if (!object.wrapped_value) continue;
    SIGNET_ASSIGN_OR_RETURN(Bytes wrapped, rewrap(object.handle, handle, *object.wrapped_value));
    SIGNET_TRY(StoreWrappedValue(*db, handle, wrapped));
  }
  return txn.Commit();
}

}  // namespace

Result<TokenRecords> ReadTokenFileRecords(const std::filesystem::path& file) {
  auto records = ReadRecords(file);
  if (!records.ok()) {
    return MakeError(records.error().code,
                     "token file " + file.string() + ": " + records.error().message);
  }
  return std::move(*records);
}

Status CreateTokenFileFromRecords(const std::filesystem::path& file, const TokenRecords& records,
                                  const RewrapSecret& rewrap) {
  SIGNET_TRY(CheckTokenLabel(records.label));
  SIGNET_TRY(CreateEmptyFile(file));
  Status written = WriteRecords(file, records, rewrap);
  if (!written.ok()) {
    RemoveTokenFiles(file);
    return written;
  }
  SyncDirectory(file.parent_path());
  return OkStatus();
}

}  // namespace signet::keystore
