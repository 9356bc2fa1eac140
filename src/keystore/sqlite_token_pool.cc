// SqliteToken: the key pool table (see Token::StorePoolKey and token.h), and
// the Token defaults for backends without a pool.
//
// Pool entries live in `key_pool`, never in `objects`, so no object query can
// return them. An entry's private key is sealed as
//   AES-KWP(KEK, "SGPOOL1" || entry id (u64 big-endian) || PKCS#8 DER)
// whose prefix differs from an object's ("SGOBJ1", object_wrap.h): a pool
// blob copied into an object row, or the reverse, does not unwrap.
#include <ctime>

#include "keystore/attribute_codec.h"
#include "keystore/sqlite_token.h"

namespace signet::keystore {
namespace {

constexpr std::string_view kPoolMagic = "SGPOOL1";

SecureBytes PoolPlaintext(std::int64_t entry, ByteView secret) {
  SecureBytes plain(kPoolMagic.begin(), kPoolMagic.end());
  auto id = static_cast<std::uint64_t>(entry);
  for (int i = 0; i < 8; ++i) plain.push_back(static_cast<std::uint8_t>(id >> (56 - 8 * i)));
  plain.insert(plain.end(), secret.begin(), secret.end());
  return plain;
}

Result<Bytes> WrapPoolSecret(ByteView kek, std::int64_t entry, ByteView secret) {
  return crypto::AesKeyWrapPad(kek, PoolPlaintext(entry, secret));
}

Result<SecureBytes> UnwrapPoolSecret(ByteView kek, std::int64_t entry, ByteView wrapped) {
  auto plain = crypto::AesKeyUnwrapPad(kek, wrapped);
  if (!plain.ok()) return MakeError(CKR_WRAPPED_KEY_INVALID, "pool key does not unwrap");
  SecureBytes prefix = PoolPlaintext(entry, {});
  if (plain->size() <= prefix.size() ||
      !EqualConstantTime(ByteView(plain->data(), prefix.size()), prefix)) {
    return MakeError(CKR_WRAPPED_KEY_INVALID, "pool key belongs to another entry");
  }
  return SecureBytes(plain->begin() + prefix.size(), plain->end());
}

Error NoPool() { return MakeError(CKR_FUNCTION_NOT_SUPPORTED, "this keystore has no key pool"); }

}  // namespace

Status Token::StorePoolKey(std::string_view, const SecureBytes&, const AttributeMap&) {
  return NoPool();
}
Result<std::optional<PoolTake>> Token::TakePoolKey(std::string_view, const PoolObjectsBuilder&,
                                                   const Bytes*) {
  return NoPool();
}
Result<std::optional<PooledKey>> Token::ClaimPoolKey(std::string_view) { return NoPool(); }
Result<std::map<std::string, std::size_t>> Token::PoolCounts() const { return NoPool(); }

Status SqliteToken::StorePoolKey(std::string_view pool, const SecureBytes& private_der,
                                 const AttributeMap& public_attributes) {
  if (pool.empty() || private_der.empty()) {
    return MakeError(CKR_ARGUMENTS_BAD, "pool name and key must not be empty");
  }
  auto kek = CurrentKek();
  if (!kek) return MakeError(CKR_USER_NOT_LOGGED_IN, "filling the key pool requires login");
  SIGNET_ASSIGN_OR_RETURN(Bytes encoded, EncodeAttributes(public_attributes));
  base::MutexLock lock(&db_mu_);
  SIGNET_ASSIGN_OR_RETURN(Transaction txn, db_->Begin());
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
  SIGNET_ASSIGN_OR_RETURN(Bytes wrapped, WrapPoolSecret(*kek, entry, private_der));
  SIGNET_ASSIGN_OR_RETURN(Statement update,
                          db_->Prepare("UPDATE key_pool SET wrapped_value = ?1 WHERE id = ?2"));
  SIGNET_TRY(update.Bind(1, ByteView(wrapped)));
  SIGNET_TRY(update.Bind(2, entry));
  SIGNET_TRY(update.Run());
  return txn.Commit();
}

Result<std::optional<PooledKey>> SqliteToken::ClaimPoolEntryLocked(std::string_view pool,
                                                                   const SecureBytes& kek) {
  SIGNET_ASSIGN_OR_RETURN(
      Statement select,
      db_->Prepare("SELECT id, public_attributes, wrapped_value FROM key_pool WHERE pool = ?1 "
                   "ORDER BY id LIMIT 1"));
  SIGNET_TRY(select.BindText(1, pool));
  SIGNET_ASSIGN_OR_RETURN(bool row, select.Step());
  if (!row) return std::optional<PooledKey>();
  std::int64_t entry = select.ColumnInt64(0);
  PooledKey key;
  SIGNET_ASSIGN_OR_RETURN(key.public_attributes, DecodeAttributes(select.ColumnBlob(1)));
  SIGNET_ASSIGN_OR_RETURN(key.private_der, UnwrapPoolSecret(kek, entry, select.ColumnBlob(2)));
  select = Statement();
  SIGNET_ASSIGN_OR_RETURN(Statement remove, db_->Prepare("DELETE FROM key_pool WHERE id = ?1"));
  SIGNET_TRY(remove.Bind(1, entry));
  SIGNET_TRY(remove.Run());
  // The write lock of BEGIN IMMEDIATE makes this exact; checked anyway so a
  // lost delete can never hand one key out twice.
  if (db_->Changes() != 1) return MakeError(CKR_DEVICE_ERROR, "pool entry vanished during claim");
  return std::optional<PooledKey>(std::move(key));
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
  SIGNET_ASSIGN_OR_RETURN(auto attributes, build(key->public_attributes));
  PoolTake take;
  take.private_attributes = std::move(attributes.first);
  take.public_attributes = std::move(attributes.second);
  // Private first, as for fresh keys; both commit together or not at all.
  SIGNET_ASSIGN_OR_RETURN(take.private_handle, InsertObjectLocked(take.private_attributes,
                                                                  &key->private_der, kek.get()));
  SIGNET_ASSIGN_OR_RETURN(take.public_handle,
                          InsertObjectLocked(take.public_attributes, nullptr, nullptr));
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
