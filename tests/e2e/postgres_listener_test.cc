// The LISTEN connection of the PostgreSQL keystore
// (keystore/postgres_listener.h) on a real PostgreSQL, with two keystores
// on the same database standing for two signetd nodes: once a change's
// notification has come, the other node answers "has this token changed?"
// and serves its warm cache with no query at all, and refuses a key
// destroyed elsewhere at its next use; with its listening connection killed
// (pg_terminate_backend), it asks the database again and still refuses a
// destroyed key; once it has reconnected, a key destroyed while it was not
// listening is refused all the same, and it stops asking again.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <thread>

#include "crypto/keys.h"
#include "keystore/keystore.h"
#include "keystore/postgres_db.h"
#include "postgres_server.h"

namespace signet::e2e {
namespace {

using keystore::AttributeMap;
using keystore::Token;
using keystore::UserType;

const char kSoPin[] = "so-pin-1234";
const char kUserPin[] = "user-pin-1234";

keystore::TokenOptions Options() {
  keystore::TokenOptions options;
  options.kdf.n = 1024;  // cheap scrypt: tests only
  return options;
}

Bytes Ulong(CK_ULONG value) {
  Bytes out(sizeof value);
  std::memcpy(out.data(), &value, sizeof value);
  return out;
}

// StatementsDuring: how many statements the process's keystore connections
// sent while `work` ran (the listening connections are not counted).
std::uint64_t StatementsDuring(const std::function<void()>& work) {
  const std::uint64_t before = keystore::PgStatementsSent();
  work();
  return keystore::PgStatementsSent() - before;
}

// Eventually: whether `done` became true within `limit`.
bool Eventually(const std::function<bool()>& done,
                std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

class PostgresListenerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!PostgresInstalled()) GTEST_SKIP() << "PostgreSQL is not installed (scripts/deps.sh)";
    ASSERT_EQ(server_.Start(), "");
    for (auto& node : nodes_) {
      auto opened = keystore::OpenPostgresKeystore(server_.uri());
      ASSERT_TRUE(opened.ok()) << opened.error().message;
      node = std::move(*opened);
    }
    auto made = nodes_[0]->CreateToken("shared", AsBytes(kSoPin), AsBytes(kUserPin), Options(), {});
    ASSERT_TRUE(made.ok()) << made.error().message;
    a_ = std::move(made->second);
    auto opened = nodes_[1]->OpenToken(made->first, Options());
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    b_ = std::move(*opened);
    for (Token* token : {a_.get(), b_.get()}) {
      ASSERT_TRUE(token->Login(UserType::kUser, AsBytes(kUserPin)).ok());
    }
  }

  // StoreKey stores a fresh P-256 private key through node A.
  keystore::ObjectHandle StoreKey() {
    auto key = crypto::PrivateKey::Generate({crypto::KeyType::kEcP256});
    EXPECT_TRUE(key.ok());
    SecureBytes der = *key->ToPkcs8Der();
    auto handle = a_->CreateObject(
        {{CKA_CLASS, Ulong(CKO_PRIVATE_KEY)}, {CKA_KEY_TYPE, Ulong(CKK_EC)}}, &der);
    EXPECT_TRUE(handle.ok()) << handle.error().message;
    return handle.ok() ? *handle : 0;
  }

  // QuietOnB: whether node B serves `handle` from its cache and answers
  // its token's generation without a single query.
  bool QuietOnB(keystore::ObjectHandle handle) {
    bool hit = false;
    const std::uint64_t sent = StatementsDuring([&] {
      (void)b_->ObjectsGeneration();
      (void)b_->FetchKey(handle, &hit);
    });
    return sent == 0 && hit;
  }

  // KillListeners ends every node's listening connection from the server's
  // side, as a network cut or a database failover would.
  void KillListeners() {
    auto admin = keystore::PgConnection::Connect(server_.uri());
    ASSERT_TRUE(admin.ok()) << admin.error().message;
    auto killed = (*admin)->Query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE application_name = 'signet-listener'");
    ASSERT_TRUE(killed.ok()) << killed.error().message;
    ASSERT_EQ(killed->rows(), 2);  // one per node
  }

  // ListenersReady: how many listening connections have read every
  // token's generation since they connected (their last statement).
  int ListenersReady() {
    auto admin = keystore::PgConnection::Connect(server_.uri());
    if (!admin.ok()) return 0;
    auto ready = (*admin)->Query(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'signet-listener' "
        "AND state = 'idle' AND query LIKE 'SELECT token_id, generation%'");
    return ready.ok() ? static_cast<int>(ready->Int64(0, 0)) : 0;
  }

  PostgresServer server_;
  std::unique_ptr<keystore::Keystore> nodes_[2];
  std::unique_ptr<Token> a_, b_;  // the same token on node A and node B
};

TEST_F(PostgresListenerTest, ANotifiedNodeAsksNothingAndRefusesAKeyDestroyedElsewhere) {
  const keystore::ObjectHandle doomed = StoreKey(), kept = StoreKey();
  for (auto handle : {doomed, kept}) ASSERT_TRUE(b_->FetchKey(handle, nullptr).ok());
  ASSERT_TRUE(Eventually([&] { return QuietOnB(doomed) && QuietOnB(kept); }))
      << "node B still asks the database at every use";
  EXPECT_EQ(StatementsDuring([&] {
              for (int i = 0; i < 100; ++i) ASSERT_TRUE(b_->FetchKey(kept, nullptr).ok());
            }),
            0u);

  const std::int64_t before = *b_->ObjectsGeneration();
  ASSERT_TRUE(a_->DestroyObject(doomed).ok());
  const std::int64_t after = *a_->ObjectsGeneration();
  EXPECT_GT(after, before);
  // The notification alone moves B's generation: no query while it comes.
  std::uint64_t sent = 0;
  EXPECT_TRUE(Eventually([&] {
    std::int64_t seen = 0;
    sent += StatementsDuring([&] { seen = *b_->ObjectsGeneration(); });
    return seen == after;
  })) << "the change's notification never reached node B";
  EXPECT_EQ(sent, 0u);
  auto refused = b_->FetchKey(doomed, nullptr);
  ASSERT_FALSE(refused.ok()) << "node B served a key destroyed on node A from its cache";
  EXPECT_EQ(refused.error().code, CKR_OBJECT_HANDLE_INVALID);
  // The other key is read again once, then served quietly.
  ASSERT_TRUE(b_->FetchKey(kept, nullptr).ok());
  EXPECT_TRUE(QuietOnB(kept));
}

TEST_F(PostgresListenerTest, ABrokenListenerFallsBackToQueriesAndCatchesUpOnReconnecting) {
  const keystore::ObjectHandle during = StoreKey(), missed = StoreKey(), kept = StoreKey();
  for (auto handle : {during, missed, kept}) ASSERT_TRUE(b_->FetchKey(handle, nullptr).ok());
  ASSERT_TRUE(Eventually([&] { return QuietOnB(during) && QuietOnB(missed) && QuietOnB(kept); }));

  KillListeners();
  // Node B notices at once (the server closed the connection) and asks the
  // database again until it has reconnected (a second later).
  ASSERT_TRUE(
      Eventually([&] { return StatementsDuring([&] { (void)b_->ObjectsGeneration(); }) > 0; },
                 std::chrono::milliseconds(900)))
      << "node B kept trusting a dead listening connection";
  ASSERT_TRUE(a_->DestroyObject(during).ok());
  std::uint64_t sent = 0;
  sent = StatementsDuring([&] {
    auto refused = b_->FetchKey(during, nullptr);
    ASSERT_FALSE(refused.ok()) << "node B served a key destroyed during the outage";
    EXPECT_EQ(refused.error().code, CKR_OBJECT_HANDLE_INVALID);
  });
  EXPECT_GT(sent, 0u);

  // Warm on B again, destroyed while B listens to nothing, and not asked
  // about on B until it has reconnected: its reconnection's read of every
  // generation must catch it.
  ASSERT_TRUE(b_->FetchKey(missed, nullptr).ok());
  ASSERT_TRUE(a_->DestroyObject(missed).ok());
  ASSERT_TRUE(Eventually([&] { return ListenersReady() == 2; })) << "no node listened again";
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto refused = b_->FetchKey(missed, nullptr);
  ASSERT_FALSE(refused.ok()) << "node B served a key destroyed while it was not listening";
  EXPECT_EQ(refused.error().code, CKR_OBJECT_HANDLE_INVALID);
  ASSERT_TRUE(b_->FetchKey(kept, nullptr).ok());
  EXPECT_TRUE(QuietOnB(kept));
}

}  // namespace
}  // namespace signet::e2e
