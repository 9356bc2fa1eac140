// PostgresToken: objects and key fetching (see postgres_token.h).
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "keystore/attribute_codec.h"
#include "keystore/object_match.h"
#include "keystore/object_wrap.h"
#include "keystore/postgres_token.h"
#include "keystore/token_rules.h"

namespace signet::keystore {
namespace {

// The search columns of signet_objects: which attribute each mirrors and
// whether it is stored as an integer (CK_ULONG) or as the raw bytes.
struct SearchColumn {
  const char* name;
  CK_ATTRIBUTE_TYPE type;
  bool is_ulong;
};
constexpr SearchColumn kSearchColumns[] = {
    {"class", CKA_CLASS, true},
    {"key_type", CKA_KEY_TYPE, true},
    {"label", CKA_LABEL, false},
    {"id", CKA_ID, false},
};

// ColumnValue: `attributes`' value for `column` as the column stores it;
// NULL (monostate) when absent or not a CK_ULONG where one is stored.
PgValue ColumnValue(const AttributeMap& attributes, const SearchColumn& column) {
  if (column.is_ulong) {
    auto value = FindUlong(attributes, column.type);
    return value ? PgValue(static_cast<std::int64_t>(*value)) : PgValue();
  }
  auto it = attributes.find(column.type);
  return it == attributes.end() ? PgValue() : PgValue(ByteView(it->second));
}

// kAwaitNotified: how long a change waits for its own notification to come
// back on the listening connection (it takes well under a millisecond on a
// healthy one; a broken one returns at once).
constexpr std::chrono::milliseconds kAwaitNotified{100};

constexpr const char* kSelectObject =
    "SELECT handle, attributes, wrapped_value IS NOT NULL FROM signet_objects WHERE token_id = $1";

Result<StoredObject> ObjectFromRow(const PgResult& rows, int row) {
  StoredObject object;
  object.handle = rows.Int64(row, 0);
  SIGNET_ASSIGN_OR_RETURN(object.attributes, DecodeAttributes(rows.Blob(row, 1)));
  object.has_secret = rows.Text(row, 2) == "t";
  return object;
}

}  // namespace

Result<ObjectHandle> InsertPgObjectRow(PgConnection& db, std::int64_t token_id,
                                       const AttributeMap& attributes) {
  SIGNET_ASSIGN_OR_RETURN(Bytes encoded, EncodeAttributes(attributes));
  SIGNET_ASSIGN_OR_RETURN(
      PgResult row,
      db.Query(
          "INSERT INTO signet_objects (token_id, class, key_type, label, id, attributes) "
          "VALUES ($1, $2, $3, $4, $5, $6) RETURNING handle",
          {token_id, ColumnValue(attributes, kSearchColumns[0]),
           ColumnValue(attributes, kSearchColumns[1]), ColumnValue(attributes, kSearchColumns[2]),
           ColumnValue(attributes, kSearchColumns[3]), ByteView(encoded)}));
  return row.Int64(0, 0);
}

Status StorePgWrappedValue(PgConnection& db, ObjectHandle handle, ByteView wrapped) {
  return db.Run("UPDATE signet_objects SET wrapped_value = $2 WHERE handle = $1",
                {handle, wrapped});
}

Status PostgresToken::CommitChangeLocked(PgTransaction& txn) {
  SIGNET_ASSIGN_OR_RETURN(
      PgResult row,
      db_->Query("WITH bumped AS (UPDATE signet_tokens SET generation = generation + 1 "
                 "WHERE token_id = $1 RETURNING token_id, generation) "
                 "SELECT generation, pg_notify('signet_keystore', "
                 "token_id::text || ':' || generation::text) FROM bumped",
                 {token_id_}));
  if (row.rows() == 0) return MakeError(CKR_TOKEN_NOT_PRESENT, "the token was removed");
  const std::int64_t generation = row.Int64(0, 0);
  SIGNET_TRY(txn.Commit());
  if (listener_) listener_->AwaitNotified(token_id_, generation, kAwaitNotified);
  return OkStatus();
}

Result<std::int64_t> PostgresToken::GenerationLocked() const {
  SIGNET_ASSIGN_OR_RETURN(
      PgResult row,
      db_->Query("SELECT generation FROM signet_tokens WHERE token_id = $1", {token_id_}));
  if (row.rows() == 0) return MakeError(CKR_TOKEN_NOT_PRESENT, "the token was removed");
  if (listener_) listener_->Note(token_id_, row.Int64(0, 0));
  return row.Int64(0, 0);
}

Result<std::int64_t> PostgresToken::KekEpochLocked(bool for_update) const {
  SIGNET_ASSIGN_OR_RETURN(
      PgResult row,
      db_->Query(for_update ? "SELECT kek_epoch FROM signet_tokens WHERE token_id = $1 FOR UPDATE"
                            : "SELECT kek_epoch FROM signet_tokens WHERE token_id = $1",
                 {token_id_}));
  if (row.rows() == 0) return MakeError(CKR_TOKEN_NOT_PRESENT, "the token was removed");
  return row.Int64(0, 0);
}

Result<std::int64_t> PostgresToken::ObjectsGeneration() const {
  if (listener_) {
    if (std::optional<std::int64_t> known = listener_->Generation(token_id_)) return *known;
  }
  base::MutexLock lock(&db_mu_);
  return GenerationLocked();
}

Result<std::int64_t> PostgresToken::ObjectsGenerationNow() const {
  base::MutexLock lock(&db_mu_);
  return GenerationLocked();
}

Result<ObjectHandle> PostgresToken::CreateObject(const AttributeMap& attributes,
                                                 const SecureBytes* secret) {
  SIGNET_ASSIGN_OR_RETURN(auto handles, CreateObjects({{attributes, secret}}, nullptr));
  return handles.front();
}

Result<std::vector<ObjectHandle>> PostgresToken::CreateObjects(
    const std::vector<NewObject>& objects, const Bytes* unique_label) {
  SIGNET_ASSIGN_OR_RETURN(bool secrets, CheckNewObjects(objects));
  std::shared_ptr<const SecureBytes> kek;
  if (secrets) {
    kek = CurrentKek();
    if (!kek) return MakeError(CKR_USER_NOT_LOGGED_IN, "storing a key requires login");
  }
  {
    base::MutexLock lock(&db_mu_);
    SIGNET_ASSIGN_OR_RETURN(PgTransaction txn, db_->Begin());
    // The token's row, locked: writers of one token go one at a time on
    // every node, so the label check and the inserts are one step, and no
    // re-initialisation replaces the KEK a secret is wrapped under meanwhile.
    SIGNET_ASSIGN_OR_RETURN(std::int64_t epoch, KekEpochLocked(/*for_update=*/true));
    if (!secrets || !StaleLogin(epoch)) {
      if (unique_label != nullptr) SIGNET_TRY(CheckLabelFreeLocked(*unique_label));
      std::vector<ObjectHandle> handles;
      for (const NewObject& object : objects) {
        SIGNET_ASSIGN_OR_RETURN(ObjectHandle handle,
                                InsertObjectLocked(object.attributes, object.secret, kek.get()));
        handles.push_back(handle);
      }
      SIGNET_TRY(CommitChangeLocked(txn));
      return handles;
    }
  }
  return EndStaleLogin();
}

Status PostgresToken::CheckLabelFreeLocked(ByteView label) const {
  SIGNET_ASSIGN_OR_RETURN(
      PgResult row,
      db_->Query(
          "SELECT 1 FROM signet_objects WHERE token_id = $1 AND label = $2 AND class IN "
          "($3, $4, $5) LIMIT 1",
          {token_id_, label, static_cast<std::int64_t>(CKO_PUBLIC_KEY),
           static_cast<std::int64_t>(CKO_PRIVATE_KEY), static_cast<std::int64_t>(CKO_SECRET_KEY)}));
  if (row.rows() == 0) return OkStatus();
  return LabelTaken(label);
}

Result<ObjectHandle> PostgresToken::InsertObjectLocked(const AttributeMap& attributes,
                                                       const SecureBytes* secret,
                                                       const SecureBytes* kek) {
  SIGNET_ASSIGN_OR_RETURN(const ObjectHandle handle,
                          InsertPgObjectRow(*db_, token_id_, attributes));
  // The handle is bound into the wrap, so it is wrapped once the row
  // exists; both statements commit together.
  if (secret != nullptr) {
    SIGNET_ASSIGN_OR_RETURN(Bytes wrapped, WrapObjectSecret(*kek, handle, *secret));
    SIGNET_TRY(StorePgWrappedValue(*db_, handle, wrapped));
  }
  return handle;
}

Result<StoredObject> PostgresToken::ReadObjectLocked(ObjectHandle handle) const {
  SIGNET_ASSIGN_OR_RETURN(PgResult row, db_->Query(std::string(kSelectObject) + " AND handle = $2",
                                                   {token_id_, handle}));
  if (row.rows() == 0) return MakeError(CKR_OBJECT_HANDLE_INVALID, "no such object");
  return ObjectFromRow(row, 0);
}

Result<StoredObject> PostgresToken::GetObject(ObjectHandle handle) const {
  base::MutexLock lock(&db_mu_);
  return ReadObjectLocked(handle);
}

Result<std::vector<StoredObject>> PostgresToken::ListObjects() const { return FindObjects({}); }

Result<std::vector<StoredObject>> PostgresToken::FindObjects(const AttributeMap& match) const {
  // Narrow by the indexed columns where `match` names them in their stored
  // form; every attribute is still compared on the decoded rows.
  std::string sql = kSelectObject;
  std::vector<PgValue> params = {token_id_};
  for (const auto& column : kSearchColumns) {
    PgValue value = ColumnValue(match, column);
    if (std::holds_alternative<std::monostate>(value)) continue;
    params.push_back(value);
    sql += " AND " + std::string(column.name) + " = $" + std::to_string(params.size());
  }
  sql += " ORDER BY handle";
  base::MutexLock lock(&db_mu_);
  SIGNET_ASSIGN_OR_RETURN(PgResult rows, db_->Query(sql, params));
  std::vector<StoredObject> out;
  for (int i = 0; i < rows.rows(); ++i) {
    SIGNET_ASSIGN_OR_RETURN(StoredObject object, ObjectFromRow(rows, i));
    if (Matches(object.attributes, match)) out.push_back(std::move(object));
  }
  return out;
}

Status PostgresToken::UpdateAttributes(ObjectHandle handle, const AttributeMap& changes) {
  {
    base::MutexLock lock(&db_mu_);
    SIGNET_ASSIGN_OR_RETURN(PgTransaction txn, db_->Begin());
    SIGNET_TRY(db_->Run("SELECT 1 FROM signet_tokens WHERE token_id = $1 FOR UPDATE", {token_id_}));
    SIGNET_ASSIGN_OR_RETURN(StoredObject object, ReadObjectLocked(handle));
    for (const auto& [type, value] : changes) object.attributes[type] = value;
    SIGNET_TRY(CheckNoClearSecrets(object.attributes));
    SIGNET_ASSIGN_OR_RETURN(Bytes encoded, EncodeAttributes(object.attributes));
    SIGNET_TRY(
        db_->Run("UPDATE signet_objects SET class = $2, key_type = $3, label = $4, id = $5, "
                 "attributes = $6 WHERE handle = $1",
                 {handle, ColumnValue(object.attributes, kSearchColumns[0]),
                  ColumnValue(object.attributes, kSearchColumns[1]),
                  ColumnValue(object.attributes, kSearchColumns[2]),
                  ColumnValue(object.attributes, kSearchColumns[3]), ByteView(encoded)}));
    SIGNET_TRY(CommitChangeLocked(txn));
  }
  cache_.Erase(handle);
  return OkStatus();
}

Status PostgresToken::DestroyObject(ObjectHandle handle) { return DestroyObjects({handle}); }

Status PostgresToken::DestroyObjects(const std::vector<ObjectHandle>& handles) {
  if (handles.empty()) return MakeError(CKR_ARGUMENTS_BAD, "no objects to destroy");
  {
    base::MutexLock lock(&db_mu_);
    SIGNET_ASSIGN_OR_RETURN(PgTransaction txn, db_->Begin());
    for (ObjectHandle handle : handles) {
      SIGNET_ASSIGN_OR_RETURN(
          PgResult gone,
          db_->Query("DELETE FROM signet_objects WHERE token_id = $1 AND handle = $2 RETURNING 1",
                     {token_id_, handle}));
      // Missing, or deleted by an earlier entry of the list: the
      // transaction rolls back and nothing is deleted.
      if (gone.rows() == 0) return MakeError(CKR_OBJECT_HANDLE_INVALID, "no such object");
    }
    SIGNET_TRY(CommitChangeLocked(txn));
  }
  for (ObjectHandle handle : handles) cache_.Erase(handle);
  return OkStatus();
}

Result<std::shared_ptr<const UnwrappedKey>> PostgresToken::FetchKey(ObjectHandle handle,
                                                                    bool* cache_hit) {
  if (cache_hit != nullptr) *cache_hit = false;
  if (auto hit = cache_.Lookup(handle)) {
    // Served only while the generation the cache was filled at is the
    // newest this node knows: the listener's while it listens, else the
    // database's. With the database unreachable nothing can change, so the
    // cache serves on (docs/SCALING.md says what a partition means for this).
    std::optional<std::int64_t> known;
    if (listener_) known = listener_->Generation(token_id_);
    base::MutexLock lock(&db_mu_);
    if (known) {
      if (*known == cached_generation_) {
        if (cache_hit != nullptr) *cache_hit = true;
        return hit;
      }
    } else {
      auto generation = GenerationLocked();
      if (!generation.ok() && db_->reachable()) return std::move(generation).error();
      if (!generation.ok() || *generation == cached_generation_) {
        if (cache_hit != nullptr) *cache_hit = true;
        return hit;
      }
    }
  }
  // Generation before KEK: pairs with Logout's KEK-then-Clear order, so a
  // key unwrapped under a KEK that Logout dropped is never cached.
  std::uint64_t cache_generation = cache_.generation();
  auto kek = CurrentKek();
  if (!kek) return MakeError(CKR_USER_NOT_LOGGED_IN, "fetching a key requires login");

  std::optional<CK_ULONG> object_class;
  Bytes wrapped;
  bool stale_login = false;
  {
    base::MutexLock lock(&db_mu_);
    // The token's generation and KEK epoch and the object in one
    // statement: one snapshot.
    SIGNET_ASSIGN_OR_RETURN(
        PgResult row,
        db_->Query("SELECT t.generation, o.handle, o.class, o.wrapped_value, t.kek_epoch "
                   "FROM signet_tokens t "
                   "LEFT JOIN signet_objects o ON o.token_id = t.token_id AND o.handle = $2 "
                   "WHERE t.token_id = $1",
                   {token_id_, handle}));
    if (row.rows() == 0) return MakeError(CKR_TOKEN_NOT_PRESENT, "the token was removed");
    stale_login = StaleLogin(row.Int64(0, 4));
    const std::int64_t generation = row.Int64(0, 0);
    if (listener_) listener_->Note(token_id_, generation);
    if (generation != cached_generation_) {
      // Keys read at an older generation may be stale: all go.
      cache_.Clear();
      cached_generation_ = generation;
      cache_generation = cache_.generation();
    }
    if (row.IsNull(0, 1)) return MakeError(CKR_OBJECT_HANDLE_INVALID, "no such object");
    if (row.IsNull(0, 3)) return MakeError(CKR_KEY_HANDLE_INVALID, "object holds no key");
    if (!row.IsNull(0, 2)) object_class = static_cast<CK_ULONG>(row.Int64(0, 2));
    wrapped = row.Blob(0, 3);
  }
  if (stale_login) return EndStaleLogin();

  // Unwrap and parse with no lock held.
  auto key = std::make_shared<UnwrappedKey>();
  SIGNET_ASSIGN_OR_RETURN(key->value, UnwrapObjectSecret(*kek, handle, wrapped));
  if (object_class == CKO_PRIVATE_KEY) {
    SIGNET_ASSIGN_OR_RETURN(key->private_key, crypto::PrivateKey::FromPkcs8Der(key->value));
  }
  std::shared_ptr<const UnwrappedKey> frozen = std::move(key);
  cache_.Insert(handle, frozen, cache_generation);
  return frozen;
}

}  // namespace signet::keystore
