// Issue 10 defects 8 and 13 at the keystore: CreateObjects / DestroyObjects
// change several objects in one transaction (all or none), and
// "create unless a key with this label exists" is one atomic step, also
// across two connections to one file (two processes).
#include <cstring>
#include <thread>

#include "keystore/attribute_codec.h"
#include "keystore/keystore_test_util.h"

namespace signet::keystore {
namespace {

using testing::FastOptions;
using testing::Pin;
using testing::TempDir;

Bytes Text(const char* text) { return Bytes(text, text + std::strlen(text)); }

AttributeMap KeyAttributes(CK_OBJECT_CLASS cls, const char* label) {
  return {{CKA_CLASS, UlongBytes(cls)}, {CKA_LABEL, Text(label)}};
}

class AtomicObjectsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = dir_.path() / "t.token";
    auto token = Token::Create(file_, "atomic", Pin("so-pin"), Pin("user"), FastOptions());
    ASSERT_TRUE(token.ok()) << token.error().message;
    token_ = std::move(*token);
    ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user")).ok());
  }

  std::size_t Count() {
    auto all = token_->ListObjects();
    EXPECT_TRUE(all.ok());
    return all.ok() ? all->size() : 0;
  }

  // Pair: a secret-bearing "private" half and a public half (CreateObjects
  // wraps whatever secret it is given; the bytes need not be PKCS#8 here).
  std::vector<NewObject> Pair(const char* label) {
    return {{KeyAttributes(CKO_PRIVATE_KEY, label), &secret_},
            {KeyAttributes(CKO_PUBLIC_KEY, label), nullptr}};
  }

  TempDir dir_;
  std::filesystem::path file_;
  std::unique_ptr<Token> token_;
  SecureBytes secret_ = SecureBytes(48, 0x11);
};

TEST_F(AtomicObjectsTest, CreateObjectsStoresEveryObjectInOrder) {
  auto handles = token_->CreateObjects(Pair("kg0"), nullptr);
  ASSERT_TRUE(handles.ok()) << handles.error().message;
  ASSERT_EQ(handles->size(), 2u);
  EXPECT_TRUE((*token_->GetObject((*handles)[0])).has_secret);
  EXPECT_FALSE((*token_->GetObject((*handles)[1])).has_secret);
}

// The second object fails after the first was inserted in the same
// transaction: the first must not be there (today: two transactions).
TEST_F(AtomicObjectsTest, FailureOfTheSecondObjectLeavesNeither) {
  std::vector<NewObject> objects = Pair("kg0");
  objects[1].secret = &secret_;  // a public key holding a secret: refused
  auto handles = token_->CreateObjects(objects, nullptr);
  ASSERT_FALSE(handles.ok());
  EXPECT_EQ(handles.error().code, CKR_TEMPLATE_INCONSISTENT);
  EXPECT_EQ(Count(), 0u);
  token_.reset();
  auto reopened = Token::Open(file_, FastOptions());
  ASSERT_TRUE(reopened.ok());
  EXPECT_TRUE((*reopened)->ListObjects()->empty());
}

TEST_F(AtomicObjectsTest, DestroyObjectsIsAllOrNothing) {
  auto pair = token_->CreateObjects(Pair("kg0"), nullptr);
  ASSERT_TRUE(pair.ok());
  // One missing handle: nothing is deleted.
  Status partial = token_->DestroyObjects({(*pair)[0], 999999});
  ASSERT_FALSE(partial.ok());
  EXPECT_EQ(partial.error().code, CKR_OBJECT_HANDLE_INVALID);
  EXPECT_EQ(Count(), 2u);
  // A handle listed twice is refused too.
  EXPECT_FALSE(token_->DestroyObjects({(*pair)[0], (*pair)[0]}).ok());
  EXPECT_EQ(Count(), 2u);
  ASSERT_TRUE(token_->DestroyObjects(*pair).ok());
  EXPECT_EQ(Count(), 0u);
  EXPECT_EQ(token_->FetchKey((*pair)[0]).error().code, CKR_OBJECT_HANDLE_INVALID);
}

TEST_F(AtomicObjectsTest, UniqueLabelRefusesAnExistingKeyLabel) {
  Bytes label = Text("kg0");
  ASSERT_TRUE(token_->CreateObjects(Pair("kg0"), &label).ok());
  auto again = token_->CreateObjects(Pair("kg0"), &label);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, CKR_ATTRIBUTE_VALUE_INVALID);
  EXPECT_EQ(again.error().message, "a key labelled 'kg0' already exists");
  EXPECT_EQ(Count(), 2u);
  // Only keys count: a data object or certificate may share a key's label.
  Bytes other = Text("cert-and-key");
  ASSERT_TRUE(
      token_->CreateObject({{CKA_CLASS, UlongBytes(CKO_DATA)}, {CKA_LABEL, other}}, nullptr).ok());
  EXPECT_TRUE(token_->CreateObjects(Pair("cert-and-key"), &other).ok());
}

TEST_F(AtomicObjectsTest, UniqueLabelEscapesTheLabelInItsMessage) {
  Bytes label = Text("a\nb");
  ASSERT_TRUE(token_->CreateObjects(Pair("a\nb"), &label).ok());
  auto again = token_->CreateObjects(Pair("a\nb"), &label);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message, "a key labelled 'a\\x0ab' already exists");
}

// Six writers on two connections (as two daemons or a daemon and the CLI
// offline would be) race to create one label: exactly one pair is stored.
TEST_F(AtomicObjectsTest, ConcurrentCreatesWithOneLabelStoreOnePair) {
  auto second = Token::Open(file_, FastOptions());
  ASSERT_TRUE(second.ok()) << second.error().message;
  ASSERT_TRUE((*second)->Login(UserType::kUser, Pin("user")).ok());
  Token* tokens[] = {token_.get(), second->get()};
  Bytes label = Text("raced");
  std::atomic<int> created{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 6; ++i) {
    threads.emplace_back([&, i] {
      auto made = tokens[i % 2]->CreateObjects(Pair("raced"), &label);
      if (made.ok()) {
        created++;
      } else {
        EXPECT_EQ(made.error().code, CKR_ATTRIBUTE_VALUE_INVALID) << made.error().message;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(created.load(), 1);
  EXPECT_EQ(Count(), 2u);
}

TEST_F(AtomicObjectsTest, PoolTakeHonoursUniqueLabel) {
  ASSERT_TRUE(token_->StorePoolKey("p", secret_, {}).ok());
  Bytes label = Text("pooled");
  ASSERT_TRUE(token_->CreateObjects(Pair("pooled"), &label).ok());
  auto build = [](const AttributeMap&) -> Result<std::pair<AttributeMap, AttributeMap>> {
    return std::make_pair(KeyAttributes(CKO_PRIVATE_KEY, "pooled"),
                          KeyAttributes(CKO_PUBLIC_KEY, "pooled"));
  };
  auto taken = token_->TakePoolKey("p", build, &label);
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.error().code, CKR_ATTRIBUTE_VALUE_INVALID);
  EXPECT_EQ((*token_->PoolCounts())["p"], 1u);  // the entry stays
  EXPECT_EQ(Count(), 2u);
}

}  // namespace
}  // namespace signet::keystore
