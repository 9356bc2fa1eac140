#include "keystore/postgres_db.h"

#include <atomic>
#include <cstdlib>
#include <string>
#include <vector>

namespace signet::keystore {
namespace {

// DescribeConnection: "database DB on HOST:PORT" from the live connection
// (libpq's own view, so a password in the URI never reaches a message).
std::string DescribeConnection(PGconn* conn) {
  std::string host = PQhost(conn) != nullptr ? PQhost(conn) : "?";
  std::string port = PQport(conn) != nullptr ? PQport(conn) : "?";
  std::string db = PQdb(conn) != nullptr ? PQdb(conn) : "?";
  return "database " + db + " on " + host + ":" + port;
}

// OneLine: libpq's message without its trailing newline.
std::string OneLine(const char* message) {
  std::string text = message != nullptr ? message : "";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

std::atomic<std::uint64_t> statements_sent{0};

}  // namespace

std::uint64_t PgStatementsSent() { return statements_sent.load(std::memory_order_relaxed); }

std::int64_t PgResult::Int64(int row, int column) const {
  if (IsNull(row, column)) return 0;
  return std::strtoll(PQgetvalue(result_.get(), row, column), nullptr, 10);
}

std::string PgResult::Text(int row, int column) const {
  return std::string(PQgetvalue(result_.get(), row, column),
                     static_cast<std::size_t>(PQgetlength(result_.get(), row, column)));
}

Bytes PgResult::Blob(int row, int column) const {
  if (IsNull(row, column)) return {};
  std::size_t length = 0;
  unsigned char* raw = PQunescapeBytea(
      reinterpret_cast<const unsigned char*>(PQgetvalue(result_.get(), row, column)), &length);
  if (raw == nullptr) return {};
  Bytes out(raw, raw + length);
  PQfreemem(raw);
  return out;
}

PgTransaction::~PgTransaction() {
  if (db_ == nullptr) return;
  (void)db_->Run("ROLLBACK");
  db_->in_transaction_ = false;
}

Status PgTransaction::Commit() {
  PgConnection* db = db_;
  db_ = nullptr;
  Status committed = db->Run("COMMIT");
  db->in_transaction_ = false;
  return committed;
}

Result<std::unique_ptr<PgConnection>> PgConnection::Connect(const std::string& uri) {
  PGconn* conn = PQconnectdb(uri.c_str());
  if (conn == nullptr) return MakeError(CKR_HOST_MEMORY, "libpq could not allocate a connection");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string why = OneLine(PQerrorMessage(conn));
    PQfinish(conn);
    return MakeError(CKR_DEVICE_ERROR, "keystore database unreachable: " + why);
  }
  std::string description = DescribeConnection(conn);
  return std::unique_ptr<PgConnection>(new PgConnection(conn, std::move(description)));
}

Error PgConnection::Failure(std::string_view what, PGresult* result) {
  const char* state = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  last_sqlstate_ = state != nullptr ? state : "";
  std::string why = result != nullptr ? OneLine(PQresultErrorMessage(result)) : "";
  if (why.empty()) why = OneLine(PQerrorMessage(conn_.get()));
  return MakeError(CKR_DEVICE_ERROR, description_ + ": " + std::string(what) + ": " + why);
}

Result<PgResult> PgConnection::Query(std::string_view sql, std::span<const PgValue> params) {
  // A broken connection is re-made once, but never inside a transaction:
  // the transaction died with it and the caller must start again.
  if (PQstatus(conn_.get()) != CONNECTION_OK && !in_transaction_) {
    PQreset(conn_.get());
    if (PQstatus(conn_.get()) != CONNECTION_OK) return Failure("reconnecting", nullptr);
  }
  const std::size_t n = params.size();
  std::vector<std::string> texts(n);
  std::vector<const char*> values(n, nullptr);
  std::vector<int> lengths(n, 0), formats(n, 0);
  std::size_t i = 0;
  for (const PgValue& p : params) {
    if (const auto* number = std::get_if<std::int64_t>(&p)) {
      texts[i] = std::to_string(*number);
      values[i] = texts[i].c_str();
    } else if (const auto* text = std::get_if<std::string_view>(&p)) {
      texts[i] = std::string(*text);
      values[i] = texts[i].c_str();
    } else if (const auto* bytes = std::get_if<ByteView>(&p)) {
      // Binary: an empty string of bytes needs a non-null pointer.
      static constexpr char kEmpty = 0;
      values[i] = bytes->empty() ? &kEmpty : reinterpret_cast<const char*>(bytes->data());
      lengths[i] = static_cast<int>(bytes->size());
      formats[i] = 1;
    }
    ++i;
  }
  const std::string statement(sql);
  statements_sent.fetch_add(1, std::memory_order_relaxed);
  PGresult* raw = PQexecParams(conn_.get(), statement.c_str(), static_cast<int>(n), nullptr,
                               values.data(), lengths.data(), formats.data(), 0);
  PgResult result(raw);
  const ExecStatusType status = raw != nullptr ? PQresultStatus(raw) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    return Failure(statement.substr(0, statement.find_first_of(" \n")), raw);
  }
  last_sqlstate_.clear();
  return result;
}

Status PgConnection::Run(std::string_view sql, std::initializer_list<PgValue> params) {
  SIGNET_ASSIGN_OR_RETURN(PgResult ignored, Query(sql, params));
  (void)ignored;
  return OkStatus();
}

Status PgConnection::Exec(std::string_view sql) {
  const std::string text(sql);
  statements_sent.fetch_add(1, std::memory_order_relaxed);
  PgResult result(PQexec(conn_.get(), text.c_str()));
  PGresult* raw = result.result_.get();
  if (raw == nullptr || PQresultStatus(raw) != PGRES_COMMAND_OK) {
    return Failure("schema step", raw);
  }
  last_sqlstate_.clear();
  return OkStatus();
}

Result<PgTransaction> PgConnection::Begin() {
  SIGNET_TRY(Run("BEGIN"));
  in_transaction_ = true;
  return PgTransaction(this);
}

}  // namespace signet::keystore
