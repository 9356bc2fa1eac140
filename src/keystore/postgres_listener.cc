#include "keystore/postgres_listener.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>

namespace signet::keystore {
namespace {

// kChannel: the channel every change is notified on (postgres_token.h).
constexpr char kChannel[] = "signet_keystore";

// kPollMillis: how long the thread sleeps on a quiet connection before it
// looks at it again (libpq's status; the stop pipe wakes it at once).
constexpr int kPollMillis = 1000;

}  // namespace

PostgresListener::PostgresListener(std::string uri, std::chrono::milliseconds retry)
    : uri_(std::move(uri)), retry_(retry) {
  if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) wake_[0] = wake_[1] = -1;
  thread_ = std::thread([this] { Run(); });
}

PostgresListener::~PostgresListener() {
  if (wake_[1] >= 0) {
    const char stop = 1;
    (void)!write(wake_[1], &stop, 1);
  }
  thread_.join();
  for (int fd : wake_) {
    if (fd >= 0) close(fd);
  }
}

std::optional<std::int64_t> PostgresListener::Generation(std::int64_t token_id) const {
  base::MutexLock lock(&mu_);
  if (!listening_) return std::nullopt;
  auto it = generations_.find(token_id);
  if (it == generations_.end()) return std::nullopt;
  return it->second;
}

void PostgresListener::Note(std::int64_t token_id, std::int64_t generation) {
  base::MutexLock lock(&mu_);
  MergeLocked(token_id, generation);
}

void PostgresListener::AwaitNotified(std::int64_t token_id, std::int64_t generation,
                                     std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  base::MutexLock lock(&mu_);
  while (listening_) {
    auto it = generations_.find(token_id);
    if (it != generations_.end() && it->second >= generation) break;
    if (!notified_.WaitUntil(&mu_, deadline)) break;
  }
  MergeLocked(token_id, generation);
}

bool PostgresListener::listening() const {
  base::MutexLock lock(&mu_);
  return listening_;
}

void PostgresListener::MergeLocked(std::int64_t token_id, std::int64_t generation) {
  std::int64_t& known = generations_[token_id];
  known = std::max(known, generation);
}

void PostgresListener::Run() {
  if (wake_[0] < 0) return;  // no pipe, no clean stop: never listen
  for (;;) {
    const int socket = Listen();
    if (socket >= 0) {
      // Listening until the connection breaks or the stop comes.
      pollfd fds[2] = {{.fd = wake_[0], .events = POLLIN, .revents = 0},
                       {.fd = socket, .events = POLLIN, .revents = 0}};
      for (;;) {
        if (poll(fds, 2, kPollMillis) < 0 && errno != EINTR) break;
        if (fds[0].revents != 0) break;
        if (!Drain()) break;
      }
      Disconnect();
    }
    // Broken or never made: the tokens ask the database until the next try.
    pollfd stop = {.fd = wake_[0], .events = POLLIN, .revents = 0};
    if (poll(&stop, 1, static_cast<int>(retry_.count())) > 0) break;
  }
  Disconnect();
}

int PostgresListener::Listen() {
  // Keepalives bound how long a dead peer goes unnoticed (kKeepaliveSeconds);
  // later keywords override the URI's own.
  const std::string keepalive_idle = "5", keepalive_interval = "2", keepalive_count = "2";
  const std::string connect_timeout = std::to_string(kConnectTimeoutSeconds);
  const char* keys[] = {
      "dbname",           "keepalives",      "keepalives_idle",  "keepalives_interval",
      "keepalives_count", "connect_timeout", "application_name", nullptr};
  const char* values[] = {uri_.c_str(),
                          "1",
                          keepalive_idle.c_str(),
                          keepalive_interval.c_str(),
                          keepalive_count.c_str(),
                          connect_timeout.c_str(),
                          "signet-listener",
                          nullptr};
  conn_ = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) {
    Disconnect();
    return -1;
  }
  // The server's word on a connection it ends ("terminating connection")
  // is not printed on the daemon's stderr: the tokens just ask again.
  PQsetNoticeProcessor(
      conn_, [](void*, const char*) {}, nullptr);
  // LISTEN first, then the generations: a change committed after LISTEN is
  // notified, one committed before is in what the SELECT reads.
  PGresult* listen = PQexec(conn_, (std::string("LISTEN ") + kChannel).c_str());
  const bool listened = PQresultStatus(listen) == PGRES_COMMAND_OK;
  PQclear(listen);
  PGresult* rows =
      listened ? PQexec(conn_, "SELECT token_id, generation FROM signet_tokens") : nullptr;
  if (rows == nullptr || PQresultStatus(rows) != PGRES_TUPLES_OK) {
    PQclear(rows);
    Disconnect();
    return -1;
  }
  {
    base::MutexLock lock(&mu_);
    for (int i = 0; i < PQntuples(rows); ++i) {
      MergeLocked(std::strtoll(PQgetvalue(rows, i, 0), nullptr, 10),
                  std::strtoll(PQgetvalue(rows, i, 1), nullptr, 10));
    }
    listening_ = true;
  }
  PQclear(rows);
  // Notifications that came with the SELECT's answer.
  if (!Drain()) {
    Disconnect();
    return -1;
  }
  return PQsocket(conn_);
}

bool PostgresListener::Drain() {
  if (PQconsumeInput(conn_) == 0 || PQstatus(conn_) != CONNECTION_OK) return false;
  base::MutexLock lock(&mu_);
  while (PGnotify* note = PQnotifies(conn_)) {
    // "<token_id>:<generation>"; anything else is not ours and is skipped.
    char* end = nullptr;
    const std::int64_t token_id = std::strtoll(note->extra, &end, 10);
    if (end != nullptr && *end == ':') MergeLocked(token_id, std::strtoll(end + 1, nullptr, 10));
    PQfreemem(note);
  }
  notified_.SignalAll();
  return true;
}

void PostgresListener::Disconnect() {
  {
    base::MutexLock lock(&mu_);
    listening_ = false;
    notified_.SignalAll();
  }
  if (conn_ != nullptr) PQfinish(conn_);
  conn_ = nullptr;
}

}  // namespace signet::keystore
