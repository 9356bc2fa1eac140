// PostgresListener: a node's one LISTEN connection to the PostgreSQL
// keystore (issue 18; docs/SCALING.md), so that its tokens learn of a
// change made on any node without asking the database at every use.
//
// Every change to a token's objects bumps signet_tokens.generation and
// sends NOTIFY signet_keystore, '<token_id>:<generation>' in the same
// transaction (postgres_token_objects.cc), delivered at commit and never for
// a rolled-back change. A thread of its own waits on the connection's
// socket (poll, with a timeout) and keeps, per token, the newest generation
// it knows. While the connection is up, Generation answers from that with
// no query; once it breaks (the server closed it, or TCP keepalives found
// the peer gone: kKeepaliveSeconds), Generation answers "ask the database"
// (nullopt) until the thread has connected again, LISTENed, and read every
// token's generation once, so a notification missed during the outage
// leaves no stale answer.
//
// Thread contract: every public method may be called from any thread; the
// destructor stops and joins the thread (at most one connection attempt,
// kConnectTimeoutSeconds, to wait for).
#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "base/mutex.h"

namespace signet::keystore {

// kKeepaliveSeconds: how long the listening connection can be dead without
// the node noticing (keepalives_idle 5 s, then 2 probes 2 s apart).
inline constexpr int kKeepaliveSeconds = 5 + 2 * 2;
// kConnectTimeoutSeconds: one connection attempt's limit.
inline constexpr int kConnectTimeoutSeconds = 3;

class PostgresListener {
 public:
  // PostgresListener starts the thread, which connects to `uri` (a libpq
  // URI or key=value string), and after a failure or a broken connection
  // tries again every `retry`. It never fails: until it is listening,
  // Generation answers nullopt.
  explicit PostgresListener(std::string uri,
                            std::chrono::milliseconds retry = std::chrono::seconds(1));
  PostgresListener(const PostgresListener&) = delete;
  PostgresListener& operator=(const PostgresListener&) = delete;
  ~PostgresListener();

  // Generation: the newest generation of token `token_id` this node knows,
  // while the connection listens; nullopt when it does not (broken, not yet
  // connected) or the token is not known yet: then ask the database and
  // Note what it said.
  std::optional<std::int64_t> Generation(std::int64_t token_id) const EXCLUDES(mu_);

  // Note merges a generation read from the database (or committed by this
  // node): generations only grow, so the larger one is kept.
  void Note(std::int64_t token_id, std::int64_t generation) EXCLUDES(mu_);

  // AwaitNotified waits, at most `timeout`, until this node's own
  // notification of `generation` has come back (other nodes get theirs at
  // the same time), then Notes it: a change returns to its client once the
  // database has delivered it, not earlier.
  void AwaitNotified(std::int64_t token_id, std::int64_t generation,
                     std::chrono::milliseconds timeout) EXCLUDES(mu_);

  // listening: whether the connection is up and every token's generation
  // was read on it.
  bool listening() const EXCLUDES(mu_);

 private:
  void Run();
  // Listen connects, LISTENs, reads every token's generation and returns
  // the connection's socket; -1 when any step failed.
  int Listen();
  // Drain reads what arrived on the connection; false when it broke.
  bool Drain() EXCLUDES(mu_);
  void Disconnect() EXCLUDES(mu_);
  void MergeLocked(std::int64_t token_id, std::int64_t generation) REQUIRES(mu_);

  const std::string uri_;
  const std::chrono::milliseconds retry_;
  int wake_[2] = {-1, -1};  // a pipe: the destructor writes to stop the thread
  PGconn* conn_ = nullptr;  // the thread's alone

  mutable base::Mutex mu_;
  base::CondVar notified_;
  bool listening_ GUARDED_BY(mu_) = false;
  std::map<std::int64_t, std::int64_t> generations_ GUARDED_BY(mu_);

  std::thread thread_;  // last: starts once the rest is made
};

}  // namespace signet::keystore
