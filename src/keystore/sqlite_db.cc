#include "keystore/sqlite_db.h"

#include <string>

namespace signet::keystore {
namespace {

constexpr int kBusyTimeoutMs = 5000;

struct CodeMapping {
  int sqlite_primary;
  CK_RV code;
};

// Table of SQLite primary result codes with a specific PKCS#11 meaning;
// every other failure is CKR_DEVICE_ERROR.
constexpr CodeMapping kCodeMap[] = {
    {SQLITE_NOTADB, CKR_TOKEN_NOT_RECOGNIZED},
    {SQLITE_NOMEM, CKR_HOST_MEMORY},
    {SQLITE_FULL, CKR_DEVICE_MEMORY},
};

}  // namespace

Error SqliteError(int rc, std::string_view what, sqlite3* db) {
  CK_RV code = CKR_DEVICE_ERROR;
  for (const auto& m : kCodeMap) {
    if ((rc & 0xff) == m.sqlite_primary) code = m.code;
  }
  std::string message = "sqlite: " + std::string(what) + ": " + sqlite3_errstr(rc);
  if (db != nullptr && sqlite3_errcode(db) == rc) {
    message += " (";
    message += sqlite3_errmsg(db);
    message += ")";
  }
  return MakeError(code, std::move(message));
}

Status Statement::CheckBind(int rc, int index) {
  if (rc == SQLITE_OK) return OkStatus();
  return SqliteError(rc, "bind " + std::to_string(index), db_);
}

Status Statement::Bind(int index, std::int64_t value) {
  return CheckBind(sqlite3_bind_int64(stmt_.get(), index, value), index);
}

Status Statement::Bind(int index, ByteView blob) {
  // A zero-length blob must still be a blob, not NULL: pass a non-null pointer.
  static const std::uint8_t kEmpty = 0;
  const void* data = blob.empty() ? &kEmpty : blob.data();
  return CheckBind(sqlite3_bind_blob64(stmt_.get(), index, data, blob.size(), SQLITE_TRANSIENT),
                   index);
}

Status Statement::BindText(int index, std::string_view text) {
  return CheckBind(sqlite3_bind_text64(stmt_.get(), index, text.data(), text.size(),
                                       SQLITE_TRANSIENT, SQLITE_UTF8),
                   index);
}

Status Statement::BindNull(int index) {
  return CheckBind(sqlite3_bind_null(stmt_.get(), index), index);
}

Result<bool> Statement::Step() {
  int rc = sqlite3_step(stmt_.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(rc, "step", db_);
}

Status Statement::Run() {
  for (;;) {
    SIGNET_ASSIGN_OR_RETURN(bool row, Step());
    if (!row) return OkStatus();
  }
}

std::int64_t Statement::ColumnInt64(int column) const {
  return sqlite3_column_int64(stmt_.get(), column);
}

bool Statement::ColumnIsNull(int column) const {
  return sqlite3_column_type(stmt_.get(), column) == SQLITE_NULL;
}

Bytes Statement::ColumnBlob(int column) const {
  const auto* data = static_cast<const std::uint8_t*>(sqlite3_column_blob(stmt_.get(), column));
  int size = sqlite3_column_bytes(stmt_.get(), column);
  if (data == nullptr || size <= 0) return {};
  return Bytes(data, data + size);
}

std::string Statement::ColumnText(int column) const {
  const auto* data = sqlite3_column_text(stmt_.get(), column);
  int size = sqlite3_column_bytes(stmt_.get(), column);
  if (data == nullptr || size <= 0) return {};
  return std::string(reinterpret_cast<const char*>(data), static_cast<std::size_t>(size));
}

Transaction::~Transaction() {
  // Best effort: a failed ROLLBACK leaves SQLite to roll back on next open.
  if (db_ != nullptr) (void)db_->Exec("ROLLBACK");
}

Status Transaction::Commit() {
  Database* db = db_;
  db_ = nullptr;
  Status status = db->Exec("COMMIT");
  if (!status.ok()) (void)db->Exec("ROLLBACK");
  return status;
}

Result<std::unique_ptr<Database>> Database::Open(const std::filesystem::path& file) {
  return OpenWith(file, SQLITE_OPEN_READWRITE);
}

Result<std::unique_ptr<Database>> Database::OpenReadOnly(const std::filesystem::path& file) {
  return OpenWith(file, SQLITE_OPEN_READONLY);
}

Result<std::unique_ptr<Database>> Database::OpenWith(const std::filesystem::path& file,
                                                     int access) {
  sqlite3* raw = nullptr;
  int flags = access | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
  int rc = sqlite3_open_v2(file.c_str(), &raw, flags, nullptr);
  std::unique_ptr<Database> db(new Database(raw));  // owns raw even on failure
  if (rc != SQLITE_OK) return SqliteError(rc, "open " + file.string(), raw);
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, kBusyTimeoutMs);
  SIGNET_TRY(db->Exec("PRAGMA foreign_keys=ON"));
  // Overwrite deleted rows with zeros, so a destroyed key's wrapped blob
  // does not linger in free pages of the file.
  SIGNET_TRY(db->Exec("PRAGMA secure_delete=ON"));
  return db;
}

Database::~Database() { sqlite3_close_v2(db_); }

Status Database::ConfigureDurability() {
  SIGNET_ASSIGN_OR_RETURN(Statement stmt, Prepare("PRAGMA journal_mode=WAL"));
  SIGNET_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row || stmt.ColumnText(0) != "wal") {
    return MakeError(CKR_DEVICE_ERROR, "sqlite: could not switch the token to WAL mode");
  }
  // FULL in WAL mode fsyncs the WAL on every commit, so a commit that has
  // returned survives a process kill and a power loss.
  return Exec("PRAGMA synchronous=FULL");
}

Status Database::Exec(std::string_view sql) {
  std::string text(sql);
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return SqliteError(rc, "exec", db_);
  return OkStatus();
}

Result<Statement> Database::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return SqliteError(rc, "prepare", db_);
  }
  return Statement(db_, stmt);
}

Result<std::int64_t> Database::PragmaInt(std::string_view name) {
  SIGNET_ASSIGN_OR_RETURN(Statement stmt, Prepare("PRAGMA " + std::string(name)));
  SIGNET_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return MakeError(CKR_DEVICE_ERROR, "sqlite: pragma returned no row");
  return stmt.ColumnInt64(0);
}

Result<Transaction> Database::Begin() {
  SIGNET_TRY(Exec("BEGIN IMMEDIATE"));
  return Transaction(this);
}

}  // namespace signet::keystore
