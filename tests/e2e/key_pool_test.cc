// The key pool through a real signetd and the client library: the pool
// survives a restart, 8 concurrent clients each get a different pooled key
// (every entry handed out once), a non-pooled size is generated fresh, and
// no two handed-out RSA keys share a modulus or a prime (pairwise gcd = 1,
// computed with OpenSSL's BN_gcd).
#include <gtest/gtest.h>
#include <openssl/bn.h>

#include <chrono>
#include <set>
#include <thread>

#include "key_helpers.h"

namespace signet::e2e {
namespace {

// Small: the pool generates at idle priority, so under a loaded test run
// every key it makes waits for spare CPU.
constexpr const char* kPool = "rsa:1024=8,rsa:2048=2";
constexpr int kClients = 8;

class KeyPoolE2eTest : public DaemonTest {
 protected:
  void StartWithPool() { StartDaemon({"--pool", kPool, "--pool-threads", "2"}); }
  void Restart() {
    ASSERT_EQ(daemon_.Terminate(), 0) << daemon_.log();
    StartWithPool();
  }

  client::PoolStat PoolOf(const std::string& name) {
    auto stats = Connect()->GetStats();
    EXPECT_TRUE(stats.ok());
    if (stats.ok()) {
      for (const auto& pool : stats->pools) {
        if (pool.name == name) return pool;
      }
    }
    ADD_FAILURE() << "no pool " << name;
    return {};
  }

  // WaitFull: the daemon fills in the background and the protocol has no
  // event for "full", so this polls GetStats until every pool is at target.
  void WaitFull() {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    auto client = Connect();
    for (;;) {
      auto stats = client->GetStats();
      ASSERT_TRUE(stats.ok());
      ASSERT_FALSE(stats->pools.empty());
      bool full = true;
      for (const auto& pool : stats->pools) full = full && pool.size >= pool.target;
      if (full) return;
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "pool did not fill";
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
};

Result<client::Bytes> Modulus(UserSession& user, client::Handle public_key) {
  constexpr CK_ATTRIBUTE_TYPE kTypes[] = {CKA_MODULUS};
  SIGNET_ASSIGN_OR_RETURN(auto values,
                          user.client->GetAttributeValue(user.session, public_key, kTypes));
  if (values.size() != 1 || values[0].rv != CKR_OK)
    return MakeError(CKR_DEVICE_ERROR, "no modulus");
  return values[0].value;
}

// ExpectPairwiseCoprime: no two moduli share a prime factor.
void ExpectPairwiseCoprime(const std::vector<client::Bytes>& moduli) {
  BN_CTX* ctx = BN_CTX_new();
  BIGNUM* gcd = BN_new();
  std::vector<BIGNUM*> numbers;
  for (const auto& m : moduli)
    numbers.push_back(BN_bin2bn(m.data(), static_cast<int>(m.size()), nullptr));
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    for (std::size_t j = i + 1; j < numbers.size(); ++j) {
      ASSERT_EQ(BN_gcd(gcd, numbers[i], numbers[j], ctx), 1);
      EXPECT_TRUE(BN_is_one(gcd)) << "moduli " << i << " and " << j << " share a factor";
    }
  }
  for (BIGNUM* n : numbers) BN_free(n);
  BN_free(gcd);
  BN_CTX_free(ctx);
}

TEST_F(KeyPoolE2eTest, PoolSurvivesRestartAndHandsEachKeyOutOnce) {
  Restart();  // the fixture started without a pool
  {
    auto owner = OpenUserSession();  // a login lets the pool fill
    ASSERT_TRUE(owner.ok()) << owner.error().message;
    WaitFull();
    // Pool entries are not objects.
    auto all = owner->client->FindObjects(owner->session, {});
    ASSERT_TRUE(all.ok());
    EXPECT_TRUE(all->empty());
  }
  Restart();
  // Before any login: what the previous run stored is there, nothing new.
  client::PoolStat small = PoolOf("rsa:1024");
  EXPECT_EQ(small.size, 8u);
  EXPECT_EQ(small.generated, 0u);
  EXPECT_EQ(PoolOf("rsa:2048").size, 2u);

  // 8 clients at once, one pooled key each.
  std::vector<client::Bytes> moduli(kClients);
  std::vector<std::string> failures(kClients);
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([this, i, &moduli, &failures] {
      auto user = OpenUserSession();
      if (!user.ok()) return void(failures[i] = user.error().message);
      auto pair = GenerateKeyPair(*user, "rsa:1024", "c" + std::to_string(i), true);
      if (!pair.ok()) return void(failures[i] = pair.error().message);
      auto modulus = Modulus(*user, pair->public_key);
      if (!modulus.ok()) return void(failures[i] = modulus.error().message);
      moduli[i] = *modulus;
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& failure : failures) EXPECT_EQ(failure, "");
  EXPECT_EQ(std::set<client::Bytes>(moduli.begin(), moduli.end()).size(), moduli.size());
  small = PoolOf("rsa:1024");
  EXPECT_EQ(small.taken, static_cast<std::uint64_t>(kClients));
  EXPECT_EQ(small.misses, 0u);

  // RSA-2048 from the pool; a pooled key signs and verifies.
  auto user = OpenUserSession();
  ASSERT_TRUE(user.ok());
  for (int i = 0; i < 2; ++i) {
    auto pair = GenerateKeyPair(*user, "rsa:2048", "big" + std::to_string(i), true);
    ASSERT_TRUE(pair.ok()) << pair.error().message;
    auto modulus = Modulus(*user, pair->public_key);
    ASSERT_TRUE(modulus.ok());
    moduli.push_back(*modulus);
    if (i > 0) continue;
    client::Bytes message = ToBytes("pooled key signature");
    auto signature = user->client->Sign(user->session, pair->private_key,
                                        client::Mechanism{CKM_SHA256_RSA_PKCS}, message);
    ASSERT_TRUE(signature.ok()) << signature.error().message;
    auto public_key = ReadPublicKey(*user, pair->public_key);
    ASSERT_TRUE(public_key.ok());
    EXPECT_TRUE(crypto::Verify(*public_key,
                               {crypto::SignScheme::kRsaPkcs1, crypto::DigestAlg::kSha256}, message,
                               *signature)
                    .ok());
  }
  EXPECT_EQ(PoolOf("rsa:2048").taken, 2u);
  EXPECT_EQ(PoolOf("rsa:2048").misses, 0u);

  // A size the pool does not hold is generated fresh.
  auto fresh = GenerateKeyPair(*user, "rsa:1536", "fresh", true);
  ASSERT_TRUE(fresh.ok()) << fresh.error().message;
  auto fresh_modulus = Modulus(*user, fresh->public_key);
  ASSERT_TRUE(fresh_modulus.ok());
  EXPECT_EQ(fresh_modulus->size(), 1536u / 8);
  moduli.push_back(*fresh_modulus);
  EXPECT_EQ(PoolOf("rsa:1024").taken + PoolOf("rsa:2048").taken, kClients + 2u);

  ExpectPairwiseCoprime(moduli);

  // Each take is refilled exactly once: once full again, the pool holds
  // what it held at the restart, and generated == taken.
  WaitFull();
  small = PoolOf("rsa:1024");
  EXPECT_EQ(small.size, 8u);
  EXPECT_EQ(small.generated, small.taken);

  ProgramResult stats = Signet({"stats"});
  EXPECT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_NE(stats.out.find("rsa:1024"), std::string::npos) << stats.out;
}

// Issue 14: with nobody logged in the pool fills from the daemon's start,
// and `signet keygen` from the CLI takes from it, one entry per call.
TEST_F(KeyPoolE2eTest, FillsWithNobodyLoggedInAndCliKeygenTakesFromIt) {
  ASSERT_EQ(daemon_.Terminate(), 0);
  // P-256: cheap to generate, the point is who may fill and take.
  StartDaemon({"--pool", "ec:p256=8", "--pool-threads", "2"});
  WaitFull();  // GetStats needs no login
  EXPECT_EQ(PoolOf("ec:p256").size, 8u);
  for (int i = 0; i < 3; ++i) {
    ProgramResult keygen = Signet({"keygen", "--type", "ec:p256", "--label",
                                   "pooled-" + std::to_string(i), "--pin", kUserPin});
    ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  }
  client::PoolStat pool = PoolOf("ec:p256");
  EXPECT_EQ(pool.taken, 3u);
  EXPECT_EQ(pool.misses, 0u);
  // The taken key is an ordinary token key.
  ProgramResult pubkey = Signet({"pubkey", "--label", "pooled-2"});
  ASSERT_EQ(pubkey.exit_code, 0) << pubkey.err;
}

TEST_F(KeyPoolE2eTest, BadPoolConfigRefusesToStart) {
  ASSERT_EQ(daemon_.Terminate(), 0);
  ProgramResult run = RunProgram({BinaryPath("signetd"), "--data", data_dir(), "--socket",
                                  socket_path(), "--pool", "rsa:2048=lots"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--pool"), std::string::npos) << run.err;
}

TEST_F(KeyPoolE2eTest, StatsSayOffWithoutAPool) {
  auto stats = Connect()->GetStats();
  ASSERT_TRUE(stats.ok());
  EXPECT_TRUE(stats->pools.empty());
  ProgramResult out = Signet({"stats"});
  EXPECT_NE(out.out.find("key pool: off"), std::string::npos) << out.out;
}

}  // namespace
}  // namespace signet::e2e
