// PostgresToken (keystore/postgres_token.h) on a real PostgreSQL, with two
// or three tokens opened on the same rows standing for signetd nodes: a
// token made on one opens on another; a key stored on one node is found and
// unwrapped on another; a key destroyed or changed on one node is not served
// from another node's warm cache; wrong PINs spread over the nodes lock the
// token for all of them; a key label is taken once when nodes race for it;
// re-initialising on one node shows on the others; and with the database
// down cached keys serve on, while every other use and change fails
// clearly until it is back. The key pool:
// filled on one node, claimed by 16 threads over three nodes, each entry
// handed out exactly once. The keystore
// around them (keystore.h, OpenPostgresKeystore): nodes share the tokens,
// their labels and one slot-id counter; a token copied in
// (keystore/token_migration.h) is stored whole or not at all, on a slot id
// of its own, its secrets rewrapped for their new handles.
#include "keystore/postgres_token.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "crypto/keys.h"
#include "keystore/keystore.h"
#include "keystore/postgres_schema.h"
#include "keystore/token_migration.h"
#include "postgres_server.h"

namespace signet::e2e {
namespace {

using keystore::AttributeMap;
using keystore::PostgresToken;
using keystore::UserType;

constexpr int kMaxFailures = 10;
const char kSoPin[] = "so-pin-1234";
const char kUserPin[] = "user-pin-1234";

keystore::TokenOptions Options() {
  keystore::TokenOptions options;
  options.kdf.n = 1024;  // cheap scrypt: tests only
  options.max_pin_failures = kMaxFailures;
  return options;
}

Bytes Ulong(CK_ULONG value) {
  Bytes out(sizeof value);
  std::memcpy(out.data(), &value, sizeof value);
  return out;
}

Bytes Text(std::string_view text) { return Bytes(text.begin(), text.end()); }

class PostgresTokenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!PostgresInstalled()) GTEST_SKIP() << "PostgreSQL is not installed (scripts/deps.sh)";
    ASSERT_EQ(server_.Start(), "");
    auto db = keystore::PgConnection::Connect(server_.uri());
    ASSERT_TRUE(db.ok()) << db.error().message;
    ASSERT_TRUE(keystore::MigratePostgresSchema(**db).ok());
    auto made = PostgresToken::Create(server_.uri(), "shared", AsBytes(kSoPin), AsBytes(kUserPin),
                                      Options());
    ASSERT_TRUE(made.ok()) << made.error().message;
    serial_ = (*made)->Info().serial;
    nodes_.push_back(std::move(*made));
    for (int i = 0; i < 2; ++i) {
      auto opened = PostgresToken::Open(server_.uri(), serial_, Options());
      ASSERT_TRUE(opened.ok()) << opened.error().message;
      nodes_.push_back(std::move(*opened));
    }
  }

  // StoreKey stores a fresh P-256 private key labelled `label` through
  // `node` (logged in) and returns its handle and PKCS#8.
  std::pair<keystore::ObjectHandle, SecureBytes> StoreKey(PostgresToken& node,
                                                          std::string_view label) {
    auto key = crypto::PrivateKey::Generate({crypto::KeyType::kEcP256});
    EXPECT_TRUE(key.ok());
    SecureBytes der = *key->ToPkcs8Der();
    AttributeMap attributes = {{CKA_CLASS, Ulong(CKO_PRIVATE_KEY)},
                               {CKA_KEY_TYPE, Ulong(CKK_EC)},
                               {CKA_LABEL, Text(label)}};
    auto handle = node.CreateObject(attributes, &der);
    EXPECT_TRUE(handle.ok()) << handle.error().message;
    return {handle.ok() ? *handle : 0, der};
  }

  void LoginAll() {
    for (auto& node : nodes_) ASSERT_TRUE(node->Login(UserType::kUser, AsBytes(kUserPin)).ok());
  }

  PostgresServer server_;
  std::string serial_;
  std::vector<std::unique_ptr<PostgresToken>> nodes_;
};

TEST_F(PostgresTokenTest, ATokenMadeOnOneNodeOpensOnAnother) {
  keystore::TokenInfo info = nodes_[2]->Info();
  EXPECT_EQ(info.label, "shared");
  EXPECT_EQ(info.serial, serial_);
  EXPECT_TRUE(info.user_pin_initialized);
  EXPECT_EQ(info.max_pin_failures, kMaxFailures);
  EXPECT_EQ(PostgresToken::Open(server_.uri(), "ffffffffffffffff", Options()).error().code,
            CKR_TOKEN_NOT_PRESENT);
  auto twin = PostgresToken::Create(server_.uri(), "shared", AsBytes(kSoPin), {}, Options());
  ASSERT_FALSE(twin.ok());
  EXPECT_EQ(twin.error().code, CKR_ARGUMENTS_BAD);
  ASSERT_TRUE(nodes_[1]->SetSlotId(7).ok());
  EXPECT_EQ(nodes_[0]->Info().slot_id, CK_SLOT_ID{7});
}

TEST_F(PostgresTokenTest, AKeyStoredOnOneNodeIsFoundAndUnwrappedOnAnother) {
  LoginAll();
  auto [handle, der] = StoreKey(*nodes_[0], "signing-key");
  auto found = nodes_[2]->FindObjects({{CKA_LABEL, Text("signing-key")}});
  ASSERT_TRUE(found.ok()) << found.error().message;
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ((*found)[0].handle, handle);
  EXPECT_TRUE((*found)[0].has_secret);
  EXPECT_FALSE((*found)[0].attributes.contains(CKA_VALUE));
  auto key = nodes_[2]->FetchKey(handle, nullptr);
  ASSERT_TRUE(key.ok()) << key.error().message;
  EXPECT_EQ((*key)->value, der);
  ASSERT_TRUE((*key)->private_key.has_value());
  // A node that is not logged in unwraps nothing.
  nodes_[1]->Logout();
  EXPECT_EQ(nodes_[1]->FetchKey(handle, nullptr).error().code, CKR_USER_NOT_LOGGED_IN);
}

TEST_F(PostgresTokenTest, AChangeOnOneNodeIsNeverServedFromAnothersWarmCache) {
  LoginAll();
  auto [handle, der] = StoreKey(*nodes_[0], "k1");
  auto [other, other_der] = StoreKey(*nodes_[0], "k2");
  bool hit = false;
  ASSERT_TRUE(nodes_[1]->FetchKey(handle, &hit).ok());
  EXPECT_FALSE(hit);
  ASSERT_TRUE(nodes_[1]->FetchKey(handle, &hit).ok());
  EXPECT_TRUE(hit);  // warm
  // Changed elsewhere: the next fetch reads the database again.
  ASSERT_TRUE(nodes_[0]->UpdateAttributes(other, {{CKA_LABEL, Text("k2b")}}).ok());
  ASSERT_TRUE(nodes_[1]->FetchKey(handle, &hit).ok());
  EXPECT_FALSE(hit);
  ASSERT_TRUE(nodes_[1]->FetchKey(handle, &hit).ok());
  EXPECT_TRUE(hit);
  // Destroyed elsewhere: refused at once, warm cache or not.
  ASSERT_TRUE(nodes_[2]->DestroyObject(handle).ok());
  auto gone = nodes_[1]->FetchKey(handle, &hit);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().code, CKR_OBJECT_HANDLE_INVALID);
  EXPECT_EQ(nodes_[0]->FetchKey(handle, nullptr).error().code, CKR_OBJECT_HANDLE_INVALID);
  EXPECT_EQ(nodes_[0]->DestroyObjects({other, handle}).error().code, CKR_OBJECT_HANDLE_INVALID);
  EXPECT_TRUE(nodes_[1]->FetchKey(other, nullptr).ok());  // the failed destroy took nothing
}

TEST_F(PostgresTokenTest, WrongPinsSpreadOverTheNodesLockForAll) {
  for (int i = 0; i < kMaxFailures - 1; ++i) {
    EXPECT_EQ(nodes_[i % 3]->Login(UserType::kUser, AsBytes("wrong-pin")).error().code,
              CKR_PIN_INCORRECT)
        << i;
  }
  EXPECT_EQ(nodes_[2]->Login(UserType::kUser, AsBytes("wrong-pin")).error().code, CKR_PIN_LOCKED);
  for (auto& node : nodes_) {
    EXPECT_EQ(node->Login(UserType::kUser, AsBytes(kUserPin)).error().code, CKR_PIN_LOCKED);
    EXPECT_TRUE(node->Info().user_pin_locked);
  }
  EXPECT_FALSE(nodes_[0]->Info().so_pin_locked);
  // The offline recovery clears it for every node.
  EXPECT_EQ(*nodes_[1]->ClearPinFailures(UserType::kUser), kMaxFailures);
  EXPECT_TRUE(nodes_[2]->Login(UserType::kUser, AsBytes(kUserPin)).ok());
}

TEST_F(PostgresTokenTest, NodesRacingForAKeyLabelGetItOnce) {
  LoginAll();
  std::atomic<int> created{0}, refused{0}, other{0};
  std::vector<std::thread> threads;
  const Bytes label = Text("only-one");
  for (auto& node : nodes_) {
    threads.emplace_back([&, n = node.get()] {
      for (int i = 0; i < 5; ++i) {
        AttributeMap attributes = {{CKA_CLASS, Ulong(CKO_PUBLIC_KEY)}, {CKA_LABEL, label}};
        auto made = n->CreateObjects({{attributes, nullptr}}, &label);
        if (made.ok()) {
          created++;
        } else if (made.error().code == CKR_ATTRIBUTE_VALUE_INVALID) {
          refused++;
        } else {
          other++;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(created.load(), 1);
  EXPECT_EQ(refused.load(), 14);
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(nodes_[0]->FindObjects({{CKA_LABEL, label}})->size(), 1u);
}

TEST_F(PostgresTokenTest, ReinitialisingOnOneNodeShowsOnTheOthers) {
  LoginAll();
  StoreKey(*nodes_[1], "old");
  ASSERT_TRUE(nodes_[0]->Reinitialize(AsBytes(kSoPin), "renamed").ok());
  EXPECT_EQ(nodes_[2]->Info().label, "renamed");
  EXPECT_FALSE(nodes_[2]->Info().user_pin_initialized);
  EXPECT_TRUE(nodes_[2]->ListObjects()->empty());
  EXPECT_EQ(nodes_[1]->Login(UserType::kUser, AsBytes(kUserPin)).error().code,
            CKR_USER_PIN_NOT_INITIALIZED);
}

TEST_F(PostgresTokenTest, WithTheDatabaseDownCachedKeysServeOnAndNothingElse) {
  LoginAll();
  auto [warm, warm_der] = StoreKey(*nodes_[0], "warm");
  auto [cold, cold_der] = StoreKey(*nodes_[0], "cold");
  ASSERT_TRUE(nodes_[1]->FetchKey(warm, nullptr).ok());
  ASSERT_EQ(server_.Stop(), "");
  // Nothing can change while the database is down: the cache serves on.
  bool hit = false;
  auto served = nodes_[1]->FetchKey(warm, &hit);
  ASSERT_TRUE(served.ok()) << served.error().message;
  EXPECT_TRUE(hit);
  EXPECT_EQ((*served)->value, warm_der);
  // A key not in the cache needs the database: a clear error.
  auto down = nodes_[1]->FetchKey(cold, nullptr);
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.error().code, CKR_DEVICE_ERROR);
  EXPECT_EQ(nodes_[1]->CreateObject({{CKA_CLASS, Ulong(CKO_DATA)}}, nullptr).error().code,
            CKR_DEVICE_ERROR);
  ASSERT_EQ(server_.StartAgain(), "");
  auto back = nodes_[1]->FetchKey(cold, nullptr);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ((*back)->value, cold_der);
  EXPECT_TRUE(nodes_[1]->CreateObject({{CKA_CLASS, Ulong(CKO_DATA)}}, nullptr).ok());
}

TEST_F(PostgresTokenTest, PoolEntriesAreHandedOutOnceAcrossNodes) {
  LoginAll();
  constexpr int kEntries = 40;
  for (int i = 0; i < kEntries; ++i) {
    auto key = crypto::PrivateKey::Generate({crypto::KeyType::kEcP256});
    ASSERT_TRUE(key.ok());
    ASSERT_TRUE(nodes_[0]
                    ->StorePoolKey("ec:p256", *key->ToPkcs8Der(),
                                   {{CKA_LABEL, Text("entry " + std::to_string(i))}})
                    .ok());
  }
  EXPECT_EQ(nodes_[2]->PoolCounts()->at("ec:p256"), std::size_t{kEntries});
  std::mutex mu;
  std::set<SecureBytes> handed_out;
  std::atomic<int> duplicates{0}, errors{0}, takes{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 16; ++c) {
    clients.emplace_back([&, node = nodes_[c % 3].get(), take = c % 2 == 0] {
      for (;;) {
        SecureBytes der;
        if (take) {
          auto taken = node->TakePoolKey(
              "ec:p256",
              [](const AttributeMap& pub) {
                AttributeMap priv = pub;
                priv[CKA_CLASS] = Ulong(CKO_PRIVATE_KEY);
                AttributeMap pub_object = pub;
                pub_object[CKA_CLASS] = Ulong(CKO_PUBLIC_KEY);
                return Result<std::pair<AttributeMap, AttributeMap>>(
                    std::make_pair(priv, pub_object));
              },
              nullptr);
          if (!taken.ok()) {
            errors++;
            return;
          }
          if (!*taken) return;
          auto key = node->FetchKey((*taken)->private_handle, nullptr);
          if (!key.ok()) {
            errors++;
            return;
          }
          der = (*key)->value;
          takes++;
        } else {
          auto claimed = node->ClaimPoolKey("ec:p256");
          if (!claimed.ok()) {
            errors++;
            return;
          }
          if (!*claimed) return;
          der = (*claimed)->private_der;
        }
        std::lock_guard<std::mutex> lock(mu);
        if (!handed_out.insert(der).second) duplicates++;
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(duplicates.load(), 0);
  EXPECT_EQ(handed_out.size(), std::size_t{kEntries});
  EXPECT_EQ(nodes_[1]->PoolCounts()->count("ec:p256"), 0u);
  // Taken entries became key objects every node sees.
  auto privates = nodes_[1]->FindObjects({{CKA_CLASS, Ulong(CKO_PRIVATE_KEY)}});
  ASSERT_TRUE(privates.ok());
  EXPECT_EQ(privates->size(), static_cast<std::size_t>(takes.load()));
}

TEST(PostgresKeystoreTest, NodesShareTokensLabelsAndSlotIds) {
  if (!PostgresInstalled()) GTEST_SKIP() << "PostgreSQL is not installed (scripts/deps.sh)";
  PostgresServer server;
  ASSERT_EQ(server.Start(), "");
  // Two nodes start at once on an empty database.
  std::vector<std::unique_ptr<keystore::Keystore>> nodes(2);
  std::vector<std::thread> starting;
  for (auto& node : nodes) {
    starting.emplace_back([&] {
      auto opened = keystore::OpenPostgresKeystore(server.uri());
      if (opened.ok()) node = std::move(*opened);
    });
  }
  for (auto& t : starting) t.join();
  ASSERT_NE(nodes[0], nullptr);
  ASSERT_NE(nodes[1], nullptr);
  EXPECT_NE(nodes[0]->Describe().find("PostgreSQL keystore, database postgres on 127.0.0.1:"),
            std::string::npos)
      << nodes[0]->Describe();

  // Neither node knows the other's tokens, yet ids and labels stay unique.
  auto a = nodes[0]->CreateToken("alpha", AsBytes(kSoPin), AsBytes(kUserPin), Options(), {});
  ASSERT_TRUE(a.ok()) << a.error().message;
  auto b = nodes[1]->CreateToken("beta", AsBytes(kSoPin), {}, Options(), {});
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(a->second->Info().slot_id, CK_SLOT_ID{0});
  EXPECT_EQ(b->second->Info().slot_id, CK_SLOT_ID{1});
  auto clash = nodes[1]->CreateToken("alpha", AsBytes(kSoPin), {}, Options(), {});
  ASSERT_FALSE(clash.ok());
  EXPECT_EQ(clash.error().code, CKR_ARGUMENTS_BAD);
  EXPECT_EQ(*nodes[0]->ReadNextSlotId(), 2u);
  ASSERT_TRUE(nodes[1]->WriteNextSlotId(1).ok());  // never backwards
  EXPECT_EQ(*nodes[0]->ReadNextSlotId(), 2u);

  for (auto& node : nodes) {
    auto listed = node->ListTokens();
    ASSERT_TRUE(listed.ok());
    EXPECT_EQ(*listed, (std::vector<std::string>{a->first, b->first}));
    auto opened = node->OpenToken(b->first, Options());
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    EXPECT_EQ((*opened)->Info().label, "beta");
  }
  EXPECT_EQ(nodes[0]->OpenToken("0000000000000000", Options()).error().code, CKR_TOKEN_NOT_PRESENT);
}

TEST(PostgresKeystoreTest, ACopiedTokenIsStoredWholeOrNotAtAll) {
  if (!PostgresInstalled()) GTEST_SKIP() << "PostgreSQL is not installed (scripts/deps.sh)";
  PostgresServer server;
  ASSERT_EQ(server.Start(), "");
  auto store = keystore::OpenPostgresKeystore(server.uri());
  ASSERT_TRUE(store.ok()) << store.error().message;
  auto alpha = (*store)->CreateToken("alpha", AsBytes(kSoPin), AsBytes(kUserPin), Options(), {});
  ASSERT_TRUE(alpha.ok()) << alpha.error().message;
  ASSERT_TRUE(alpha->second->Login(UserType::kUser, AsBytes(kUserPin)).ok());
  const SecureBytes first(32, 0x11), second(32, 0x22);
  for (const SecureBytes* secret : {&first, &second}) {
    ASSERT_TRUE(
        alpha->second
            ->CreateObject({{CKA_CLASS, Ulong(CKO_SECRET_KEY)}, {CKA_KEY_TYPE, Ulong(CKK_AES)}},
                           secret)
            .ok());
  }

  // Read back as a copy of its own under another label and serial.
  auto copy = keystore::ReadUnlockedToken(**store, "alpha", UserType::kUser, AsBytes(kUserPin));
  ASSERT_TRUE(copy.ok()) << copy.error().message;
  ASSERT_EQ(copy->records.objects.size(), 2u);
  copy->records.label = "beta";
  copy->records.serial = "00000000000000be";
  // The second secret does not unwrap: the first was already stored in
  // the transaction, which rolls back whole.
  Bytes& wrapped = *copy->records.objects.back().wrapped_value;
  wrapped.back() ^= 1;
  auto failed = keystore::WriteUnlockedToken(**store, *copy);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, CKR_WRAPPED_KEY_INVALID);
  EXPECT_EQ((*store)->ListTokens()->size(), 1u);

  wrapped.back() ^= 1;
  auto copied = keystore::WriteUnlockedToken(**store, *copy);
  ASSERT_TRUE(copied.ok()) << copied.error().message;
  EXPECT_EQ(copied->location, "00000000000000be");
  EXPECT_EQ(copied->secrets, 2u);
  auto beta = (*store)->OpenToken(copied->location, Options());
  ASSERT_TRUE(beta.ok()) << beta.error().message;
  EXPECT_EQ((*beta)->Info().label, "beta");
  EXPECT_EQ((*beta)->Info().slot_id, CK_SLOT_ID{1});  // alpha has 0
  EXPECT_EQ(*(*store)->ReadNextSlotId(), 2u);
  ASSERT_TRUE((*beta)->Login(UserType::kSo, AsBytes(kSoPin)).ok());
  auto objects = (*beta)->ListObjects();
  ASSERT_TRUE(objects.ok());
  ASSERT_EQ(objects->size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_NE((*objects)[i].handle, copy->records.objects[i].handle);
    auto key = (*beta)->FetchKey((*objects)[i].handle, nullptr);
    ASSERT_TRUE(key.ok()) << key.error().message;
    EXPECT_EQ((*key)->value, i == 0 ? first : second);
  }
  // Its serial is now taken.
  copy->records.label = "gamma";
  EXPECT_EQ(keystore::WriteUnlockedToken(**store, *copy).error().code, CKR_ARGUMENTS_BAD);
}

}  // namespace
}  // namespace signet::e2e
