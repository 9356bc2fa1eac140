// The PostgreSQL keystore's database layer (keystore/postgres_db.h,
// keystore/postgres_schema.h) against a real PostgreSQL the test starts:
// values of every kind survive the round trip as parameters (bytes with
// zeros, text with quotes, NULL, the int64 extremes); a dropped transaction
// leaves nothing; a UNIQUE clash reports its SQLSTATE; the schema is made
// exactly once by nodes migrating at the same time, and a newer one is
// refused untouched; a stopped server is a clear error naming the database,
// and the connection comes back by itself once the server is up again.
// Token rows and PIN records (keystore/postgres_pin_records.h) as several
// nodes see them: a label is taken once, ten wrong PINs spread over three
// nodes lock the token, and failure counts from many nodes at once are
// exact.
#include "keystore/postgres_db.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "keystore/postgres_pin_records.h"
#include "keystore/postgres_schema.h"
#include "postgres_server.h"

namespace signet::e2e {
namespace {

using keystore::PgConnection;
using keystore::PgResult;

class PostgresDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!PostgresInstalled()) GTEST_SKIP() << "PostgreSQL is not installed (scripts/deps.sh)";
    ASSERT_EQ(server_.Start(), "");
  }

  std::unique_ptr<PgConnection> Connect() {
    auto db = PgConnection::Connect(server_.uri());
    EXPECT_TRUE(db.ok()) << db.error().message;
    return db.ok() ? std::move(*db) : nullptr;
  }

  PostgresServer server_;
};

TEST_F(PostgresDbTest, ValuesRoundTripAsParameters) {
  auto db = Connect();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->Run("CREATE TABLE t (n bigint, s text, b bytea)").ok());
  const Bytes bytes = {0x00, 0xff, 0x27, 0x5c, 0x00};
  const std::string_view text = "it's \"quoted\"; DROP TABLE t; --";
  for (std::int64_t n : {INT64_MIN, std::int64_t{0}, INT64_MAX}) {
    ASSERT_TRUE(db->Run("INSERT INTO t VALUES ($1, $2, $3)", {n, text, ByteView(bytes)}).ok());
  }
  ASSERT_TRUE(
      db->Run("INSERT INTO t VALUES ($1, $2, $3)", {std::monostate{}, text, ByteView()}).ok());
  auto rows = db->Query("SELECT n, s, b FROM t ORDER BY n NULLS LAST");
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->rows(), 4);
  EXPECT_EQ(rows->Int64(0, 0), INT64_MIN);
  EXPECT_EQ(rows->Int64(2, 0), INT64_MAX);
  EXPECT_TRUE(rows->IsNull(3, 0));
  EXPECT_EQ(rows->Text(1, 1), text);
  EXPECT_EQ(rows->Blob(1, 2), bytes);
  EXPECT_FALSE(rows->IsNull(3, 2));  // empty bytes are not NULL
  EXPECT_TRUE(rows->Blob(3, 2).empty());
}

TEST_F(PostgresDbTest, TransactionsCommitOrLeaveNothing) {
  auto db = Connect();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->Run("CREATE TABLE t (n bigint PRIMARY KEY)").ok());
  {
    auto txn = db->Begin();
    ASSERT_TRUE(txn.ok());
    ASSERT_TRUE(db->Run("INSERT INTO t VALUES (1)").ok());
  }  // dropped: rolled back
  {
    auto txn = db->Begin();
    ASSERT_TRUE(txn.ok());
    ASSERT_TRUE(db->Run("INSERT INTO t VALUES (2)").ok());
    ASSERT_TRUE(txn->Commit().ok());
  }
  auto rows = db->Query("SELECT n FROM t");
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->rows(), 1);
  EXPECT_EQ(rows->Int64(0, 0), 2);
  auto clash = db->Run("INSERT INTO t VALUES ($1)", {std::int64_t{2}});
  ASSERT_FALSE(clash.ok());
  EXPECT_EQ(clash.error().code, CKR_DEVICE_ERROR);
  EXPECT_EQ(db->last_sqlstate(), keystore::kUniqueViolation);
  EXPECT_TRUE(db->Run("SELECT 1").ok());
  EXPECT_EQ(db->last_sqlstate(), "");
}

TEST_F(PostgresDbTest, NodesStartingTogetherMakeTheSchemaOnce) {
  std::atomic<int> failures{0};
  std::vector<std::thread> nodes;
  for (int i = 0; i < 4; ++i) {
    nodes.emplace_back([&] {
      auto db = PgConnection::Connect(server_.uri());
      if (!db.ok() || !keystore::MigratePostgresSchema(**db).ok()) failures++;
    });
  }
  for (auto& t : nodes) t.join();
  EXPECT_EQ(failures.load(), 0);
  auto db = Connect();
  ASSERT_NE(db, nullptr);
  auto version = db->Query("SELECT version FROM signet_schema");
  ASSERT_TRUE(version.ok());
  EXPECT_EQ(version->Int64(0, 0), keystore::CurrentPostgresSchemaVersion());
  auto next = db->Query("SELECT count(*) FROM signet_next_slot_id");
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->Int64(0, 0), 1);                         // the one row, inserted once
  EXPECT_TRUE(keystore::MigratePostgresSchema(*db).ok());  // again: nothing to do

  // A schema from a newer build is refused and left as it is.
  ASSERT_TRUE(db->Run("UPDATE signet_schema SET version = version + 1").ok());
  auto newer = keystore::MigratePostgresSchema(*db);
  ASSERT_FALSE(newer.ok());
  EXPECT_EQ(newer.error().code, CKR_TOKEN_NOT_RECOGNIZED);
  EXPECT_NE(newer.error().message.find("newer than this build"), std::string::npos);
  version = db->Query("SELECT version FROM signet_schema");
  EXPECT_EQ(version->Int64(0, 0), keystore::CurrentPostgresSchemaVersion() + 1);
}

TEST_F(PostgresDbTest, AStoppedServerIsAClearErrorAndTheConnectionComesBack) {
  auto db = Connect();
  ASSERT_NE(db, nullptr);
  EXPECT_NE(db->Describe().find("database postgres on 127.0.0.1:"), std::string::npos)
      << db->Describe();
  ASSERT_EQ(server_.Stop(), "");
  auto down = db->Query("SELECT 1");
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.error().code, CKR_DEVICE_ERROR);
  EXPECT_NE(down.error().message.find(db->Describe()), std::string::npos) << down.error().message;
  auto refused = PgConnection::Connect(server_.uri());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("keystore database unreachable"), std::string::npos);

  ASSERT_EQ(server_.StartAgain(), "");
  auto back = db->Query("SELECT 7");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->Int64(0, 0), 7);
}

// PinRecordsTest: the schema, one token with both PIN records, and three
// connections to the database, each standing for a signetd node.
class PinRecordsTest : public PostgresDbTest {
 protected:
  static constexpr int kMaxFailures = 10;

  void SetUp() override {
    PostgresDbTest::SetUp();
    if (IsSkipped()) return;
    for (int i = 0; i < 3; ++i) nodes_.push_back(Connect());
    ASSERT_NE(nodes_[0], nullptr);
    ASSERT_TRUE(keystore::MigratePostgresSchema(*nodes_[0]).ok());
    auto id = keystore::InsertPgToken(*nodes_[0], "0011223344556677", "shared", kMaxFailures);
    ASSERT_TRUE(id.ok()) << id.error().message;
    token_ = *id;
    kek_ = Bytes(32, 0x42);
    for (auto [user, pin] : {std::pair{keystore::UserType::kSo, "so-pin-1234"},
                             std::pair{keystore::UserType::kUser, "user-pin-1234"}}) {
      auto record = keystore::SealKek(user, AsBytes(pin), kek_, Cheap());
      ASSERT_TRUE(record.ok());
      ASSERT_TRUE(keystore::StorePgPinRecord(*nodes_[0], token_, *record).ok());
    }
  }

  static crypto::ScryptParams Cheap() {
    crypto::ScryptParams kdf;
    kdf.n = 1024;
    return kdf;
  }

  // Attempt is one node's login attempt: the tokens' PIN rule
  // (keystore::CheckPinWithLockout) over this node's connection.
  CK_RV Attempt(PgConnection& node, std::string_view pin) {
    const auto user = keystore::UserType::kUser;
    auto kek = keystore::CheckPinWithLockout(
        AsBytes(pin), kMaxFailures,
        {.load = [&] { return keystore::LoadPgPinRecord(node, token_, user); },
         .record_failure = [&] { return keystore::RecordPgPinFailure(node, token_, user); },
         .reset = [&] { return keystore::ResetPgPinFailures(node, token_, user, kMaxFailures); }});
    return kek.ok() ? CKR_OK : kek.error().code;
  }

  std::vector<std::unique_ptr<PgConnection>> nodes_;
  std::int64_t token_ = 0;
  Bytes kek_;
};

TEST_F(PinRecordsTest, ALabelIsTakenOnceAcrossNodes) {
  auto again = keystore::InsertPgToken(*nodes_[1], "8899aabbccddeeff", "shared", kMaxFailures);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, CKR_ARGUMENTS_BAD);
  EXPECT_NE(again.error().message.find("a token labelled 'shared' already exists"),
            std::string::npos)
      << again.error().message;
  EXPECT_TRUE(keystore::InsertPgToken(*nodes_[2], "8899aabbccddeeff", "other", 3).ok());
  auto record = keystore::LoadPgPinRecord(*nodes_[2], token_, keystore::UserType::kSo);
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(*keystore::OpenKek(*record, AsBytes("so-pin-1234")),
            SecureBytes(kek_.begin(), kek_.end()));
}

TEST_F(PinRecordsTest, TenWrongPinsOverThreeNodesLock) {
  // A right PIN in between resets the count, on any node.
  EXPECT_EQ(Attempt(*nodes_[0], "wrong-pin-0"), CKR_PIN_INCORRECT);
  EXPECT_EQ(Attempt(*nodes_[1], "user-pin-1234"), CKR_OK);
  for (int i = 1; i < kMaxFailures; ++i) {
    EXPECT_EQ(Attempt(*nodes_[i % 3], "wrong-pin"), CKR_PIN_INCORRECT) << i;
  }
  EXPECT_EQ(Attempt(*nodes_[1], "wrong-pin"), CKR_PIN_LOCKED);
  // Locked for every node, the right PIN included.
  for (auto& node : nodes_) EXPECT_EQ(Attempt(*node, "user-pin-1234"), CKR_PIN_LOCKED);
  EXPECT_EQ(
      keystore::ResetPgPinFailures(*nodes_[2], token_, keystore::UserType::kUser, kMaxFailures)
          .error()
          .code,
      CKR_PIN_LOCKED);
  // The SO's count is its own.
  auto so = keystore::LoadPgPinRecord(*nodes_[0], token_, keystore::UserType::kSo);
  ASSERT_TRUE(so.ok());
  EXPECT_EQ(so->failures, 0);
}

TEST_F(PinRecordsTest, FailuresFromManyNodesAtOnceAreCountedExactly) {
  constexpr int kEach = 25;
  std::mutex mu;
  std::set<int> seen;
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (auto& node : nodes_) {
    threads.emplace_back([&, db = node.get()] {
      for (int i = 0; i < kEach; ++i) {
        auto count = keystore::RecordPgPinFailure(*db, token_, keystore::UserType::kUser);
        if (!count.ok()) {
          errors++;
          continue;
        }
        std::lock_guard<std::mutex> lock(mu);
        seen.insert(*count);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  // Every count from 1 to 75 was handed out exactly once.
  EXPECT_EQ(seen.size(), 3u * kEach);
  EXPECT_EQ(*seen.begin(), 1);
  EXPECT_EQ(*seen.rbegin(), 3 * kEach);
}

}  // namespace
}  // namespace signet::e2e
