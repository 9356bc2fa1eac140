// SqliteToken: creation, opening, token info and PIN handling. Object
// storage and key fetching live in sqlite_token_objects.cc.
#include "keystore/sqlite_token.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <limits>
#include <optional>

#include "base/hex.h"
#include "keystore/data_dir.h"
#include "keystore/pin_policy.h"
#include "keystore/pin_records.h"
#include "keystore/schema.h"
#include "keystore/token_rules.h"

namespace signet::keystore {
namespace {

constexpr std::size_t kSerialBytes = 8;     // 16 hex characters

}  // namespace

Result<std::string> NewTokenSerial() {
  Bytes raw(kSerialBytes);
  SIGNET_TRY(crypto::FillRandom(raw));
  return ToHex(raw);
}

Status InsertTokenMeta(Database& db, std::string_view label, std::string_view serial,
                       int max_pin_failures) {
  SIGNET_ASSIGN_OR_RETURN(
      Statement stmt,
      db.Prepare("INSERT INTO token_meta (id, label, serial, max_pin_failures, created_unix) "
                 "VALUES (1, ?1, ?2, ?3, ?4)"));
  SIGNET_TRY(stmt.BindText(1, label));
  SIGNET_TRY(stmt.BindText(2, serial));
  SIGNET_TRY(stmt.Bind(3, max_pin_failures));
  SIGNET_TRY(stmt.Bind(4, static_cast<std::int64_t>(std::time(nullptr))));
  return stmt.Run();
}

namespace {

// InitialiseFile writes schema, metadata, both PIN records and the pool key
// in one transaction into the empty database at `file`.
Result<std::unique_ptr<Database>> InitialiseFile(const std::filesystem::path& file,
                                                 std::string_view label, std::string_view serial,
                                                 int max_pin_failures, const PinRecord& so,
                                                 const PinRecord* user,
                                                 const PoolSealKey& pool_key) {
  SIGNET_ASSIGN_OR_RETURN(auto db, Database::Open(file));
  SIGNET_TRY(db->ConfigureDurability());
  SIGNET_ASSIGN_OR_RETURN(Transaction txn, db->Begin());
  SIGNET_TRY(MigrateSchema(*db));
  SIGNET_TRY(InsertTokenMeta(*db, label, serial, max_pin_failures));
  SIGNET_TRY(StorePinRecord(*db, so));
  if (user != nullptr) SIGNET_TRY(StorePinRecord(*db, *user));
  SIGNET_TRY(StorePoolSealKey(*db, pool_key));
  SIGNET_TRY(txn.Commit());
  return db;
}

}  // namespace

Result<std::unique_ptr<Token>> Token::Create(const std::filesystem::path& file,
                                             std::string_view label, ByteView so_pin,
                                             ByteView user_pin, const TokenOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(std::string serial, NewTokenSerial());
  SIGNET_ASSIGN_OR_RETURN(auto token,
                          SqliteToken::CreateFile(file, serial, label, so_pin, user_pin, options));
  return std::unique_ptr<Token>(std::move(token));
}

Result<std::unique_ptr<Token>> Token::Open(const std::filesystem::path& file,
                                           const TokenOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(auto token, SqliteToken::OpenFile(file, options));
  return std::unique_ptr<Token>(std::move(token));
}

SqliteToken::SqliteToken(std::unique_ptr<Database> db, std::string label, std::string serial,
                         int max_pin_failures, const TokenOptions& options)
    : label_(std::move(label)),
      serial_(std::move(serial)),
      max_pin_failures_(max_pin_failures),
      options_(options),
      db_(std::move(db)),
      cache_(options.key_cache_capacity) {}

Result<std::unique_ptr<SqliteToken>> SqliteToken::CreateFile(const std::filesystem::path& file,
                                                             std::string_view serial,
                                                             std::string_view label,
                                                             ByteView so_pin, ByteView user_pin,
                                                             const TokenOptions& options) {
  SIGNET_TRY(CheckTokenLabel(label));
  if (so_pin.empty()) return MakeError(CKR_ARGUMENTS_BAD, "SO PIN must not be empty");
  SIGNET_TRY(CheckPinLength(so_pin, "SO PIN"));
  if (!user_pin.empty()) SIGNET_TRY(CheckPinLength(user_pin, "user PIN"));
  if (options.max_pin_failures < 1) {
    return MakeError(CKR_ARGUMENTS_BAD, "max_pin_failures must be at least 1");
  }
  SIGNET_ASSIGN_OR_RETURN(SecureBytes kek, crypto::RandomBytes(crypto::kAes256KeySize));
  SIGNET_ASSIGN_OR_RETURN(PinRecord so, SealKek(UserType::kSo, so_pin, kek, options.kdf));
  // An empty user PIN leaves it uninitialised (PKCS#11 C_InitToken has none;
  // the SO sets it later with C_InitPIN).
  std::optional<PinRecord> user;
  if (!user_pin.empty()) {
    SIGNET_ASSIGN_OR_RETURN(user, SealKek(UserType::kUser, user_pin, kek, options.kdf));
  }

  SIGNET_ASSIGN_OR_RETURN(PoolSealKey pool_key, NewPoolSealKey(kek));
  SIGNET_TRY(CreateEmptyFile(file));
  auto db = InitialiseFile(file, label, serial, options.max_pin_failures, so,
                           user ? &*user : nullptr, pool_key);
  if (!db.ok()) {
    RemoveTokenFiles(file);
    return std::move(db).error();
  }
  SyncDirectory(file.parent_path());
  std::unique_ptr<SqliteToken> token(new SqliteToken(
      std::move(*db), std::string(label), std::string(serial), options.max_pin_failures, options));
  SIGNET_TRY(token->LoadPoolKeyState());
  return token;
}

namespace {

// CheckTokenPath says why `file` cannot hold a token before SQLite touches
// it: SQLite would turn an empty file into a fresh database, and the
// reasons "directory" or "dangling symlink" are clearer than its errors.
Status CheckTokenPath(const std::filesystem::path& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::file_status link = fs::symlink_status(file, ec);
  if (link.type() == fs::file_type::not_found) {
    return MakeError(CKR_TOKEN_NOT_PRESENT, "no such file");
  }
  fs::file_status target = fs::status(file, ec);
  if (link.type() == fs::file_type::symlink && target.type() == fs::file_type::not_found) {
    return MakeError(CKR_TOKEN_NOT_PRESENT, "is a symbolic link to a missing file");
  }
  if (target.type() == fs::file_type::directory) {
    return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "is a directory, not a token file");
  }
  if (target.type() != fs::file_type::regular) {
    return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "is not a regular file");
  }
  if (fs::file_size(file, ec) == 0 && !ec) {
    return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "is empty (0 bytes): not a signet token");
  }
  return OkStatus();
}

// CheckPinRecords: every token has an SO PIN record (Create writes it in
// the same transaction as the schema); the user's may be absent (not yet
// initialised) but must be readable when present.
Status CheckPinRecords(Database& db) {
  auto so = LoadPinRecord(db, UserType::kSo);
  if (!so.ok()) {
    if (so.error().code == CKR_USER_PIN_NOT_INITIALIZED) {
      return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "damaged: it has no SO PIN record");
    }
    return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "damaged: SO PIN record: " + so.error().message);
  }
  auto user = LoadPinRecord(db, UserType::kUser);
  if (!user.ok() && user.error().code != CKR_USER_PIN_NOT_INITIALIZED) {
    return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "damaged: user PIN record: " + user.error().message);
  }
  return OkStatus();
}

}  // namespace

Result<std::unique_ptr<SqliteToken>> SqliteToken::OpenFile(const std::filesystem::path& file,
                                                           const TokenOptions& options) {
  auto token = OpenCheckedFile(file, options);
  if (!token.ok()) {
    // Every reason names the file: the daemon reports it as is.
    return MakeError(token.error().code, "token file " + file.string() + ": " +
                                             token.error().message);
  }
  return std::move(*token);
}

Result<std::unique_ptr<SqliteToken>> SqliteToken::OpenCheckedFile(
    const std::filesystem::path& file, const TokenOptions& options) {
  SIGNET_TRY(CheckTokenPath(file));
  SIGNET_ASSIGN_OR_RETURN(auto db, Database::Open(file));
  // Read-only checks first: a file that is not a healthy token is left
  // exactly as found (ConfigureDurability and migration write).
  SIGNET_TRY(CheckIsToken(*db));
  SIGNET_TRY(CheckIntegrity(*db));
  SIGNET_TRY(CheckPinRecords(*db));
  SIGNET_ASSIGN_OR_RETURN(std::int64_t version, db->PragmaInt("user_version"));
  {
    SIGNET_ASSIGN_OR_RETURN(Statement stmt, db->Prepare("SELECT COUNT(*) FROM token_meta"));
    SIGNET_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row || stmt.ColumnInt64(0) != 1) {
      return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "damaged: token has no metadata");
    }
  }
  SIGNET_TRY(db->ConfigureDurability());
  if (version < CurrentSchemaVersion()) {
    SIGNET_ASSIGN_OR_RETURN(Transaction txn, db->Begin());
    SIGNET_TRY(MigrateSchema(*db));
    SIGNET_TRY(txn.Commit());
  }
  SIGNET_ASSIGN_OR_RETURN(
      Statement stmt,
      db->Prepare("SELECT label, serial, max_pin_failures, slot_id FROM token_meta"));
  SIGNET_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "damaged: token has no metadata");
  std::string label = stmt.ColumnText(0);
  std::string serial = stmt.ColumnText(1);
  int max_failures = static_cast<int>(stmt.ColumnInt64(2));
  std::optional<CK_SLOT_ID> slot_id;
  if (!stmt.ColumnIsNull(3)) slot_id = static_cast<CK_SLOT_ID>(stmt.ColumnInt64(3));
  stmt = Statement();  // finalise before the connection moves
  if (max_failures < 1) {
    return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "damaged: implausible PIN failure limit");
  }
  std::unique_ptr<SqliteToken> token(
      new SqliteToken(std::move(db), std::move(label), std::move(serial), max_failures, options));
  {
    base::MutexLock lock(&token->auth_mu_);
    token->slot_id_ = slot_id;
  }
  SIGNET_TRY(token->LoadPoolKeyState());
  return token;
}

TokenInfo SqliteToken::Info() const {
  TokenInfo info;
  {
    base::MutexLock lock(&auth_mu_);
    info.label = label_;
    info.slot_id = slot_id_;
  }
  info.serial = serial_;
  info.max_pin_failures = max_pin_failures_;
  base::MutexLock lock(&db_mu_);
  for (UserType user : {UserType::kSo, UserType::kUser}) {
    auto record = LoadPinRecord(*db_, user);
    if (!record.ok()) continue;
    bool locked = record->failures >= max_pin_failures_;
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

Result<SecureBytes> SqliteToken::CheckPin(UserType user, ByteView pin) {
  return CheckPinWithLockout(pin, max_pin_failures_,
                             {.load =
                                  [&] {
                                    base::MutexLock lock(&db_mu_);
                                    return LoadPinRecord(*db_, user);
                                  },
                              .record_failure =
                                  [&] {
                                    base::MutexLock lock(&db_mu_);
                                    return RecordPinFailure(*db_, user);
                                  },
                              .reset =
                                  [&] {
                                    base::MutexLock lock(&db_mu_);
                                    return ResetPinFailures(*db_, user, max_pin_failures_);
                                  },
                              .memo = &pin_memo_});
}

Result<int> SqliteToken::ClearPinFailures(UserType user) {
  base::MutexLock lock(&db_mu_);
  SIGNET_ASSIGN_OR_RETURN(PinRecord record, LoadPinRecord(*db_, user));
  // No limit on the reset: INT_MAX is above any stored count.
  SIGNET_TRY(ResetPinFailures(*db_, user, std::numeric_limits<int>::max()));
  return record.failures;
}

Status SqliteToken::StorePin(UserType user, ByteView pin, ByteView kek) {
  SIGNET_ASSIGN_OR_RETURN(PinRecord record, SealKek(user, pin, kek, options_.kdf));
  base::MutexLock lock(&db_mu_);
  SIGNET_ASSIGN_OR_RETURN(Transaction txn, db_->Begin());
  SIGNET_TRY(StorePinRecord(*db_, record));
  return txn.Commit();
}

Status SqliteToken::Login(UserType user, ByteView pin) {
  SIGNET_ASSIGN_OR_RETURN(SecureBytes kek, CheckPin(user, pin));
  // A token from before sealed pools gets its pool key now. The login does
  // not depend on it: without one the pool only waits.
  (void)EnsurePoolSealKey(kek);
  login_.Set(user, std::move(kek));
  return OkStatus();
}

void SqliteToken::Logout() {
  // KEK first, cache second: a FetchKey that read the cache generation
  // after Clear() then also sees no KEK (see FetchKey).
  login_.Clear();
  pin_memo_.Forget();
  cache_.Clear();
}

std::shared_ptr<const SecureBytes> SqliteToken::CurrentKek() const { return login_.Current(); }

Status SqliteToken::InitUserPin(ByteView new_pin) {
  SIGNET_ASSIGN_OR_RETURN(std::shared_ptr<const SecureBytes> kek, login_.SoKek());
  SIGNET_TRY(CheckPinLength(new_pin, "PIN"));
  return StorePin(UserType::kUser, new_pin, *kek);
}

Status SqliteToken::Reinitialize(ByteView so_pin, std::string_view label) {
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
    SIGNET_ASSIGN_OR_RETURN(Transaction txn, db_->Begin());
    SIGNET_TRY(StorePoolSealKey(*db_, pool_key));
    for (const char* sql : {"DELETE FROM objects", "DELETE FROM key_pool",
                            "DELETE FROM pin_records WHERE user_type = 1"}) {
      SIGNET_ASSIGN_OR_RETURN(Statement stmt, db_->Prepare(sql));
      SIGNET_TRY(stmt.Run());
    }
    SIGNET_TRY(StorePinRecord(*db_, so));
    SIGNET_ASSIGN_OR_RETURN(Statement relabel,
                            db_->Prepare("UPDATE token_meta SET label = ?1 WHERE id = 1"));
    SIGNET_TRY(relabel.BindText(1, label));
    SIGNET_TRY(relabel.Run());
    SIGNET_TRY(txn.Commit());
  }
  login_.Clear();
  pin_memo_.Forget();
  {
    base::MutexLock lock(&auth_mu_);
    label_ = std::string(label);
  }
  cache_.Clear();
  SIGNET_TRY(LoadPoolKeyState());
  return OkStatus();
}

Status SqliteToken::SetSlotId(CK_SLOT_ID slot_id) {
  {
    base::MutexLock lock(&db_mu_);
    SIGNET_ASSIGN_OR_RETURN(Statement stmt,
                            db_->Prepare("UPDATE token_meta SET slot_id = ?1 WHERE id = 1"));
    SIGNET_TRY(stmt.Bind(1, static_cast<std::int64_t>(slot_id)));
    SIGNET_TRY(stmt.Run());
  }
  base::MutexLock lock(&auth_mu_);
  slot_id_ = slot_id;
  return OkStatus();
}

Status SqliteToken::SetPin(UserType user, ByteView old_pin, ByteView new_pin) {
  SIGNET_TRY(CheckPinLength(new_pin, "PIN"));
  SIGNET_ASSIGN_OR_RETURN(SecureBytes kek, CheckPin(user, old_pin));
  return StorePin(user, new_pin, kek);
}

}  // namespace signet::keystore
