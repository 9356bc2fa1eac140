// Thin RAII layer over libpq for the PostgreSQL keystore (issue 18;
// docs/SCALING.md): PgConnection owns a PGconn, PgResult a PGresult,
// PgTransaction a BEGIN ... COMMIT span (rolled back when dropped
// uncommitted). Every statement is sent with PQexecParams: values travel as
// parameters, never spliced into SQL text, and byte strings (bytea) in
// binary. Errors come back as Result with a CK_RV code, never as exceptions.
//
// Secrets never pass through here: the keystore stores only what a token
// file holds (wrapped keys, PIN records, attributes).
//
// Thread contract: a PgConnection and its results are NOT synchronised; the
// owner serialises every call, as the keystore does with its own mutex.
// Only keystore/ includes this.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "base/secure_bytes.h"
#include "signet/result.hpp"

namespace signet::keystore {

// PgStatementsSent: how many statements every PgConnection of the process
// has sent so far (any thread; the tests count a node's queries with it).
std::uint64_t PgStatementsSent();

// PgValue: one statement parameter: SQL NULL, an integer, text, or bytes
// (bytea). Bytes are borrowed: they must outlive the call that sends them.
using PgValue = std::variant<std::monostate, std::int64_t, std::string_view, ByteView>;

// kUniqueViolation: the SQLSTATE of a UNIQUE or PRIMARY KEY clash.
inline constexpr std::string_view kUniqueViolation = "23505";

// PgResult: the rows of one statement (text format). Row and column
// indexes start at 0. REQUIRES for the accessors: row < rows(), column in
// range.
class PgResult {
 public:
  int rows() const { return PQntuples(result_.get()); }
  bool IsNull(int row, int column) const { return PQgetisnull(result_.get(), row, column) != 0; }
  // Int64 parses an integer column; 0 for NULL.
  std::int64_t Int64(int row, int column) const;
  std::string Text(int row, int column) const;
  // Blob decodes a bytea column (PostgreSQL's hex output).
  Bytes Blob(int row, int column) const;

 private:
  friend class PgConnection;
  struct Clear {
    void operator()(PGresult* r) const { PQclear(r); }
  };
  explicit PgResult(PGresult* result) : result_(result) {}
  std::unique_ptr<PGresult, Clear> result_;
};

class PgConnection;

// PgTransaction: BEGIN on creation; Commit makes the change durable (the
// server's own durability settings). Dropped without Commit → ROLLBACK.
class PgTransaction {
 public:
  PgTransaction(PgTransaction&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  PgTransaction& operator=(PgTransaction&&) = delete;
  ~PgTransaction();

  // Commit: after success the transaction is finished; after failure the
  // server has rolled it back.
  Status Commit();

 private:
  friend class PgConnection;
  explicit PgTransaction(PgConnection* db) : db_(db) {}
  PgConnection* db_;
};

class PgConnection {
 public:
  // Connect opens a connection to `uri` (a libpq connection URI or
  // key=value string). CKR_DEVICE_ERROR, with libpq's reason, when the
  // server cannot be reached or refuses.
  static Result<std::unique_ptr<PgConnection>> Connect(const std::string& uri);

  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;
  ~PgConnection() = default;

  // Query runs one statement with `params` ($1, $2, ... in order) and
  // returns its rows (none for a statement without). A connection found
  // broken is re-established once first, outside a transaction.
  // CKR_DEVICE_ERROR naming the database when it fails; last_sqlstate()
  // then tells why (e.g. kUniqueViolation), empty when the server was not
  // reached.
  Result<PgResult> Query(std::string_view sql, std::span<const PgValue> params);
  Result<PgResult> Query(std::string_view sql, std::initializer_list<PgValue> params = {}) {
    return Query(sql, std::span<const PgValue>(params.begin(), params.size()));
  }

  // Run is Query for statements whose rows do not matter.
  Status Run(std::string_view sql, std::initializer_list<PgValue> params = {});

  // Exec runs SQL text of one or more statements without parameters (the
  // schema's steps: libpq takes several statements only this way).
  Status Exec(std::string_view sql);

  // Begin starts a transaction (BEGIN).
  Result<PgTransaction> Begin();

  const std::string& last_sqlstate() const { return last_sqlstate_; }
  // reachable: whether the connection to the server is up (false after a
  // failure that lost it, until a statement re-made it).
  bool reachable() const { return PQstatus(conn_.get()) == CONNECTION_OK; }
  // Describe names the database for messages ("database signet on
  // 127.0.0.1:5432"), never with a password.
  const std::string& Describe() const { return description_; }

 private:
  friend class PgTransaction;
  struct Finish {
    void operator()(PGconn* c) const { PQfinish(c); }
  };
  PgConnection(PGconn* conn, std::string description)
      : conn_(conn), description_(std::move(description)) {}
  Error Failure(std::string_view what, PGresult* result);

  std::unique_ptr<PGconn, Finish> conn_;
  std::string description_;
  std::string last_sqlstate_;
  bool in_transaction_ = false;
};

}  // namespace signet::keystore
