// Issue 10 defects 8 and 13 at the Hsm: a token key pair is generated,
// imported and destroyed in one keystore transaction, and "create unless a
// key with this label exists" is one atomic step.
//
// A crash between two transactions is simulated with an SQLite commit hook
// (installed on every connection of this process by sqlite3_auto_extension)
// that lets the first N commits through and vetoes every later one: what a
// process killed after its Nth commit leaves on disk. A key pair stored in
// two transactions then leaves one half.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <thread>

#include "core/hsm_fixture_test_util.h"
#include "crypto/keys.h"
#include "keystore/data_dir.h"

namespace signet::core {
namespace {


// Commits allowed before the hook vetoes; negative: no limit.
std::atomic<int> g_commits_left{-1};

int VetoCommits(void*) {
  int left = g_commits_left.load();
  while (left >= 0) {
    if (left == 0) return 1;  // non-zero: SQLite turns the COMMIT into a rollback
    if (g_commits_left.compare_exchange_weak(left, left - 1)) return 0;
  }
  return 0;
}

int InstallCommitHook(sqlite3* db, const char**, const sqlite3_api_routines*) {
  sqlite3_commit_hook(db, VetoCommits, nullptr);
  return SQLITE_OK;
}

// CrashAfterCommits: while alive, every commit after the first `n` fails.
class CrashAfterCommits {
 public:
  explicit CrashAfterCommits(int n) { g_commits_left = n; }
  ~CrashAfterCommits() { g_commits_left = -1; }
};

Template P256Public(const std::string& label) {
  return {{CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)},
          {CKA_TOKEN, BoolBytes(true)},
          {CKA_LABEL, Bytes(label.begin(), label.end())}};
}
Template P256Private(const std::string& label) {
  return {{CKA_TOKEN, BoolBytes(true)}, {CKA_LABEL, Bytes(label.begin(), label.end())}};
}

// HsmAtomicTest: the owner's R/W session on token 0, logged in as the user.
class HsmAtomicTest : public HsmFixture {
 protected:
  static void SetUpTestSuite() {
    sqlite3_auto_extension(reinterpret_cast<void (*)()>(InstallCommitHook));
  }

  void SetUp() override {
    HsmFixture::SetUp();
    client_ = owner_;
    file_ = keystore::TokenFilePath(dir_ / "data", serial_);
    session_ = LoggedIn(*client_);
  }
  void TearDown() override {
    client_.reset();
    HsmFixture::TearDown();
  }

  // OnDisk counts the objects in the token file, read by a new connection
  // (what a restarted daemon would find).
  std::size_t OnDisk() {
    auto token = keystore::Token::Open(file_, keystore::TokenOptions{});
    EXPECT_TRUE(token.ok()) << token.error().message;
    if (!token.ok()) return 0;
    auto all = (*token)->ListObjects();
    return all.ok() ? all->size() : 0;
  }

  Result<std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE>> Generate(const std::string& label,
                                                                 bool unique = false) {
    return hsm_->GenerateKeyPair(*client_, session_, Mechanism{CKM_EC_KEY_PAIR_GEN, {}, {}},
                                 P256Public(label), P256Private(label), unique);
  }

  // ImportTemplates: a P-256 key as the CLI imports it (PKCS#8 private
  // half, public half from the same key).
  std::vector<Template> ImportTemplates(const std::string& label) {
    auto key = crypto::PrivateKey::Generate({crypto::KeyType::kEcP256});
    EXPECT_TRUE(key.ok());
    auto der = key->ToPkcs8Der();
    auto pub = key->Public();
    auto point = pub->EcPoint();
    EXPECT_TRUE(point.ok());
    Bytes l(label.begin(), label.end());
    Template priv = {{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)},
                     {CKA_TOKEN, BoolBytes(true)},
                     {CKA_LABEL, l},
                     {CKA_VALUE, Bytes(der->begin(), der->end())}};
    Template pub_t = {{CKA_CLASS, UlongBytes(CKO_PUBLIC_KEY)},
                      {CKA_KEY_TYPE, UlongBytes(CKK_EC)},
                      {CKA_TOKEN, BoolBytes(true)},
                      {CKA_LABEL, l},
                      {CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)},
                      {CKA_EC_POINT, *point}};
    return {priv, pub_t};
  }

  std::filesystem::path file_;
  std::shared_ptr<ClientState> client_;
  CK_SESSION_HANDLE session_ = 0;
};

// Fails on the code before the fix: the private half was committed alone,
// the public half's commit never happened, and the token kept half a pair.
TEST_F(HsmAtomicTest, KeyPairGenerationIsOneTransaction) {
  {
    CrashAfterCommits crash(1);
    (void)Generate("kg0");
  }
  std::size_t stored = OnDisk();
  EXPECT_TRUE(stored == 0 || stored == 2) << stored << " object(s): half a key pair";
  {
    CrashAfterCommits crash(0);
    EXPECT_FALSE(Generate("kg1").ok());
  }
  EXPECT_EQ(OnDisk(), stored) << "a refused commit left an object";
}

TEST_F(HsmAtomicTest, ImportOfBothHalvesIsOneTransaction) {
  {
    CrashAfterCommits crash(0);
    auto made = hsm_->CreateObjects(*client_, session_, ImportTemplates("imp"), false);
    EXPECT_FALSE(made.ok());
  }
  EXPECT_EQ(OnDisk(), 0u);
  auto made = hsm_->CreateObjects(*client_, session_, ImportTemplates("imp"), false);
  ASSERT_TRUE(made.ok()) << made.error().message;
  ASSERT_EQ(made->size(), 2u);
  EXPECT_EQ(OnDisk(), 2u);
  Mechanism sign{CKM_ECDSA_SHA256, {}, {}};
  EXPECT_TRUE(hsm_->Sign(*client_, session_, (*made)[0], sign, AsBytes("imported")).ok());
}

TEST_F(HsmAtomicTest, ImportRefusesSessionObjectsAndChecksEveryTemplateFirst) {
  auto templates = ImportTemplates("imp");
  templates[1].push_back({0x0fffffffUL, {1}});  // an unknown attribute: refused
  EXPECT_FALSE(hsm_->CreateObjects(*client_, session_, templates, false).ok());
  EXPECT_EQ(OnDisk(), 0u);
  templates = ImportTemplates("imp");
  templates[1].push_back({CKA_TOKEN, BoolBytes(false)});
  templates[1].erase(templates[1].begin() + 2);  // the earlier CKA_TOKEN true
  auto mixed = hsm_->CreateObjects(*client_, session_, templates, false);
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.error().code, CKR_TEMPLATE_INCONSISTENT);
  EXPECT_EQ(OnDisk(), 0u);
}

TEST_F(HsmAtomicTest, DestroyOfBothHalvesIsOneTransaction) {
  auto pair = Generate("doomed");
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  ASSERT_EQ(OnDisk(), 2u);
  {
    CrashAfterCommits crash(0);
    EXPECT_FALSE(hsm_->DestroyObjects(*client_, session_, {pair->first, pair->second}).ok());
  }
  EXPECT_EQ(OnDisk(), 2u);
  // One bad handle: nothing is destroyed.
  EXPECT_FALSE(hsm_->DestroyObjects(*client_, session_, {pair->first, 12345}).ok());
  EXPECT_EQ(OnDisk(), 2u);
  ASSERT_TRUE(hsm_->DestroyObjects(*client_, session_, {pair->first, pair->second}).ok());
  EXPECT_EQ(OnDisk(), 0u);
  auto found = hsm_->FindObjects(*client_, session_, {}, 0);
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE(found->empty());
}

TEST_F(HsmAtomicTest, UniqueLabelRefusesASecondKeyPair) {
  ASSERT_TRUE(Generate("kg0", true).ok());
  auto again = Generate("kg0", true);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, CKR_ATTRIBUTE_VALUE_INVALID);
  EXPECT_EQ(again.error().message, "a key labelled 'kg0' already exists");
  auto imported = hsm_->CreateObjects(*client_, session_, ImportTemplates("kg0"), true);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.error().code, CKR_ATTRIBUTE_VALUE_INVALID);
  EXPECT_EQ(OnDisk(), 2u);
  // Without the flag PKCS#11 allows duplicates, as before.
  EXPECT_TRUE(Generate("kg0", false).ok());
}

TEST_F(HsmAtomicTest, ConcurrentUniqueGenerationsMakeOnePair) {
  std::vector<std::shared_ptr<ClientState>> clients;
  std::vector<CK_SESSION_HANDLE> sessions;
  for (int i = 0; i < 6; ++i) {
    clients.push_back(hsm_->NewClient());
    sessions.push_back(LoggedIn(*clients.back()));
  }
  std::atomic<int> made{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 6; ++i) {
    threads.emplace_back([&, i] {
      auto pair = hsm_->GenerateKeyPair(*clients[i], sessions[i],
                                        Mechanism{CKM_EC_KEY_PAIR_GEN, {}, {}},
                                        P256Public("x"), P256Private("x"), true);
      if (pair.ok()) made++;
    });
  }
  for (auto& t : threads) t.join();
  for (auto& c : clients) hsm_->Disconnect(*c);
  EXPECT_EQ(made.load(), 1);
  EXPECT_EQ(OnDisk(), 2u);
}

}  // namespace
}  // namespace signet::core
