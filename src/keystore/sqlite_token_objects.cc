// SqliteToken: object storage and key fetching (see sqlite_token.h).
#include <algorithm>

#include "keystore/attribute_codec.h"
#include "keystore/object_match.h"
#include "keystore/object_wrap.h"
#include "keystore/sqlite_token.h"
#include "keystore/token_rules.h"

namespace signet::keystore {
namespace {

Result<StoredObject> ObjectFromRow(const Statement& stmt) {
  StoredObject object;
  object.handle = stmt.ColumnInt64(0);
  SIGNET_ASSIGN_OR_RETURN(object.attributes, DecodeAttributes(stmt.ColumnBlob(1)));
  // Column 2 is `wrapped_value IS NOT NULL`: 0 or 1, never NULL.
  object.has_secret = stmt.ColumnInt64(2) != 0;
  return object;
}

// The objects table's search columns: which attribute each mirrors, whether
// it is stored as an integer (CK_ULONG) or as the raw bytes, and the SQL
// parameter it binds to in BindObjectColumns and FindObjects.
struct SearchColumn {
  const char* name;
  CK_ATTRIBUTE_TYPE type;
  bool is_ulong;
  int parameter;
};
constexpr SearchColumn kSearchColumns[] = {
    {"class", CKA_CLASS, true, 1},
    {"key_type", CKA_KEY_TYPE, true, 2},
    {"label", CKA_LABEL, false, 3},
    {"id", CKA_ID, false, 4},
};

// ColumnValue: true when `attributes` holds `column`'s attribute in the form
// the column stores (a CK_ULONG of the right size for integer columns).
bool ColumnValue(const AttributeMap& attributes, const SearchColumn& column) {
  if (column.is_ulong) return FindUlong(attributes, column.type).has_value();
  return attributes.contains(column.type);
}

// BindSearchColumns binds each column present in `attributes` to its
// parameter; absent ones are bound to NULL when `absent_as_null` (INSERT,
// UPDATE) and left alone otherwise (a WHERE clause does not name them).
Status BindSearchColumns(Statement& stmt, const AttributeMap& attributes, bool absent_as_null) {
  for (const auto& column : kSearchColumns) {
    if (!ColumnValue(attributes, column)) {
      if (absent_as_null) SIGNET_TRY(stmt.BindNull(column.parameter));
    } else if (column.is_ulong) {
      auto value = FindUlong(attributes, column.type);
      SIGNET_TRY(stmt.Bind(column.parameter, static_cast<std::int64_t>(*value)));
    } else {
      SIGNET_TRY(stmt.Bind(column.parameter, ByteView(attributes.at(column.type))));
    }
  }
  return OkStatus();
}

// BindObjectColumns binds the search columns to ?1..?4 and the encoded
// attribute blob to ?5.
Status BindObjectColumns(Statement& stmt, const AttributeMap& attributes, ByteView encoded) {
  SIGNET_TRY(BindSearchColumns(stmt, attributes, /*absent_as_null=*/true));
  return stmt.Bind(5, encoded);
}

constexpr const char* kSelectObject =
    "SELECT handle, attributes, wrapped_value IS NOT NULL FROM objects";

}  // namespace

Status StoreWrappedValue(Database& db, ObjectHandle handle, ByteView wrapped) {
  SIGNET_ASSIGN_OR_RETURN(Statement stmt,
                          db.Prepare("UPDATE objects SET wrapped_value = ?1 WHERE handle = ?2"));
  SIGNET_TRY(stmt.Bind(1, wrapped));
  SIGNET_TRY(stmt.Bind(2, handle));
  return stmt.Run();
}

Result<ObjectHandle> InsertObjectRow(Database& db, const AttributeMap& attributes) {
  SIGNET_ASSIGN_OR_RETURN(Bytes encoded, EncodeAttributes(attributes));
  SIGNET_ASSIGN_OR_RETURN(Statement insert,
                          db.Prepare("INSERT INTO objects (class, key_type, label, id, attributes) "
                                     "VALUES (?1, ?2, ?3, ?4, ?5)"));
  SIGNET_TRY(BindObjectColumns(insert, attributes, encoded));
  SIGNET_TRY(insert.Run());
  return db.LastInsertRowId();
}

Result<ObjectHandle> SqliteToken::CreateObject(const AttributeMap& attributes,
                                               const SecureBytes* secret) {
  SIGNET_ASSIGN_OR_RETURN(auto handles, CreateObjects({{attributes, secret}}, nullptr));
  return handles.front();
}

Result<std::vector<ObjectHandle>> SqliteToken::CreateObjects(const std::vector<NewObject>& objects,
                                                             const Bytes* unique_label) {
  SIGNET_ASSIGN_OR_RETURN(bool secrets, CheckNewObjects(objects));
  std::shared_ptr<const SecureBytes> kek;
  if (secrets) {
    kek = CurrentKek();
    if (!kek) return MakeError(CKR_USER_NOT_LOGGED_IN, "storing a key requires login");
  }
  std::vector<ObjectHandle> handles;
  base::MutexLock lock(&db_mu_);
  // One transaction for all: a failure (or crash) at any object rolls the
  // earlier ones back, so a key pair is never stored by halves.
  SIGNET_ASSIGN_OR_RETURN(Transaction txn, db_->Begin());
  if (unique_label != nullptr) SIGNET_TRY(CheckLabelFreeLocked(*unique_label));
  for (const NewObject& object : objects) {
    SIGNET_ASSIGN_OR_RETURN(ObjectHandle handle,
                            InsertObjectLocked(object.attributes, object.secret, kek.get()));
    handles.push_back(handle);
  }
  SIGNET_TRY(txn.Commit());
  return handles;
}

Status SqliteToken::CheckLabelFreeLocked(ByteView label) const {
  SIGNET_ASSIGN_OR_RETURN(Statement stmt,
                          db_->Prepare("SELECT 1 FROM objects WHERE label = ?1 AND class IN "
                                       "(?2, ?3, ?4) LIMIT 1"));
  SIGNET_TRY(stmt.Bind(1, label));
  SIGNET_TRY(stmt.Bind(2, static_cast<std::int64_t>(CKO_PUBLIC_KEY)));
  SIGNET_TRY(stmt.Bind(3, static_cast<std::int64_t>(CKO_PRIVATE_KEY)));
  SIGNET_TRY(stmt.Bind(4, static_cast<std::int64_t>(CKO_SECRET_KEY)));
  SIGNET_ASSIGN_OR_RETURN(bool taken, stmt.Step());
  if (!taken) return OkStatus();
  return LabelTaken(label);
}

Result<ObjectHandle> SqliteToken::InsertObjectLocked(const AttributeMap& attributes,
                                                     const SecureBytes* secret,
                                                     const SecureBytes* kek) {
  SIGNET_TRY(CheckNoClearSecrets(attributes));
  if (secret != nullptr && !HoldsSecret(FindUlong(attributes, CKA_CLASS))) {
    return MakeError(CKR_TEMPLATE_INCONSISTENT, "only private and secret keys hold a secret");
  }
  SIGNET_ASSIGN_OR_RETURN(ObjectHandle handle, InsertObjectRow(*db_, attributes));
  // The handle is bound into the wrap, so it is wrapped once the row exists;
  // both statements commit together.
  if (secret != nullptr) {
    SIGNET_ASSIGN_OR_RETURN(Bytes wrapped, WrapObjectSecret(*kek, handle, *secret));
    SIGNET_TRY(StoreWrappedValue(*db_, handle, wrapped));
  }
  return handle;
}

Result<StoredObject> SqliteToken::ReadObjectLocked(ObjectHandle handle) const {
  SIGNET_ASSIGN_OR_RETURN(Statement stmt,
                          db_->Prepare(std::string(kSelectObject) + " WHERE handle = ?1"));
  SIGNET_TRY(stmt.Bind(1, handle));
  SIGNET_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return MakeError(CKR_OBJECT_HANDLE_INVALID, "no such object");
  return ObjectFromRow(stmt);
}

Result<StoredObject> SqliteToken::GetObject(ObjectHandle handle) const {
  base::MutexLock lock(&db_mu_);
  return ReadObjectLocked(handle);
}

Result<std::vector<StoredObject>> SqliteToken::ListObjects() const { return QueryObjects("", {}); }

Result<std::vector<StoredObject>> SqliteToken::FindObjects(const AttributeMap& match) const {
  // Narrow by the indexed columns where `match` names them in their stored
  // form; every attribute is still compared on the decoded rows.
  std::string where;
  for (const auto& column : kSearchColumns) {
    if (!ColumnValue(match, column)) continue;
    where += where.empty() ? " WHERE " : " AND ";
    where += std::string(column.name) + " = ?" + std::to_string(column.parameter);
  }
  return QueryObjects(where, match);
}

Result<std::vector<StoredObject>> SqliteToken::QueryObjects(std::string_view where_sql,
                                                            const AttributeMap& match) const {
  base::MutexLock lock(&db_mu_);
  SIGNET_ASSIGN_OR_RETURN(
      Statement stmt,
      db_->Prepare(std::string(kSelectObject) + std::string(where_sql) + " ORDER BY handle"));
  if (!where_sql.empty()) SIGNET_TRY(BindSearchColumns(stmt, match, /*absent_as_null=*/false));
  std::vector<StoredObject> out;
  for (;;) {
    SIGNET_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    SIGNET_ASSIGN_OR_RETURN(StoredObject object, ObjectFromRow(stmt));
    if (Matches(object.attributes, match)) out.push_back(std::move(object));
  }
  return out;
}

Status SqliteToken::UpdateAttributes(ObjectHandle handle, const AttributeMap& changes) {
  {
    base::MutexLock lock(&db_mu_);
    SIGNET_ASSIGN_OR_RETURN(Transaction txn, db_->Begin());
    SIGNET_ASSIGN_OR_RETURN(StoredObject object, ReadObjectLocked(handle));
    for (const auto& [type, value] : changes) object.attributes[type] = value;
    SIGNET_TRY(CheckNoClearSecrets(object.attributes));
    SIGNET_ASSIGN_OR_RETURN(Bytes encoded, EncodeAttributes(object.attributes));
    SIGNET_ASSIGN_OR_RETURN(
        Statement stmt,
        db_->Prepare("UPDATE objects SET class = ?1, key_type = ?2, label = ?3, id = ?4, "
                     "attributes = ?5 WHERE handle = ?6"));
    SIGNET_TRY(BindObjectColumns(stmt, object.attributes, encoded));
    SIGNET_TRY(stmt.Bind(6, handle));
    SIGNET_TRY(stmt.Run());
    SIGNET_TRY(txn.Commit());
  }
  cache_.Erase(handle);  // a cached entry may reflect the old class
  return OkStatus();
}

Status SqliteToken::DestroyObject(ObjectHandle handle) { return DestroyObjects({handle}); }

Status SqliteToken::DestroyObjects(const std::vector<ObjectHandle>& handles) {
  if (handles.empty()) return MakeError(CKR_ARGUMENTS_BAD, "no objects to destroy");
  {
    base::MutexLock lock(&db_mu_);
    SIGNET_ASSIGN_OR_RETURN(Transaction txn, db_->Begin());
    for (ObjectHandle handle : handles) {
      SIGNET_ASSIGN_OR_RETURN(Statement stmt,
                              db_->Prepare("DELETE FROM objects WHERE handle = ?1"));
      SIGNET_TRY(stmt.Bind(1, handle));
      SIGNET_TRY(stmt.Run());
      // Missing, or deleted by an earlier entry of the list: the
      // transaction rolls back and nothing is deleted.
      if (db_->Changes() == 0) return MakeError(CKR_OBJECT_HANDLE_INVALID, "no such object");
    }
    SIGNET_TRY(txn.Commit());
  }
  for (ObjectHandle handle : handles) cache_.Erase(handle);
  return OkStatus();
}

Result<std::shared_ptr<const UnwrappedKey>> SqliteToken::FetchKey(ObjectHandle handle,
                                                                   bool* cache_hit) {
  auto hit = cache_.Lookup(handle);
  if (cache_hit != nullptr) *cache_hit = hit != nullptr;
  if (hit) return hit;
  // Generation before KEK: pairs with Logout's KEK-then-Clear order, so a
  // key unwrapped under a KEK that Logout dropped is never cached.
  std::uint64_t generation = cache_.generation();
  auto kek = CurrentKek();
  if (!kek) return MakeError(CKR_USER_NOT_LOGGED_IN, "fetching a key requires login");

  std::optional<CK_ULONG> object_class;
  Bytes wrapped;
  {
    base::MutexLock lock(&db_mu_);
    SIGNET_ASSIGN_OR_RETURN(
        Statement stmt, db_->Prepare("SELECT class, wrapped_value FROM objects WHERE handle = ?1"));
    SIGNET_TRY(stmt.Bind(1, handle));
    SIGNET_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return MakeError(CKR_OBJECT_HANDLE_INVALID, "no such object");
    if (stmt.ColumnIsNull(1)) return MakeError(CKR_KEY_HANDLE_INVALID, "object holds no key");
    if (!stmt.ColumnIsNull(0)) object_class = static_cast<CK_ULONG>(stmt.ColumnInt64(0));
    wrapped = stmt.ColumnBlob(1);
  }

  // Unwrap and parse with no lock held.
  auto key = std::make_shared<UnwrappedKey>();
  SIGNET_ASSIGN_OR_RETURN(key->value, UnwrapObjectSecret(*kek, handle, wrapped));
  if (object_class == CKO_PRIVATE_KEY) {
    SIGNET_ASSIGN_OR_RETURN(key->private_key, crypto::PrivateKey::FromPkcs8Der(key->value));
  }
  std::shared_ptr<const UnwrappedKey> frozen = std::move(key);
  cache_.Insert(handle, frozen, generation);
  return frozen;
}

}  // namespace signet::keystore
