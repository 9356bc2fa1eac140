// KeyPool through the Hsm (no sockets): configuration parsing, filling only
// while logged in, takes that look exactly like fresh keys, session keys
// from the pool, fallback for other types, and uniqueness of a few hundred
// handed-out keys.
#include "core/key_pool.h"

#include <gtest/gtest.h>

#include <set>

#include "core/hsm_fixture_test_util.h"
#include "core/hsm_internal.h"
#include "crypto/sign.h"

namespace signet::core {
namespace {

using namespace std::chrono_literals;

TEST(PoolConfig, ParsesTargetsAndOff) {
  auto targets = ParsePoolConfig("rsa:2048=32,rsa:4096=8,ec:p256=64,ed25519=4");
  ASSERT_TRUE(targets.ok()) << targets.error().message;
  ASSERT_EQ(targets->size(), 4u);
  EXPECT_EQ((*targets)[0].name, "rsa:2048");
  EXPECT_EQ((*targets)[0].target, 32u);
  EXPECT_EQ((*targets)[1].spec.rsa_bits, 4096);
  EXPECT_EQ((*targets)[2].name, "ec:p256");
  EXPECT_EQ((*targets)[3].name, "ed25519");
  EXPECT_TRUE(ParsePoolConfig("off")->empty());
  EXPECT_TRUE(ParsePoolConfig("")->empty());
}

TEST(PoolConfig, RefusesBadEntries) {
  for (const char* bad :
       {"rsa:2048", "rsa:2048=0", "rsa:2048=x", "rsa:2048=-1", "dsa=3", "rsa:512=4", "rsa:8192=1",
        "ec:p256=1,ec:p256=2", "ec:p256=1,", "ec:p256=1000001"}) {
    auto parsed = ParsePoolConfig(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.error().code, CKR_ARGUMENTS_BAD) << bad;
  }
  // The benchmarks' 80-bit curve never reaches a pool.
  EXPECT_EQ(ParsePoolConfig("ec:secp192r1=2").error().code, CKR_CURVE_NOT_SUPPORTED);
}

// KeyPoolTest: the owner's R/W session on HsmFixture's token 0, not logged
// in; StartPool gives the Hsm a pool.
class KeyPoolTest : public HsmFixture {
 protected:
  void SetUp() override {
    HsmFixture::SetUp();
    client_ = owner_;
    session_ = Session(*client_);
  }
  void TearDown() override {
    if (hsm_) hsm_->StopKeyPool();
    pool_.reset();
    client_.reset();
    HsmFixture::TearDown();
  }

  void StartPool(const char* config) {
    auto targets = ParsePoolConfig(config);
    ASSERT_TRUE(targets.ok());
    hsm_->StartKeyPool(KeyPool::Options{*targets, 2, {}});
    pool_ = hsm_->key_pool();
    ASSERT_NE(pool_, nullptr);
  }
  void Login() { ASSERT_TRUE(hsm_->Login(*client_, session_, CKU_USER, AsBytes(kUserPin)).ok()); }

  PoolTypeStats StatsOf(const std::string& name) {
    for (auto& s : pool_->Stats()) {
      if (s.name == name) return s;
    }
    ADD_FAILURE() << "no pool " << name;
    return {};
  }

  std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE> Generate(crypto::KeyType type, bool token,
                                                         const std::string& label = "k") {
    Mechanism m{
        type == crypto::KeyType::kEd25519 ? CKM_EC_EDWARDS_KEY_PAIR_GEN : CKM_EC_KEY_PAIR_GEN,
        {},
        {}};
    Bytes label_bytes(label.begin(), label.end());
    Template pub = {{CKA_EC_PARAMS, crypto::EcParamsDer(type)},
                    {CKA_TOKEN, BoolBytes(token)},
                    {CKA_LABEL, label_bytes}};
    Template priv = {{CKA_TOKEN, BoolBytes(token)},
                     {CKA_LABEL, label_bytes},
                     {CKA_ID, {1, 2}},
                     {CKA_SIGN, BoolBytes(true)}};
    auto pair = hsm_->GenerateKeyPair(*client_, session_, m, pub, priv);
    EXPECT_TRUE(pair.ok()) << pair.error().message;
    return pair.ok() ? *pair : std::make_pair(CK_OBJECT_HANDLE{0}, CK_OBJECT_HANDLE{0});
  }

  // Attributes returns every stored attribute of a token object.
  AttributeMap Attributes(CK_OBJECT_HANDLE handle) {
    auto& impl = static_cast<HsmImpl&>(*hsm_);
    auto r = impl.ResolveSession(*client_, session_);
    auto obj = impl.ResolveObject(*client_, *r, handle);
    EXPECT_TRUE(obj.ok());
    return obj.ok() ? obj->record->attributes : AttributeMap{};
  }

  Bytes EcPoint(CK_OBJECT_HANDLE pub) { return Attributes(pub).at(CKA_EC_POINT); }

  std::shared_ptr<ClientState> client_;
  CK_SESSION_HANDLE session_ = 0;
  std::shared_ptr<KeyPool> pool_;
};

// Issue 14: the pool fills with nobody logged in (entries are sealed to the
// token's pool key); a take then needs the login.
TEST_F(KeyPoolTest, FillsWithNobodyLoggedIn) {
  StartPool("ec:p256=8");
  ASSERT_TRUE(pool_->WaitUntilFull(20s));
  EXPECT_EQ(StatsOf("ec:p256").size, 8u);
  EXPECT_EQ(StatsOf("ec:p256").generated, 8u);
  Login();
  // Pool entries are not objects: nothing to find.
  auto found = hsm_->FindObjects(*client_, session_, {}, 100);
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE(found->empty());
}

TEST_F(KeyPoolTest, PooledKeyLooksLikeAFreshOne) {
  Login();
  auto fresh = Generate(crypto::KeyType::kEcP256, true, "same");
  StartPool("ec:p256=2");
  ASSERT_TRUE(pool_->WaitUntilFull(20s));
  auto pooled = Generate(crypto::KeyType::kEcP256, true, "same");
  EXPECT_EQ(StatsOf("ec:p256").taken, 1u);
  for (auto [a, b] :
       {std::make_pair(fresh.first, pooled.first), std::make_pair(fresh.second, pooled.second)}) {
    AttributeMap fa = Attributes(a);
    AttributeMap pa = Attributes(b);
    EXPECT_NE(fa.at(CKA_EC_POINT), pa.at(CKA_EC_POINT));
    fa.erase(CKA_EC_POINT);
    pa.erase(CKA_EC_POINT);
    EXPECT_NE(fa.at(CKA_PUBLIC_KEY_INFO), pa.at(CKA_PUBLIC_KEY_INFO));  // holds the point too
    fa.erase(CKA_PUBLIC_KEY_INFO);
    pa.erase(CKA_PUBLIC_KEY_INFO);
    EXPECT_NE(fa.at(CKA_UNIQUE_ID), pa.at(CKA_UNIQUE_ID));  // every object its own name
    fa.erase(CKA_UNIQUE_ID);
    pa.erase(CKA_UNIQUE_ID);
    EXPECT_EQ(fa, pa);  // CKA_LOCAL, KEY_GEN_MECHANISM, ALWAYS_SENSITIVE, label, id, ...
  }
  // The pooled key signs, and its public half verifies.
  auto sig = hsm_->Sign(*client_, session_, pooled.second, Mechanism{CKM_ECDSA_SHA256, {}, {}},
                        AsBytes("message"));
  ASSERT_TRUE(sig.ok()) << sig.error().message;
  EXPECT_TRUE(hsm_->Verify(*client_, session_, pooled.first, Mechanism{CKM_ECDSA_SHA256, {}, {}},
                           AsBytes("message"), *sig)
                  .ok());
}

TEST_F(KeyPoolTest, SessionKeysComeFromThePoolToo) {
  Login();
  StartPool("ed25519=2");
  ASSERT_TRUE(pool_->WaitUntilFull(20s));
  auto pair = Generate(crypto::KeyType::kEd25519, /*token=*/false);
  EXPECT_EQ(StatsOf("ed25519").taken, 1u);
  EXPECT_EQ(BoolOr(Attributes(pair.second), CKA_LOCAL, false), true);
  auto sig =
      hsm_->Sign(*client_, session_, pair.second, Mechanism{CKM_EDDSA, {}, {}}, AsBytes("m"));
  ASSERT_TRUE(sig.ok()) << sig.error().message;
  EXPECT_TRUE(
      hsm_->Verify(*client_, session_, pair.first, Mechanism{CKM_EDDSA, {}, {}}, AsBytes("m"), *sig)
          .ok());
}

TEST_F(KeyPoolTest, OtherTypesAndAnEmptyPoolGenerateFresh) {
  StartPool("ec:p256=1");
  Login();
  ASSERT_TRUE(pool_->WaitUntilFull(20s));
  Generate(crypto::KeyType::kEcP384, true);  // not pooled
  EXPECT_EQ(StatsOf("ec:p256").taken, 0u);
  EXPECT_EQ(StatsOf("ec:p256").misses, 0u);
  pool_->Stop();  // no refill from here on
  Generate(crypto::KeyType::kEcP256, true);
  Generate(crypto::KeyType::kEcP256, true);  // pool empty now: fresh
  EXPECT_EQ(StatsOf("ec:p256").taken, 1u);
  EXPECT_EQ(StatsOf("ec:p256").misses, 1u);
}

// The Hsm owns its pool: StopKeyPool turns it off (GenerateKeyPair makes
// fresh keys again) and ends its generators; a holder of the old pool can
// still read its stats.
TEST_F(KeyPoolTest, StoppedPoolIsOffAndFreshKeysStillWork) {
  Login();
  StartPool("ec:p256=2");
  ASSERT_TRUE(pool_->WaitUntilFull(20s));
  hsm_->StopKeyPool();
  EXPECT_EQ(hsm_->key_pool(), nullptr);
  auto pair = Generate(crypto::KeyType::kEcP256, true);
  EXPECT_NE(pair.first, 0u);
  EXPECT_EQ(StatsOf("ec:p256").taken, 0u);
  EXPECT_EQ(StatsOf("ec:p256").size, 2u);
}

// Draws across refills: the pool's generator runs at idle priority, so
// under a loaded test run each refill waits for spare CPU; three rounds of
// 20 show distinctness across refills without minutes of waiting.
TEST_F(KeyPoolTest, DrawsAcrossRefillsAreAllDistinct) {
  Login();
  StartPool("ec:p256=20");
  std::set<Bytes> points;
  constexpr int kRounds = 3;
  for (int round = 0; round < kRounds; ++round) {
    ASSERT_TRUE(pool_->WaitUntilFull(30s));
    for (int i = 0; i < 20; ++i) {
      auto pair = Generate(crypto::KeyType::kEcP256, true);
      points.insert(EcPoint(pair.first));
    }
  }
  PoolTypeStats stats = StatsOf("ec:p256");
  EXPECT_EQ(stats.taken, 20u * kRounds);
  EXPECT_EQ(stats.misses, 0u);
  EXPECT_EQ(points.size(), 20u * kRounds);
}

}  // namespace
}  // namespace signet::core
