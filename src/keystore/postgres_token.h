// PostgresToken: a token of the shared PostgreSQL keystore (issue 18;
// docs/SCALING.md), which several signetd nodes may serve at once, each
// with its own PostgresToken on the same rows. It keeps exactly what a
// token file keeps (PIN records with the KEK wrapped under each PIN,
// objects whose secret values are AES-KWP under the KEK) in the tables of
// keystore/postgres_schema.h, tagged with its token_id.
//
// Across nodes:
// - every change is one transaction; a change to the token's objects also
//   bumps the token's generation in that transaction;
// - that transaction also sends NOTIFY signet_keystore,
//   '<token_id>:<generation>' (delivered at commit, never for a rolled-back
//   change);
// - the unwrapped-key cache remembers the generation its keys were read
//   at; a hit is served only while that is the newest generation the node
//   knows: its listener's (postgres_listener.h, no query) while the
//   listening connection is up, the database's (one small query per hit)
//   when there is no listener or its connection is broken; so a key
//   destroyed or changed on another node is not served from this node's
//   cache once the notification came (docs/SECURITY.md states the window);
//   while the database cannot be reached at all, nothing can change and
//   the cache serves on;
// - PIN failures count in the database (postgres_pin_records.h), so a
//   lockout holds on every node;
// - the label and slot id are read from the database, never cached.
// - the key pool is one table for all nodes: a node claims an entry with
//   SELECT ... FOR UPDATE SKIP LOCKED and deletes it in the same
//   transaction, so each entry is handed out exactly once, and generators on
//   every node fill the same pool (postgres_token_pool.cc).
//
// Thread contract: as Token's. db_mu_ serialises the one connection and is
// held only for SQL, never across scrypt or an unwrap; the login state is
// login_'s (KekHolder), under its own lock, never taken with db_mu_ held.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "base/mutex.h"
#include "keystore/kek_holder.h"
#include "keystore/key_cache.h"
#include "keystore/pin_memo.h"
#include "keystore/pool_seal.h"
#include "keystore/postgres_db.h"
#include "keystore/postgres_listener.h"
#include "keystore/token.h"

namespace signet::keystore {

// InsertPgObjectRow inserts an object's row for token `token_id` (its
// attributes, and the search columns they fill) without a wrapped value,
// inside the caller's transaction, and returns its new handle.
Result<ObjectHandle> InsertPgObjectRow(PgConnection& db, std::int64_t token_id,
                                       const AttributeMap& attributes);

// StorePgWrappedValue sets object `handle`'s wrapped value (object_wrap.h:
// made for that handle).
Status StorePgWrappedValue(PgConnection& db, ObjectHandle handle, ByteView wrapped);

// StorePgPoolSealKey inserts or replaces token `token_id`'s pool key.
Status StorePgPoolSealKey(PgConnection& db, std::int64_t token_id, const PoolSealKey& key);

class PostgresToken final : public Token {
 public:
  // Create makes a token in the keystore at `uri` (its schema must be
  // current: MigratePostgresSchema) with a random serial and a fresh KEK
  // sealed under both PINs (an empty user PIN leaves it uninitialised), as
  // Token::Create. CKR_ARGUMENTS_BAD for a label outside 1-32 bytes or one
  // another token of the keystore has; CKR_PIN_LEN_RANGE for PINs the rules
  // refuse; CKR_DEVICE_ERROR when the database fails (nothing is left).
  // `listener` (may be null: ask the database every time) is the node's
  // LISTEN connection, shared by its tokens.
  static Result<std::unique_ptr<PostgresToken>> Create(
      const std::string& uri, std::string_view label, ByteView so_pin, ByteView user_pin,
      const TokenOptions& options, std::shared_ptr<PostgresListener> listener = nullptr);

  // Open opens the token with `serial` on its own connection, `listener`
  // as for Create. CKR_TOKEN_NOT_PRESENT when the keystore has no such
  // token; CKR_DEVICE_ERROR when the database cannot be reached.
  static Result<std::unique_ptr<PostgresToken>> Open(
      const std::string& uri, std::string_view serial, const TokenOptions& options,
      std::shared_ptr<PostgresListener> listener = nullptr);

  TokenInfo Info() const override;
  Status Login(UserType user, ByteView pin) override;
  void Logout() override;
  Status InitUserPin(ByteView new_pin) override;
  Status Reinitialize(ByteView so_pin, std::string_view label) override;
  Status SetSlotId(CK_SLOT_ID slot_id) override;
  Status SetPin(UserType user, ByteView old_pin, ByteView new_pin) override;
  Result<int> ClearPinFailures(UserType user) override;
  Result<ObjectHandle> CreateObject(const AttributeMap& attributes,
                                    const SecureBytes* secret) override;
  Result<std::vector<ObjectHandle>> CreateObjects(const std::vector<NewObject>& objects,
                                                  const Bytes* unique_label) override;
  Result<StoredObject> GetObject(ObjectHandle handle) const override;
  Result<std::vector<StoredObject>> ListObjects() const override;
  Result<std::vector<StoredObject>> FindObjects(const AttributeMap& match) const override;
  Status UpdateAttributes(ObjectHandle handle, const AttributeMap& changes) override;
  Status DestroyObject(ObjectHandle handle) override;
  Status DestroyObjects(const std::vector<ObjectHandle>& handles) override;
  Result<std::shared_ptr<const UnwrappedKey>> FetchKey(ObjectHandle handle,
                                                       bool* cache_hit) override;
  CacheStats cache_stats() const override { return cache_.stats(); }
  // ObjectsGeneration: the listener's, with no query, while it listens.
  Result<std::int64_t> ObjectsGeneration() const override EXCLUDES(db_mu_);
  Result<std::int64_t> ObjectsGenerationNow() const override EXCLUDES(db_mu_);
  // Key pool: postgres_token_pool.cc.
  Status StorePoolKey(std::string_view pool, const SecureBytes& private_der,
                      const AttributeMap& public_attributes) override;
  Result<std::optional<PoolTake>> TakePoolKey(std::string_view pool,
                                              const PoolObjectsBuilder& build,
                                              const Bytes* unique_label) override;
  Result<std::optional<PooledKey>> ClaimPoolKey(std::string_view pool) override;
  Result<std::map<std::string, std::size_t>> PoolCounts() const override;
  bool CanFillPool() const override;

 private:
  PostgresToken(std::unique_ptr<PgConnection> db, std::int64_t token_id, std::string serial,
                int max_pin_failures, const TokenOptions& options,
                std::shared_ptr<PostgresListener> listener);

  // CheckPin verifies `pin` for `user` and returns the KEK
  // (CheckPinWithLockout over the shared PIN records). Takes db_mu_ only
  // around its SQL.
  Result<SecureBytes> CheckPin(UserType user, ByteView pin) EXCLUDES(db_mu_);
  Status StorePin(UserType user, ByteView pin, ByteView kek) EXCLUDES(db_mu_);
  std::shared_ptr<const SecureBytes> CurrentKek() const;
  // CommitChangeLocked ends `txn`, a change to the token's objects: the
  // token's generation + 1 and its NOTIFY inside it, so every node's cached
  // keys of the token stop being served; then it waits (briefly) for the
  // listener to hear it.
  Status CommitChangeLocked(PgTransaction& txn) REQUIRES(db_mu_);
  // GenerationLocked asks the database (and tells the listener).
  Result<std::int64_t> GenerationLocked() const REQUIRES(db_mu_);
  // KekEpochLocked: the token's kek_epoch (bumped by each
  // re-initialisation, on any node); with `for_update` its row stays
  // locked until the caller's transaction ends, so no re-initialisation
  // commits in between.
  Result<std::int64_t> KekEpochLocked(bool for_update) const REQUIRES(db_mu_);
  // StaleLogin: whether this node's login predates kek_epoch `epoch`, so
  // its KEK is not the token's any more.
  bool StaleLogin(std::int64_t epoch) const { return login_epoch_.load() != epoch; }
  // EndStaleLogin forgets such a login (KEK, PIN memo, cached keys) and
  // returns the error the refused operation answers.
  Error EndStaleLogin();
  Result<ObjectHandle> InsertObjectLocked(const AttributeMap& attributes, const SecureBytes* secret,
                                          const SecureBytes* kek) REQUIRES(db_mu_);
  Status CheckLabelFreeLocked(ByteView label) const REQUIRES(db_mu_);
  Result<StoredObject> ReadObjectLocked(ObjectHandle handle) const REQUIRES(db_mu_);
  // StorePoolSealKeyLocked replaces the token's pool key inside the
  // caller's transaction.
  Status StorePoolSealKeyLocked(const PoolSealKey& key) REQUIRES(db_mu_);
  // ClaimPoolEntryLocked deletes the oldest entry of `pool` that no other
  // transaction holds and returns it opened. REQUIRES: a transaction open.
  Result<std::optional<PooledKey>> ClaimPoolEntryLocked(std::string_view pool,
                                                        const SecureBytes& kek) REQUIRES(db_mu_);

  const std::int64_t token_id_;
  const std::string serial_;
  const int max_pin_failures_;
  const TokenOptions options_;
  const std::shared_ptr<PostgresListener> listener_;  // null: none

  mutable base::Mutex db_mu_;
  std::unique_ptr<PgConnection> db_ GUARDED_BY(db_mu_);

  KekHolder login_;
  PinMemo pin_memo_;  // forgotten with login_ (Logout)
  // login_epoch_: the kek_epoch read before login_'s KEK was (-1: none).
  std::atomic<std::int64_t> login_epoch_{-1};

  KeyCache cache_;
  // cached_generation_: the token generation the cache's keys were read at
  // (-1: none yet). Guarded by db_mu_: it changes with the reads that see a
  // new generation.
  std::int64_t cached_generation_ GUARDED_BY(db_mu_) = -1;
};

}  // namespace signet::keystore
