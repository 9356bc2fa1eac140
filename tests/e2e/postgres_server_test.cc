// The test PostgreSQL (postgres_server.h) the keystore's multi-node tests
// run on: it starts from nothing as an unprivileged user, answers libpq on
// its URI, refuses while stopped, and answers again on the same port after
// a restart (what the "PostgreSQL restarted under load" test needs).
#include "postgres_server.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <memory>

namespace signet::e2e {
namespace {

struct PgConnFree {
  void operator()(PGconn* c) const { PQfinish(c); }
};
using PgConn = std::unique_ptr<PGconn, PgConnFree>;

// QueryOne runs `sql` and returns its first value, or "" on any failure.
std::string QueryOne(PGconn* conn, const char* sql) {
  PGresult* r = PQexec(conn, sql);
  std::string value;
  if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) value = PQgetvalue(r, 0, 0);
  PQclear(r);
  return value;
}

TEST(PostgresServer, StartsAnswersStopsAndComesBack) {
  if (!PostgresInstalled()) GTEST_SKIP() << "PostgreSQL is not installed (scripts/deps.sh)";
  PostgresServer server;
  ASSERT_EQ(server.Start(), "");
  PgConn conn(PQconnectdb(server.uri().c_str()));
  ASSERT_EQ(PQstatus(conn.get()), CONNECTION_OK) << PQerrorMessage(conn.get());
  EXPECT_EQ(QueryOne(conn.get(), "SELECT 1 + 1"), "2");
  EXPECT_EQ(QueryOne(conn.get(), "SELECT current_user"), "signet");

  ASSERT_EQ(server.Stop(), "");
  EXPECT_EQ(QueryOne(conn.get(), "SELECT 1"), "");
  PgConn refused(PQconnectdb(server.uri().c_str()));
  EXPECT_NE(PQstatus(refused.get()), CONNECTION_OK);

  ASSERT_EQ(server.StartAgain(), "");
  PQreset(conn.get());
  ASSERT_EQ(PQstatus(conn.get()), CONNECTION_OK) << PQerrorMessage(conn.get());
  EXPECT_EQ(QueryOne(conn.get(), "SELECT 40 + 2"), "42");
}

}  // namespace
}  // namespace signet::e2e
