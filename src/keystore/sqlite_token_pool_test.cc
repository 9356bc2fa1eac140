// Key pool storage: entries survive a reopen, stay invisible to object
// queries, are handed out exactly once (also by concurrent takers), and a
// taken entry becomes a working key pair with the caller's attributes.
#include <sqlite3.h>

#include <set>
#include <thread>

#include "crypto/sign.h"
#include "keystore/attribute_codec.h"
#include "keystore/keystore_test_util.h"

namespace signet::keystore {
namespace {

using testing::FastOptions;
using testing::Pin;
using testing::TempDir;

constexpr const char* kPool = "ec:p256";
constexpr CK_ATTRIBUTE_TYPE kSpki = CKA_VENDOR_DEFINED | 0x5050;  // test-only marker

class PoolStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = dir_.path() / "t.token";
    auto token = Token::Create(file_, "pool", Pin("so-pin"), Pin("user-pin"), FastOptions());
    ASSERT_TRUE(token.ok()) << token.error().message;
    token_ = std::move(*token);
    ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  }

  // AddKeys stores `n` fresh P-256 keys; their SPKI is the public attribute.
  void AddKeys(int n) {
    for (int i = 0; i < n; ++i) {
      auto key = crypto::PrivateKey::Generate({crypto::KeyType::kEcP256});
      ASSERT_TRUE(key.ok());
      auto der = key->ToPkcs8Der();
      auto spki = key->Public()->ToDer();
      ASSERT_TRUE(der.ok() && spki.ok());
      ASSERT_TRUE(token_->StorePoolKey(kPool, *der, {{kSpki, *spki}}).ok());
    }
  }

  std::size_t Count() {
    auto counts = token_->PoolCounts();
    EXPECT_TRUE(counts.ok());
    return counts.ok() && counts->contains(kPool) ? counts->at(kPool) : 0;
  }

  TempDir dir_;
  std::filesystem::path file_;
  std::unique_ptr<Token> token_;
};

// Builder: the caller's attributes plus the entry's public attributes.
PoolObjectsBuilder Builder(const std::string& label) {
  return [label](const AttributeMap& pool_public) -> Result<std::pair<AttributeMap, AttributeMap>> {
    AttributeMap priv{{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)},
                      {CKA_LABEL, Bytes(label.begin(), label.end())}};
    AttributeMap pub{{CKA_CLASS, UlongBytes(CKO_PUBLIC_KEY)},
                     {CKA_LABEL, Bytes(label.begin(), label.end())}};
    for (const auto& [type, value] : pool_public) pub[type] = value;
    return std::make_pair(priv, pub);
  };
}

TEST_F(PoolStoreTest, EntriesSurviveReopenAndStayInvisible) {
  AddKeys(3);
  EXPECT_EQ(Count(), 3u);
  token_.reset();
  auto reopened = Token::Open(file_, FastOptions());
  ASSERT_TRUE(reopened.ok());
  token_ = std::move(*reopened);
  EXPECT_EQ(Count(), 3u);
  EXPECT_TRUE(token_->ListObjects()->empty());
  EXPECT_TRUE(token_->FindObjects({})->empty());
  EXPECT_TRUE(token_->FindObjects({{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)}})->empty());
  // After the restart the KEK must come back with a login before a take.
  auto locked = token_->TakePoolKey(kPool, Builder("x"), nullptr);
  ASSERT_FALSE(locked.ok());
  EXPECT_EQ(locked.error().code, CKR_USER_NOT_LOGGED_IN);
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  auto taken = token_->TakePoolKey(kPool, Builder("x"), nullptr);
  ASSERT_TRUE(taken.ok()) << taken.error().message;
  ASSERT_TRUE(taken->has_value());
  EXPECT_EQ(Count(), 2u);
}

TEST_F(PoolStoreTest, TakenEntryBecomesAWorkingKeyPair) {
  AddKeys(1);
  auto taken = token_->TakePoolKey(kPool, Builder("mine"), nullptr);
  ASSERT_TRUE(taken.ok() && taken->has_value());
  const PoolTake& take = **taken;
  auto objects = token_->ListObjects();
  ASSERT_EQ(objects->size(), 2u);
  auto priv = token_->GetObject(take.private_handle);
  ASSERT_TRUE(priv.ok());
  EXPECT_TRUE(priv->has_secret);
  EXPECT_EQ(priv->attributes.at(CKA_LABEL), Bytes({'m', 'i', 'n', 'e'}));
  // The private key signs; the public key stored from the entry verifies.
  auto key = token_->FetchKey(take.private_handle);
  ASSERT_TRUE(key.ok()) << key.error().message;
  auto pub = crypto::PublicKey::FromDer(take.public_attributes.at(kSpki));
  ASSERT_TRUE(pub.ok());
  Bytes message = {1, 2, 3};
  crypto::SignParams params{.scheme = crypto::SignScheme::kEcdsa};
  auto sig = crypto::Sign(*(*key)->private_key, params, message);
  ASSERT_TRUE(sig.ok());
  EXPECT_TRUE(crypto::Verify(*pub, params, message, *sig).ok());
  // Empty now: a take is nullopt, not an error.
  auto empty = token_->TakePoolKey(kPool, Builder("again"), nullptr);
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->has_value());
}

TEST_F(PoolStoreTest, BuilderErrorLeavesTheEntry) {
  AddKeys(1);
  auto failed = token_->TakePoolKey(
      kPool, [](const AttributeMap&) -> Result<std::pair<AttributeMap, AttributeMap>> {
        return MakeError(CKR_TEMPLATE_INCONSISTENT, "no");
      },
      nullptr);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, CKR_TEMPLATE_INCONSISTENT);
  EXPECT_EQ(Count(), 1u);
  EXPECT_TRUE(token_->ListObjects()->empty());
}

// Issue 14: the pool fills with nobody logged in, also after a restart;
// a take still needs the login.
TEST_F(PoolStoreTest, FillsWithoutALogin) {
  token_->Logout();
  EXPECT_TRUE(token_->CanFillPool());
  AddKeys(2);
  token_.reset();
  token_ = std::move(*Token::Open(file_, FastOptions()));
  AddKeys(1);
  EXPECT_EQ(Count(), 3u);
  auto locked = token_->TakePoolKey(kPool, Builder("x"), nullptr);
  ASSERT_FALSE(locked.ok());
  EXPECT_EQ(locked.error().code, CKR_USER_NOT_LOGGED_IN);
}

// A token made before sealed pools has no pool key: it cannot fill until
// its first login makes one.
TEST_F(PoolStoreTest, AnOlderTokenGetsItsPoolKeyAtItsFirstLogin) {
  token_.reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DELETE FROM pool_seal_key", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  token_ = std::move(*Token::Open(file_, FastOptions()));
  EXPECT_FALSE(token_->CanFillPool());
  SecureBytes der(16, 1);
  Status stored = token_->StorePoolKey(kPool, der, {});
  ASSERT_FALSE(stored.ok());
  EXPECT_EQ(stored.error().code, CKR_USER_NOT_LOGGED_IN);
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  EXPECT_TRUE(token_->CanFillPool());
  AddKeys(1);
  auto taken = token_->TakePoolKey(kPool, Builder("x"), nullptr);
  ASSERT_TRUE(taken.ok()) << taken.error().message;
  EXPECT_TRUE(taken->has_value());
}

// Re-initialisation empties the pool and makes a pool key under the new KEK.
TEST_F(PoolStoreTest, ReinitialisationMakesANewPoolKey) {
  AddKeys(1);
  ASSERT_TRUE(token_->Reinitialize(Pin("so-pin"), "again").ok());
  EXPECT_EQ(Count(), 0u);
  EXPECT_TRUE(token_->CanFillPool());
  AddKeys(1);
  ASSERT_TRUE(token_->Login(UserType::kSo, Pin("so-pin")).ok());
  ASSERT_TRUE(token_->InitUserPin(Pin("user-pin")).ok());
  token_->Logout();
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  auto taken = token_->TakePoolKey(kPool, Builder("x"), nullptr);
  ASSERT_TRUE(taken.ok()) << taken.error().message;
  EXPECT_TRUE(taken->has_value());
}

// An entry's sealed blob is bound to its entry id: one moved to another
// entry does not open there. It is dropped (not handed out, not left to
// block the pool), and the take gets the next entry.
TEST_F(PoolStoreTest, AnEntryThatDoesNotOpenIsDroppedAndTheNextOneTaken) {
  AddKeys(2);
  token_.reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "UPDATE key_pool SET wrapped_value = (SELECT wrapped_value FROM "
                         "key_pool ORDER BY id DESC LIMIT 1) WHERE id = (SELECT MIN(id) FROM "
                         "key_pool)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  token_ = std::move(*Token::Open(file_, FastOptions()));
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  auto taken = token_->TakePoolKey(kPool, Builder("x"), nullptr);
  ASSERT_TRUE(taken.ok()) << taken.error().message;
  EXPECT_TRUE(taken->has_value());
  EXPECT_EQ(Count(), 0u);                        // the moved blob's entry dropped, the other taken
  EXPECT_EQ(token_->ListObjects()->size(), 2u);  // one pair, not two
}

TEST_F(PoolStoreTest, ConcurrentTakersGetEachEntryOnce) {
  constexpr int kEntries = 40;
  AddKeys(kEntries);
  std::mutex mu;
  std::vector<Bytes> seen;
  int claims = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      for (;;) {
        // Half the threads move entries into objects, half claim them raw.
        Bytes spki;
        if (t % 2 == 0) {
          auto taken = token_->TakePoolKey(kPool, Builder("t"), nullptr);
          ASSERT_TRUE(taken.ok()) << taken.error().message;
          if (!taken->has_value()) return;
          spki = (*taken)->public_attributes.at(kSpki);
        } else {
          auto claimed = token_->ClaimPoolKey(kPool);
          ASSERT_TRUE(claimed.ok()) << claimed.error().message;
          if (!claimed->has_value()) return;
          spki = (*claimed)->public_attributes.at(kSpki);
          std::lock_guard lock(mu);
          ++claims;
        }
        std::lock_guard lock(mu);
        seen.push_back(std::move(spki));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kEntries));
  EXPECT_EQ(std::set<Bytes>(seen.begin(), seen.end()).size(), seen.size());
  EXPECT_EQ(Count(), 0u);
  EXPECT_EQ(token_->ListObjects()->size(), 2u * (kEntries - claims));
}

TEST_F(PoolStoreTest, PoolBlobDoesNotUnwrapAsAnObject) {
  AddKeys(1);
  AttributeMap attributes{{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)}};
  SecureBytes placeholder(32, 7);
  auto handle = token_->CreateObject(attributes, &placeholder);
  ASSERT_TRUE(handle.ok());
  token_.reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "UPDATE objects SET wrapped_value = "
                         "(SELECT wrapped_value FROM key_pool LIMIT 1)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  token_ = std::move(*Token::Open(file_, FastOptions()));
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  auto fetched = token_->FetchKey(*handle);
  ASSERT_FALSE(fetched.ok());
  EXPECT_EQ(fetched.error().code, CKR_WRAPPED_KEY_INVALID);
}

}  // namespace
}  // namespace signet::keystore
