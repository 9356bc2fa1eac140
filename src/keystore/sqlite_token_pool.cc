// SqliteToken: the key pool table (see Token::StorePoolKey and token.h), and
// the Token defaults for backends without a pool.
//
// Pool entries live in `key_pool`, never in `objects`, so no object query can
// return them; the pool key's halves live in `pool_seal_key`. How entries
// and the pool key are sealed: pool_seal.h.
#include <ctime>

#include "keystore/attribute_codec.h"
#include "keystore/pool_seal.h"
#include "keystore/sqlite_token.h"
#include "keystore/token_rules.h"

namespace signet::keystore {
namespace {

// ReadPoolPublicKeyLocked: the pool key's public half, none when the token
// has no pool key yet.
Result<std::optional<crypto::PublicKey>> ReadPoolPublicKeyLocked(Database& db) {
  SIGNET_ASSIGN_OR_RETURN(Statement select,
                          db.Prepare("SELECT public_key FROM pool_seal_key WHERE id = 1"));
  SIGNET_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return std::optional<crypto::PublicKey>();
  SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey parsed, ParsePoolPublicKey(select.ColumnBlob(0)));
  return std::optional<crypto::PublicKey>(std::move(parsed));
}

// LoadSealPrivateLocked unwraps the pool key's private half under `kek`.
Result<crypto::PrivateKey> LoadSealPrivateLocked(Database& db, ByteView kek) {
  SIGNET_ASSIGN_OR_RETURN(Statement select,
                          db.Prepare("SELECT wrapped_private FROM pool_seal_key WHERE id = 1"));
  SIGNET_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return MakeError(CKR_WRAPPED_KEY_INVALID, "the token has no pool key");
  return UnwrapPoolPrivateKey(kek, select.ColumnBlob(0));
}

Error NoPool() { return MakeError(CKR_FUNCTION_NOT_SUPPORTED, "this keystore has no key pool"); }

}  // namespace

Status Token::StorePoolKey(std::string_view, const SecureBytes&, const AttributeMap&) {
  return NoPool();
}
bool Token::CanFillPool() const { return false; }
Result<std::optional<PoolTake>> Token::TakePoolKey(std::string_view, const PoolObjectsBuilder&,
                                                   const Bytes*) {
  return NoPool();
}
Result<std::optional<PooledKey>> Token::ClaimPoolKey(std::string_view) { return NoPool(); }
Result<std::map<std::string, std::size_t>> Token::PoolCounts() const { return NoPool(); }

Status StorePoolSealKey(Database& db, const PoolSealKey& key) {
  SIGNET_ASSIGN_OR_RETURN(Statement stmt,
                          db.Prepare("INSERT OR REPLACE INTO pool_seal_key (id, public_key, "
                                     "wrapped_private) VALUES (1, ?1, ?2)"));
  SIGNET_TRY(stmt.Bind(1, ByteView(key.public_der)));
  SIGNET_TRY(stmt.Bind(2, ByteView(key.wrapped_private)));
  return stmt.Run();
}

Status SqliteToken::LoadPoolKeyState() {
  std::optional<crypto::PublicKey> public_key;
  {
    base::MutexLock lock(&db_mu_);
    SIGNET_ASSIGN_OR_RETURN(public_key, ReadPoolPublicKeyLocked(*db_));
  }
  base::MutexLock lock(&auth_mu_);
  has_pool_key_ = public_key.has_value();
  return OkStatus();
}

Status SqliteToken::EnsurePoolSealKey(const SecureBytes& kek) {
  if (CanFillPool()) return OkStatus();
  SIGNET_ASSIGN_OR_RETURN(PoolSealKey key, NewPoolSealKey(kek));
  {
    base::MutexLock lock(&db_mu_);
    SIGNET_ASSIGN_OR_RETURN(Transaction txn, db_->Begin());
    // Another connection to the file may have made one meanwhile: keep it.
    SIGNET_ASSIGN_OR_RETURN(Statement count, db_->Prepare("SELECT COUNT(*) FROM pool_seal_key"));
    SIGNET_ASSIGN_OR_RETURN(bool row, count.Step());
    bool has_one = row && count.ColumnInt64(0) > 0;
    count = Statement();
    if (!has_one) {
      SIGNET_TRY(StorePoolSealKey(*db_, key));
      SIGNET_TRY(txn.Commit());
    }
  }
  return LoadPoolKeyState();
}

bool SqliteToken::CanFillPool() const {
  base::MutexLock lock(&auth_mu_);
  return has_pool_key_;
}

Status SqliteToken::StorePoolKey(std::string_view pool, const SecureBytes& private_der,
                                 const AttributeMap& public_attributes) {
  if (pool.empty() || private_der.empty()) {
    return MakeError(CKR_ARGUMENTS_BAD, "pool name and key must not be empty");
  }
  SIGNET_ASSIGN_OR_RETURN(Bytes encoded, EncodeAttributes(public_attributes));
  base::MutexLock lock(&db_mu_);
  SIGNET_ASSIGN_OR_RETURN(Transaction txn, db_->Begin());
  // The pool key is read in the transaction that stores the entry: a
  // re-initialisation that replaced it meanwhile cannot leave an entry
  // sealed to the old key.
  SIGNET_ASSIGN_OR_RETURN(std::optional<crypto::PublicKey> seal_to, ReadPoolPublicKeyLocked(*db_));
  if (!seal_to) {
    return MakeError(CKR_USER_NOT_LOGGED_IN, "the token has no pool key until its first login");
  }
  // The id is bound into the wrap, so the row goes in first with an empty
  // blob and gets its wrapped value in the same transaction.
  SIGNET_ASSIGN_OR_RETURN(Statement insert,
                          db_->Prepare("INSERT INTO key_pool (pool, public_attributes, "
                                       "wrapped_value, created_unix) VALUES (?1, ?2, x'', ?3)"));
  SIGNET_TRY(insert.BindText(1, pool));
  SIGNET_TRY(insert.Bind(2, ByteView(encoded)));
  SIGNET_TRY(insert.Bind(3, static_cast<std::int64_t>(std::time(nullptr))));
  SIGNET_TRY(insert.Run());
  std::int64_t entry = db_->LastInsertRowId();
  SIGNET_ASSIGN_OR_RETURN(Bytes wrapped, SealPoolEntry(*seal_to, entry, private_der));
  SIGNET_ASSIGN_OR_RETURN(Statement update,
                          db_->Prepare("UPDATE key_pool SET wrapped_value = ?1 WHERE id = ?2"));
  SIGNET_TRY(update.Bind(1, ByteView(wrapped)));
  SIGNET_TRY(update.Bind(2, entry));
  SIGNET_TRY(update.Run());
  return txn.Commit();
}

Result<std::optional<PooledKey>> SqliteToken::ClaimPoolEntryLocked(std::string_view pool,
                                                                   const SecureBytes& kek) {
  SIGNET_ASSIGN_OR_RETURN(crypto::PrivateKey seal_key, LoadSealPrivateLocked(*db_, kek));
  for (;;) {
    SIGNET_ASSIGN_OR_RETURN(
        Statement select,
        db_->Prepare("SELECT id, public_attributes, wrapped_value FROM key_pool WHERE pool = ?1 "
                     "ORDER BY id LIMIT 1"));
    SIGNET_TRY(select.BindText(1, pool));
    SIGNET_ASSIGN_OR_RETURN(bool row, select.Step());
    if (!row) return std::optional<PooledKey>();
    std::int64_t entry = select.ColumnInt64(0);
    auto public_attributes = DecodeAttributes(select.ColumnBlob(1));
    Bytes sealed = select.ColumnBlob(2);
    select = Statement();
    auto secret = OpenPoolEntry(seal_key, entry, sealed);
    SIGNET_ASSIGN_OR_RETURN(Statement remove, db_->Prepare("DELETE FROM key_pool WHERE id = ?1"));
    SIGNET_TRY(remove.Bind(1, entry));
    SIGNET_TRY(remove.Run());
    // The write lock of BEGIN IMMEDIATE makes this exact; checked anyway so a
    // lost delete can never hand one key out twice.
    if (db_->Changes() != 1) return MakeError(CKR_DEVICE_ERROR, "pool entry vanished during claim");
    // An entry that does not open (damaged, or moved from another entry) is
    // dropped, not handed out and not left to block the pool: the next one.
    if (!secret.ok() || !public_attributes.ok()) continue;
    PooledKey key;
    key.public_attributes = std::move(*public_attributes);
    key.private_der = std::move(*secret);
    return std::optional<PooledKey>(std::move(key));
  }
}

Result<std::optional<PoolTake>> SqliteToken::TakePoolKey(std::string_view pool,
                                                         const PoolObjectsBuilder& build,
                                                         const Bytes* unique_label) {
  auto kek = CurrentKek();
  if (!kek) return MakeError(CKR_USER_NOT_LOGGED_IN, "taking a pool key requires login");
  base::MutexLock lock(&db_mu_);
  SIGNET_ASSIGN_OR_RETURN(Transaction txn, db_->Begin());
  if (unique_label != nullptr) SIGNET_TRY(CheckLabelFreeLocked(*unique_label));
  SIGNET_ASSIGN_OR_RETURN(std::optional<PooledKey> key, ClaimPoolEntryLocked(pool, *kek));
  if (!key) return std::optional<PoolTake>();
  SIGNET_ASSIGN_OR_RETURN(
      PoolTake take,
      MakePoolTake(*key, build,
                   [&](const AttributeMap& attributes, const SecureBytes* secret) REQUIRES(db_mu_) {
                     return InsertObjectLocked(attributes, secret, kek.get());
                   }));
  SIGNET_TRY(txn.Commit());
  return std::optional<PoolTake>(std::move(take));
}

Result<std::optional<PooledKey>> SqliteToken::ClaimPoolKey(std::string_view pool) {
  auto kek = CurrentKek();
  if (!kek) return MakeError(CKR_USER_NOT_LOGGED_IN, "claiming a pool key requires login");
  base::MutexLock lock(&db_mu_);
  SIGNET_ASSIGN_OR_RETURN(Transaction txn, db_->Begin());
  SIGNET_ASSIGN_OR_RETURN(std::optional<PooledKey> key, ClaimPoolEntryLocked(pool, *kek));
  if (key) SIGNET_TRY(txn.Commit());
  return key;
}

Result<std::map<std::string, std::size_t>> SqliteToken::PoolCounts() const {
  base::MutexLock lock(&db_mu_);
  SIGNET_ASSIGN_OR_RETURN(Statement stmt,
                          db_->Prepare("SELECT pool, COUNT(*) FROM key_pool GROUP BY pool"));
  std::map<std::string, std::size_t> counts;
  for (;;) {
    SIGNET_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    counts[stmt.ColumnText(0)] = static_cast<std::size_t>(stmt.ColumnInt64(1));
  }
  return counts;
}

}  // namespace signet::keystore
