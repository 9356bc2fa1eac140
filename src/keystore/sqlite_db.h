// Thin RAII layer over the SQLite C API: Database owns a sqlite3*, Statement
// a sqlite3_stmt*, Transaction a BEGIN IMMEDIATE ... COMMIT span (rolled back
// when dropped uncommitted). Errors come back as Result with a CK_RV code
// (see SqliteError), never as exceptions.
//
// Thread contract: a Database and its Statements are NOT synchronised (the
// connection is opened SQLITE_OPEN_NOMUTEX); the owner serialises every call,
// as SqliteToken does with its database mutex. Only keystore/ includes this.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "base/secure_bytes.h"
#include "signet/result.hpp"

namespace signet::keystore {

// SqliteError maps a SQLite result code to an Error: SQLITE_NOTADB →
// CKR_TOKEN_NOT_RECOGNIZED, SQLITE_NOMEM → CKR_HOST_MEMORY, SQLITE_FULL →
// CKR_DEVICE_MEMORY, anything else → CKR_DEVICE_ERROR. `what` names the step.
Error SqliteError(int rc, std::string_view what, sqlite3* db = nullptr);

// Statement: one prepared statement. Bind indexes start at 1 (SQLite's
// convention), column indexes at 0. Blob/text binds are copied by SQLite
// (SQLITE_TRANSIENT), so arguments need not outlive the call.
class Statement {
 public:
  Statement() = default;

  Status Bind(int index, std::int64_t value);
  Status Bind(int index, ByteView blob);
  Status BindText(int index, std::string_view text);
  Status BindNull(int index);

  // Step runs one step: true when a row is ready, false when done.
  Result<bool> Step();

  // Run steps until done (for statements that return no rows).
  Status Run();

  std::int64_t ColumnInt64(int column) const;
  bool ColumnIsNull(int column) const;
  Bytes ColumnBlob(int column) const;
  std::string ColumnText(int column) const;

 private:
  friend class Database;
  struct Finalizer {
    void operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }
  };
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  Status CheckBind(int rc, int index);

  sqlite3* db_ = nullptr;  // borrowed from the owning Database
  std::unique_ptr<sqlite3_stmt, Finalizer> stmt_;
};

class Database;

// Transaction: BEGIN IMMEDIATE on creation (takes the write lock at once, so
// a busy database fails here and not half-way through); Commit makes it
// durable (synchronous=FULL: the WAL is fsynced before Commit returns).
// Dropped without Commit → ROLLBACK.
class Transaction {
 public:
  Transaction(Transaction&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();

  // Commit: after success the Transaction is finished; after failure it has
  // been rolled back.
  Status Commit();

 private:
  friend class Database;
  explicit Transaction(Database* db) : db_(db) {}
  Database* db_;
};

// Database: one SQLite connection.
class Database {
 public:
  // Open opens `file` read-write (never creates it: callers create token
  // files themselves with the right mode). The connection gets
  // busy_timeout, foreign_keys=ON, secure_delete=ON and extended result
  // codes; journal mode
  // is left to the caller (see ConfigureDurability).
  static Result<std::unique_ptr<Database>> Open(const std::filesystem::path& file);

  // OpenReadOnly opens `file` as Open does, but read-only: no statement on
  // the connection can change the file (a token copied elsewhere,
  // token_records.h, stays exactly as it was).
  static Result<std::unique_ptr<Database>> OpenReadOnly(const std::filesystem::path& file);

  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  // ConfigureDurability switches to WAL with synchronous=FULL. Call only
  // once the file is known to be a signet token.
  Status ConfigureDurability();

  // Exec runs one or more SQL statements that return no rows.
  Status Exec(std::string_view sql);

  // Prepare compiles one statement.
  Result<Statement> Prepare(std::string_view sql);

  // PragmaInt reads an integer pragma such as "user_version".
  Result<std::int64_t> PragmaInt(std::string_view name);

  // Begin starts a write transaction (BEGIN IMMEDIATE).
  Result<Transaction> Begin();

  std::int64_t LastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }
  int Changes() const { return sqlite3_changes(db_); }
  sqlite3* get0() const { return db_; }

 private:
  explicit Database(sqlite3* db) : db_(db) {}
  // OpenWith: Open and OpenReadOnly, `access` SQLITE_OPEN_READWRITE or
  // SQLITE_OPEN_READONLY.
  static Result<std::unique_ptr<Database>> OpenWith(const std::filesystem::path& file, int access);
  sqlite3* db_;
};

}  // namespace signet::keystore
