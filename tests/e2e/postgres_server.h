// PostgresServer: a real PostgreSQL from Debian's packages, started by a
// test in a temporary directory and stopped (its directory removed) when
// the object goes. The tests of the PostgreSQL keystore (issue 18) run their
// signetd nodes on it.
//
// PostgreSQL refuses to run as root, and CI runs the tests as root: then
// initdb, pg_ctl and the server run as `nobody` (setpriv), in a directory
// that user owns. The server listens on 127.0.0.1 on a free port and on a
// Unix socket in its directory; its one role, `signet`, is the superuser
// and connects without a password (trust, local connections only: a
// throw-away test cluster). fsync is off: the tests stop and restart the
// server, they never cut its power.
// Thread contract: one test thread owns it.
#pragma once

#include <memory>
#include <string>

#include "process.h"

namespace signet::e2e {

class PostgresServer {
 public:
  // Start runs initdb and starts the server; empty string on success,
  // otherwise what went wrong (with the server's log).
  std::string Start();
  ~PostgresServer();

  // Stop / StartAgain: pg_ctl stop -m fast / start again on the same port.
  std::string Stop();
  std::string StartAgain();

  // uri: postgresql://signet@127.0.0.1:PORT/postgres.
  std::string uri() const;

 private:
  std::string PgCtl(const std::string& action);
  std::unique_ptr<TempDir> dir_;
  std::string bin_;
  int port_ = 0;
  bool running_ = false;
};

// PostgresInstalled: whether Debian's PostgreSQL server binaries are there
// (scripts/deps.sh installs them).
bool PostgresInstalled();

}  // namespace signet::e2e
