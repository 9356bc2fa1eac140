// PostgresToken: creation, opening, token info and PIN handling. Objects and
// key fetching live in postgres_token_objects.cc.
#include "keystore/postgres_token.h"

#include <limits>

#include "keystore/pin_policy.h"
#include "keystore/postgres_pin_records.h"
#include "keystore/sqlite_token.h"
#include "keystore/token_rules.h"

namespace signet::keystore {

Result<std::unique_ptr<PostgresToken>> PostgresToken::Create(
    const std::string& uri, std::string_view label, ByteView so_pin, ByteView user_pin,
    const TokenOptions& options, std::shared_ptr<PostgresListener> listener) {
  SIGNET_TRY(CheckTokenLabel(label));
  if (so_pin.empty()) return MakeError(CKR_ARGUMENTS_BAD, "SO PIN must not be empty");
  SIGNET_TRY(CheckPinLength(so_pin, "SO PIN"));
  if (!user_pin.empty()) SIGNET_TRY(CheckPinLength(user_pin, "user PIN"));
  if (options.max_pin_failures < 1) {
    return MakeError(CKR_ARGUMENTS_BAD, "max_pin_failures must be at least 1");
  }
  SIGNET_ASSIGN_OR_RETURN(SecureBytes kek, crypto::RandomBytes(crypto::kAes256KeySize));
  SIGNET_ASSIGN_OR_RETURN(PinRecord so, SealKek(UserType::kSo, so_pin, kek, options.kdf));
  std::optional<PinRecord> user;
  if (!user_pin.empty()) {
    SIGNET_ASSIGN_OR_RETURN(user, SealKek(UserType::kUser, user_pin, kek, options.kdf));
  }
  SIGNET_ASSIGN_OR_RETURN(PoolSealKey pool_key, NewPoolSealKey(kek));
  SIGNET_ASSIGN_OR_RETURN(std::string serial, NewTokenSerial());
  SIGNET_ASSIGN_OR_RETURN(auto db, PgConnection::Connect(uri));
  std::int64_t token_id = 0;
  {
    // One transaction: the token appears to other nodes whole or not at all.
    SIGNET_ASSIGN_OR_RETURN(PgTransaction txn, db->Begin());
    SIGNET_ASSIGN_OR_RETURN(token_id, InsertPgToken(*db, serial, label, options.max_pin_failures));
    SIGNET_TRY(StorePgPinRecord(*db, token_id, so));
    if (user) SIGNET_TRY(StorePgPinRecord(*db, token_id, *user));
    SIGNET_TRY(StorePgPoolSealKey(*db, token_id, pool_key));
    SIGNET_TRY(txn.Commit());
  }
  return std::unique_ptr<PostgresToken>(
      new PostgresToken(std::move(db), token_id, std::move(serial), options.max_pin_failures,
                        options, std::move(listener)));
}

Result<std::unique_ptr<PostgresToken>> PostgresToken::Open(
    const std::string& uri, std::string_view serial, const TokenOptions& options,
    std::shared_ptr<PostgresListener> listener) {
  SIGNET_ASSIGN_OR_RETURN(auto db, PgConnection::Connect(uri));
  SIGNET_ASSIGN_OR_RETURN(
      PgResult row,
      db->Query("SELECT token_id, max_pin_failures FROM signet_tokens WHERE serial = $1",
                {serial}));
  const std::string name = "token " + std::string(serial) + " in " + db->Describe();
  if (row.rows() == 0) return MakeError(CKR_TOKEN_NOT_PRESENT, name + ": no such token");
  const std::int64_t token_id = row.Int64(0, 0);
  const int max_failures = static_cast<int>(row.Int64(0, 1));
  // Every token has an SO PIN record (Create writes it with the token).
  auto so = LoadPgPinRecord(*db, token_id, UserType::kSo);
  if (!so.ok()) {
    return MakeError(CKR_TOKEN_NOT_RECOGNIZED,
                     name + ": damaged: SO PIN record: " + so.error().message);
  }
  return std::unique_ptr<PostgresToken>(new PostgresToken(
      std::move(db), token_id, std::string(serial), max_failures, options, std::move(listener)));
}

PostgresToken::PostgresToken(std::unique_ptr<PgConnection> db, std::int64_t token_id,
                             std::string serial, int max_pin_failures, const TokenOptions& options,
                             std::shared_ptr<PostgresListener> listener)
    : token_id_(token_id),
      serial_(std::move(serial)),
      max_pin_failures_(max_pin_failures),
      options_(options),
      listener_(std::move(listener)),
      db_(std::move(db)),
      cache_(options.key_cache_capacity) {}

TokenInfo PostgresToken::Info() const {
  TokenInfo info;
  info.serial = serial_;
  info.max_pin_failures = max_pin_failures_;
  base::MutexLock lock(&db_mu_);
  // Label and slot id as the database has them now: another node may have
  // re-initialised the token.
  if (auto row =
          db_->Query("SELECT label, slot_id FROM signet_tokens WHERE token_id = $1", {token_id_});
      row.ok() && row->rows() == 1) {
    info.label = row->Text(0, 0);
    if (!row->IsNull(0, 1)) info.slot_id = static_cast<CK_SLOT_ID>(row->Int64(0, 1));
  }
  for (UserType user : {UserType::kSo, UserType::kUser}) {
    auto record = LoadPgPinRecord(*db_, token_id_, user);
    if (!record.ok()) continue;
    const bool locked = record->failures >= max_pin_failures_;
    if (user == UserType::kSo) {
      info.so_pin_failures = record->failures;
      info.so_pin_locked = locked;
    } else {
      info.user_pin_initialized = true;
      info.user_pin_failures = record->failures;
      info.user_pin_locked = locked;
    }
  }
  return info;
}

Result<SecureBytes> PostgresToken::CheckPin(UserType user, ByteView pin) {
  // Each count changes in one statement (postgres_pin_records.h), so the
  // rule holds across nodes as on one.
  return CheckPinWithLockout(pin, max_pin_failures_,
                             {.load =
                                  [&] {
                                    base::MutexLock lock(&db_mu_);
                                    return LoadPgPinRecord(*db_, token_id_, user);
                                  },
                              .record_failure =
                                  [&] {
                                    base::MutexLock lock(&db_mu_);
                                    return RecordPgPinFailure(*db_, token_id_, user);
                                  },
                              .reset =
                                  [&] {
                                    base::MutexLock lock(&db_mu_);
                                    return ResetPgPinFailures(*db_, token_id_, user,
                                                              max_pin_failures_);
                                  },
                              .memo = &pin_memo_});
}

Result<int> PostgresToken::ClearPinFailures(UserType user) {
  base::MutexLock lock(&db_mu_);
  SIGNET_ASSIGN_OR_RETURN(PinRecord record, LoadPgPinRecord(*db_, token_id_, user));
  SIGNET_TRY(ResetPgPinFailures(*db_, token_id_, user, std::numeric_limits<int>::max()));
  return record.failures;
}

Status PostgresToken::StorePin(UserType user, ByteView pin, ByteView kek) {
  SIGNET_ASSIGN_OR_RETURN(PinRecord record, SealKek(user, pin, kek, options_.kdf));
  base::MutexLock lock(&db_mu_);
  return StorePgPinRecord(*db_, token_id_, record);
}

Status PostgresToken::Login(UserType user, ByteView pin) {
  // The epoch before the PIN record: a re-initialisation in between leaves
  // this login stale (refused at its first use), never an old KEK current.
  std::int64_t epoch = 0;
  {
    base::MutexLock lock(&db_mu_);
    SIGNET_ASSIGN_OR_RETURN(epoch, KekEpochLocked(/*for_update=*/false));
  }
  SIGNET_ASSIGN_OR_RETURN(SecureBytes kek, CheckPin(user, pin));
  login_epoch_.store(epoch);
  login_.Set(user, std::move(kek));
  return OkStatus();
}

void PostgresToken::Logout() {
  // KEK first, cache second: a FetchKey that read the cache generation
  // after Clear() then also sees no KEK (see FetchKey).
  login_.Clear();
  login_epoch_.store(-1);
  pin_memo_.Forget();
  cache_.Clear();
}

Error PostgresToken::EndStaleLogin() {
  Logout();
  return MakeError(CKR_USER_NOT_LOGGED_IN,
                   "the token was re-initialised after this login (on this node or another): "
                   "log out and in again");
}

std::shared_ptr<const SecureBytes> PostgresToken::CurrentKek() const { return login_.Current(); }

Status PostgresToken::InitUserPin(ByteView new_pin) {
  SIGNET_ASSIGN_OR_RETURN(std::shared_ptr<const SecureBytes> kek, login_.SoKek());
  SIGNET_TRY(CheckPinLength(new_pin, "PIN"));
  SIGNET_ASSIGN_OR_RETURN(PinRecord record, SealKek(UserType::kUser, new_pin, *kek, options_.kdf));
  {
    base::MutexLock lock(&db_mu_);
    SIGNET_ASSIGN_OR_RETURN(PgTransaction txn, db_->Begin());
    // The row locked: the user PIN opens the token's KEK of now, or none.
    SIGNET_ASSIGN_OR_RETURN(std::int64_t epoch, KekEpochLocked(/*for_update=*/true));
    if (!StaleLogin(epoch)) {
      SIGNET_TRY(StorePgPinRecord(*db_, token_id_, record));
      return txn.Commit();
    }
  }
  return EndStaleLogin();
}

Status PostgresToken::Reinitialize(ByteView so_pin, std::string_view label) {
  SIGNET_TRY(CheckTokenLabel(label));
  if (Result<SecureBytes> old_kek = CheckPin(UserType::kSo, so_pin); !old_kek.ok()) {
    return std::move(old_kek).error();
  }
  SIGNET_ASSIGN_OR_RETURN(SecureBytes kek, crypto::RandomBytes(crypto::kAes256KeySize));
  SIGNET_ASSIGN_OR_RETURN(PinRecord so, SealKek(UserType::kSo, so_pin, kek, options_.kdf));
  // The old pool key is wrapped under the old KEK: a new one goes with it.
  SIGNET_ASSIGN_OR_RETURN(PoolSealKey pool_key, NewPoolSealKey(kek));
  {
    base::MutexLock lock(&db_mu_);
    SIGNET_ASSIGN_OR_RETURN(PgTransaction txn, db_->Begin());
    SIGNET_TRY(db_->Run("DELETE FROM signet_objects WHERE token_id = $1", {token_id_}));
    SIGNET_TRY(db_->Run("DELETE FROM signet_key_pool WHERE token_id = $1", {token_id_}));
    SIGNET_TRY(StorePoolSealKeyLocked(pool_key));
    SIGNET_TRY(db_->Run("DELETE FROM signet_pin_records WHERE token_id = $1 AND user_type = $2",
                        {token_id_, std::int64_t{UserTypeCode(UserType::kUser)}}));
    SIGNET_TRY(StorePgPinRecord(*db_, token_id_, so));
    if (Status relabel = db_->Run("UPDATE signet_tokens SET label = $2, kek_epoch = kek_epoch + 1 "
                                  "WHERE token_id = $1",
                                  {token_id_, label});
        !relabel.ok()) {
      if (db_->last_sqlstate() == kUniqueViolation) {
        return MakeError(CKR_ARGUMENTS_BAD,
                         "another token is labelled '" + EscapedLabel(AsBytes(label)) + "'");
      }
      return relabel;
    }
    SIGNET_TRY(CommitChangeLocked(txn));
  }
  Logout();  // the KEK is the old one
  return OkStatus();
}

Status PostgresToken::SetSlotId(CK_SLOT_ID slot_id) {
  base::MutexLock lock(&db_mu_);
  return db_->Run("UPDATE signet_tokens SET slot_id = $2 WHERE token_id = $1",
                  {token_id_, static_cast<std::int64_t>(slot_id)});
}

Status PostgresToken::SetPin(UserType user, ByteView old_pin, ByteView new_pin) {
  SIGNET_TRY(CheckPinLength(new_pin, "PIN"));
  SIGNET_ASSIGN_OR_RETURN(SecureBytes kek, CheckPin(user, old_pin));
  return StorePin(user, new_pin, kek);
}

}  // namespace signet::keystore
