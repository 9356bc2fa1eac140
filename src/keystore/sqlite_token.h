// SqliteToken: the embedded Token backend, one SQLite file per token.
//
// Layout of the work: db_mu_ serialises every use of the one connection and
// is held only for SQL (microseconds; never across scrypt, which runs with
// no lock held). auth_mu_ guards the label, slot id and pool-key state;
// login_ (KekHolder) the KEK and who is logged in, under its own lock.
// The two are never held together. The unwrapped-key cache has its own lock
// (KeyCache), so a hot FetchKey touches neither of the others.
//
// Durability: WAL + synchronous=FULL, BEGIN IMMEDIATE for every change; a
// change whose call has returned survives SIGKILL and power loss.
#pragma once

#include "base/mutex.h"
#include "keystore/kek_holder.h"
#include "keystore/key_cache.h"
#include "keystore/pin_memo.h"
#include "keystore/pool_seal.h"
#include "keystore/sqlite_db.h"
#include "keystore/token.h"

namespace signet::keystore {

// NewTokenSerial returns 16 random lower-case hex characters.
Result<std::string> NewTokenSerial();

// StorePoolSealKey replaces the token's pool key inside the caller's open
// transaction.
Status StorePoolSealKey(Database& db, const PoolSealKey& key);

// InsertTokenMeta writes a new token file's metadata row (label, serial,
// PIN failure limit, creation time) inside the caller's open transaction.
Status InsertTokenMeta(Database& db, std::string_view label, std::string_view serial,
                       int max_pin_failures);

// InsertObjectRow inserts an object's row (its attributes, and the search
// columns they fill) without a wrapped value, inside the caller's open
// transaction, and returns its new handle.
Result<ObjectHandle> InsertObjectRow(Database& db, const AttributeMap& attributes);

// StoreWrappedValue sets object `handle`'s wrapped value (object_wrap.h:
// made for that handle) inside the caller's open transaction.
Status StoreWrappedValue(Database& db, ObjectHandle handle, ByteView wrapped);

class SqliteToken final : public Token {
 public:
  // CreateFile makes a token at `file` (created 0600, must not exist) with
  // the given serial. On failure nothing is left behind.
  static Result<std::unique_ptr<SqliteToken>> CreateFile(const std::filesystem::path& file,
                                                         std::string_view serial,
                                                         std::string_view label, ByteView so_pin,
                                                         ByteView user_pin,
                                                         const TokenOptions& options);

  // OpenFile opens (and migrates) an existing token; see Token::Open. Every
  // error message starts with "token file PATH: ".
  static Result<std::unique_ptr<SqliteToken>> OpenFile(const std::filesystem::path& file,
                                                       const TokenOptions& options);

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
  // Key pool: sqlite_token_pool.cc.
  Status StorePoolKey(std::string_view pool, const SecureBytes& private_der,
                      const AttributeMap& public_attributes) override;
  Result<std::optional<PoolTake>> TakePoolKey(std::string_view pool,
                                              const PoolObjectsBuilder& build,
                                              const Bytes* unique_label) override;
  Result<std::optional<PooledKey>> ClaimPoolKey(std::string_view pool) override;
  Result<std::map<std::string, std::size_t>> PoolCounts() const override;
  bool CanFillPool() const override;

 private:
  SqliteToken(std::unique_ptr<Database> db, std::string label, std::string serial,
              int max_pin_failures, const TokenOptions& options);

  // OpenCheckedFile is OpenFile without the file name in its errors.
  static Result<std::unique_ptr<SqliteToken>> OpenCheckedFile(const std::filesystem::path& file,
                                                              const TokenOptions& options);
  // CheckPin verifies `pin` for `user` and returns the KEK
  // (CheckPinWithLockout over this file's PIN records). Takes db_mu_ only
  // around its SQL.
  Result<SecureBytes> CheckPin(UserType user, ByteView pin) EXCLUDES(db_mu_);
  // StorePin seals `kek` under `pin` and stores it (failures reset to 0).
  Status StorePin(UserType user, ByteView pin, ByteView kek) EXCLUDES(db_mu_);
  // LoadPoolKeyState reads whether the token has a pool key (a token made
  // before pools were sealed has none until EnsurePoolSealKey runs).
  Status LoadPoolKeyState() EXCLUDES(db_mu_, auth_mu_);
  // EnsurePoolSealKey makes the pool key, when the token has none, with the
  // KEK of a login: from then on the pool fills without one.
  Status EnsurePoolSealKey(const SecureBytes& kek) EXCLUDES(db_mu_, auth_mu_);
  // CurrentKek: the KEK when logged in, else nullptr.
  std::shared_ptr<const SecureBytes> CurrentKek() const;
  Result<StoredObject> ReadObjectLocked(ObjectHandle handle) const REQUIRES(db_mu_);
  // InsertObjectLocked inserts an object (and wraps `secret` for its new
  // handle under `kek`) inside the caller's open transaction. REQUIRES:
  // db_mu_ held, a transaction open; kek non-null when secret is.
  Result<ObjectHandle> InsertObjectLocked(const AttributeMap& attributes, const SecureBytes* secret,
                                          const SecureBytes* kek) REQUIRES(db_mu_);
  // CheckLabelFreeLocked fails with CKR_ATTRIBUTE_VALUE_INVALID when a key
  // object has CKA_LABEL `label`. REQUIRES: db_mu_ held, a write
  // transaction open (so no other connection can add one before commit).
  Status CheckLabelFreeLocked(ByteView label) const REQUIRES(db_mu_);
  // ClaimPoolEntryLocked deletes the oldest entry of `pool` and returns it
  // opened with the pool key, itself unwrapped under `kek`. REQUIRES: db_mu_
  // held, a transaction open.
  Result<std::optional<PooledKey>> ClaimPoolEntryLocked(std::string_view pool,
                                                        const SecureBytes& kek) REQUIRES(db_mu_);
  // QueryObjects runs kSelectObject + `where_sql` with `match`'s column
  // values bound, then keeps rows matching every attribute of `match`.
  Result<std::vector<StoredObject>> QueryObjects(std::string_view where_sql,
                                                 const AttributeMap& match) const EXCLUDES(db_mu_);

  std::string label_ GUARDED_BY(auth_mu_);  // Reinitialize changes it
  std::optional<CK_SLOT_ID> slot_id_ GUARDED_BY(auth_mu_);  // SetSlotId changes it
  // has_pool_key_: whether the token has a pool key (CanFillPool);
  // StorePoolKey reads the key itself in its transaction.
  bool has_pool_key_ GUARDED_BY(auth_mu_) = false;
  const std::string serial_;
  const int max_pin_failures_;
  const TokenOptions options_;

  // db_mu_ and auth_mu_ are never held together.
  mutable base::Mutex db_mu_;
  std::unique_ptr<Database> db_ GUARDED_BY(db_mu_);

  mutable base::Mutex auth_mu_;
  KekHolder login_;
  PinMemo pin_memo_;  // forgotten with login_ (Logout)

  KeyCache cache_;
};

}  // namespace signet::keystore
