// PostgresToken: the key pool (see Token::StorePoolKey and postgres_token.h).
// Entries live in signet_key_pool, never in signet_objects, so no object
// query returns them; they are sealed as in every backend (pool_seal.h).
// A claim takes the oldest entry no other transaction holds (FOR UPDATE
// SKIP LOCKED) and deletes it in the same transaction: nodes claiming at
// once each get a different entry, and none waits on another's.
#include "keystore/attribute_codec.h"
#include "keystore/postgres_token.h"
#include "keystore/token_rules.h"

namespace signet::keystore {

Status StorePgPoolSealKey(PgConnection& db, std::int64_t token_id, const PoolSealKey& key) {
  return db.Run(
      "INSERT INTO signet_pool_seal_keys (token_id, public_key, wrapped_private) "
      "VALUES ($1, $2, $3) ON CONFLICT (token_id) DO UPDATE SET "
      "public_key = EXCLUDED.public_key, wrapped_private = EXCLUDED.wrapped_private",
      {token_id, ByteView(key.public_der), ByteView(key.wrapped_private)});
}

Status PostgresToken::StorePoolSealKeyLocked(const PoolSealKey& key) {
  return StorePgPoolSealKey(*db_, token_id_, key);
}

bool PostgresToken::CanFillPool() const {
  // Every PostgreSQL token gets its pool key when it is made.
  return true;
}

Status PostgresToken::StorePoolKey(std::string_view pool, const SecureBytes& private_der,
                                   const AttributeMap& public_attributes) {
  if (pool.empty() || private_der.empty()) {
    return MakeError(CKR_ARGUMENTS_BAD, "pool name and key must not be empty");
  }
  SIGNET_ASSIGN_OR_RETURN(Bytes encoded, EncodeAttributes(public_attributes));
  base::MutexLock lock(&db_mu_);
  SIGNET_ASSIGN_OR_RETURN(PgTransaction txn, db_->Begin());
  // The pool key is read in the transaction that stores the entry (and
  // locked against a re-initialisation replacing it meanwhile).
  SIGNET_ASSIGN_OR_RETURN(
      PgResult key,
      db_->Query("SELECT public_key FROM signet_pool_seal_keys WHERE token_id = $1 FOR SHARE",
                 {token_id_}));
  if (key.rows() == 0) return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "damaged: no pool key");
  SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey seal_to, ParsePoolPublicKey(key.Blob(0, 0)));
  // The entry id is bound into the seal: the row first, its sealed value in
  // the same transaction.
  SIGNET_ASSIGN_OR_RETURN(
      PgResult row,
      db_->Query("INSERT INTO signet_key_pool (token_id, pool, public_attributes, wrapped_value) "
                 "VALUES ($1, $2, $3, '') RETURNING entry_id",
                 {token_id_, pool, ByteView(encoded)}));
  const std::int64_t entry = row.Int64(0, 0);
  SIGNET_ASSIGN_OR_RETURN(Bytes sealed, SealPoolEntry(seal_to, entry, private_der));
  SIGNET_TRY(db_->Run("UPDATE signet_key_pool SET wrapped_value = $2 WHERE entry_id = $1",
                      {entry, ByteView(sealed)}));
  return txn.Commit();
}

Result<std::optional<PooledKey>> PostgresToken::ClaimPoolEntryLocked(std::string_view pool,
                                                                     const SecureBytes& kek) {
  SIGNET_ASSIGN_OR_RETURN(
      PgResult key,
      db_->Query("SELECT wrapped_private FROM signet_pool_seal_keys WHERE token_id = $1",
                 {token_id_}));
  if (key.rows() == 0) return MakeError(CKR_WRAPPED_KEY_INVALID, "the token has no pool key");
  SIGNET_ASSIGN_OR_RETURN(crypto::PrivateKey seal_key, UnwrapPoolPrivateKey(kek, key.Blob(0, 0)));
  for (;;) {
    SIGNET_ASSIGN_OR_RETURN(
        PgResult row,
        db_->Query("DELETE FROM signet_key_pool WHERE entry_id = ("
                   " SELECT entry_id FROM signet_key_pool WHERE token_id = $1 AND pool = $2"
                   " ORDER BY entry_id LIMIT 1 FOR UPDATE SKIP LOCKED)"
                   " RETURNING entry_id, public_attributes, wrapped_value",
                   {token_id_, pool}));
    if (row.rows() == 0) return std::optional<PooledKey>();
    const std::int64_t entry = row.Int64(0, 0);
    auto public_attributes = DecodeAttributes(row.Blob(0, 1));
    auto secret = OpenPoolEntry(seal_key, entry, row.Blob(0, 2));
    // An entry that does not open (damaged, or moved from another entry) is
    // dropped, not handed out and not left to block the pool: the next one.
    if (!secret.ok() || !public_attributes.ok()) continue;
    PooledKey taken;
    taken.public_attributes = std::move(*public_attributes);
    taken.private_der = std::move(*secret);
    return std::optional<PooledKey>(std::move(taken));
  }
}

Result<std::optional<PoolTake>> PostgresToken::TakePoolKey(std::string_view pool,
                                                           const PoolObjectsBuilder& build,
                                                           const Bytes* unique_label) {
  auto kek = CurrentKek();
  if (!kek) return MakeError(CKR_USER_NOT_LOGGED_IN, "taking a pool key requires login");
  base::MutexLock lock(&db_mu_);
  SIGNET_ASSIGN_OR_RETURN(PgTransaction txn, db_->Begin());
  if (unique_label != nullptr) {
    // As CreateObjects: the token's row serialises label checks and inserts.
    SIGNET_TRY(db_->Run("SELECT 1 FROM signet_tokens WHERE token_id = $1 FOR UPDATE", {token_id_}));
    SIGNET_TRY(CheckLabelFreeLocked(*unique_label));
  }
  SIGNET_ASSIGN_OR_RETURN(std::optional<PooledKey> key, ClaimPoolEntryLocked(pool, *kek));
  if (!key) return std::optional<PoolTake>();
  SIGNET_ASSIGN_OR_RETURN(
      PoolTake take,
      MakePoolTake(*key, build,
                   [&](const AttributeMap& attributes, const SecureBytes* secret) REQUIRES(db_mu_) {
                     return InsertObjectLocked(attributes, secret, kek.get());
                   }));
  SIGNET_TRY(CommitChangeLocked(txn));
  return std::optional<PoolTake>(std::move(take));
}

Result<std::optional<PooledKey>> PostgresToken::ClaimPoolKey(std::string_view pool) {
  auto kek = CurrentKek();
  if (!kek) return MakeError(CKR_USER_NOT_LOGGED_IN, "claiming a pool key requires login");
  base::MutexLock lock(&db_mu_);
  SIGNET_ASSIGN_OR_RETURN(PgTransaction txn, db_->Begin());
  SIGNET_ASSIGN_OR_RETURN(std::optional<PooledKey> key, ClaimPoolEntryLocked(pool, *kek));
  if (key) SIGNET_TRY(txn.Commit());
  return key;
}

Result<std::map<std::string, std::size_t>> PostgresToken::PoolCounts() const {
  base::MutexLock lock(&db_mu_);
  SIGNET_ASSIGN_OR_RETURN(
      PgResult rows,
      db_->Query("SELECT pool, count(*) FROM signet_key_pool WHERE token_id = $1 GROUP BY pool",
                 {token_id_}));
  std::map<std::string, std::size_t> counts;
  for (int i = 0; i < rows.rows(); ++i) {
    counts[rows.Text(i, 0)] = static_cast<std::size_t>(rows.Int64(i, 1));
  }
  return counts;
}

}  // namespace signet::keystore
