#include <sqlite3.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>

#include "crypto/sign.h"
#include "keystore/attribute_codec.h"
#include "keystore/keystore_test_util.h"
#include "keystore/pin_records.h"
#include "keystore/schema.h"
#include "keystore/sqlite_db.h"

namespace signet::keystore {
namespace {

using testing::FastOptions;
using testing::Pin;
using testing::TempDir;

class TokenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = dir_.path() / "t.token";
    auto token = Token::Create(file_, "test token", Pin("so-pin"), Pin("user-pin"), options_);
    ASSERT_TRUE(token.ok()) << token.error().message;
    token_ = std::move(*token);
  }

  void Reopen() {
    token_.reset();
    auto token = Token::Open(file_, options_);
    ASSERT_TRUE(token.ok()) << token.error().message;
    token_ = std::move(*token);
  }

  ObjectHandle StoreSecret(std::uint8_t fill, const char* label = "k") {
    AttributeMap attributes{{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                            {CKA_LABEL, Bytes(label, label + std::strlen(label))}};
    SecureBytes secret(32, fill);
    auto handle = token_->CreateObject(attributes, &secret);
    EXPECT_TRUE(handle.ok()) << handle.error().message;
    return handle.ok() ? *handle : 0;
  }

  TempDir dir_;
  std::filesystem::path file_;
  TokenOptions options_ = FastOptions(/*max_failures=*/3, /*cache=*/2);
  std::unique_ptr<Token> token_;
};

// KekOf opens `file`'s KEK with the SO PIN, as an attacker holding a copy
// of the file and that PIN could.
SecureBytes KekOf(const std::filesystem::path& file) {
  auto db = Database::Open(file);
  EXPECT_TRUE(db.ok());
  auto record = LoadPinRecord(**db, UserType::kSo);
  EXPECT_TRUE(record.ok());
  auto kek = OpenKek(*record, Pin("so-pin"));
  EXPECT_TRUE(kek.ok());
  return kek.ok() ? *kek : SecureBytes{};
}

TEST_F(TokenTest, ReinitializeDestroysObjectsRelabelsForgetsUserPinAndRotatesKek) {
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  StoreSecret(7);
  token_->Logout();
  EXPECT_EQ(token_->Reinitialize(Pin("wrong-so"), "renamed").error().code, CKR_PIN_INCORRECT);
  EXPECT_EQ(token_->Info().label, "test token");
  EXPECT_EQ(token_->ListObjects()->size(), 1u);

  token_.reset();  // closing checkpoints the WAL: the copy is the whole token
  const std::filesystem::path old_copy = dir_.path() / "old.token";
  std::filesystem::copy_file(file_, old_copy);
  Reopen();
  ASSERT_TRUE(token_->Reinitialize(Pin("so-pin"), "renamed").ok());
  EXPECT_EQ(token_->Info().label, "renamed");
  EXPECT_TRUE(token_->ListObjects()->empty());
  EXPECT_FALSE(token_->Info().user_pin_initialized);
  EXPECT_EQ(token_->Login(UserType::kUser, Pin("user-pin")).error().code,
            CKR_USER_PIN_NOT_INITIALIZED);
  Reopen();  // all of it is on disk
  EXPECT_EQ(token_->Info().label, "renamed");
  EXPECT_TRUE(token_->ListObjects()->empty());
  token_.reset();
  EXPECT_NE(KekOf(old_copy), KekOf(file_));
}

TEST_F(TokenTest, CreateRecordsLabelSerialAndFreshCounters) {
  TokenInfo info = token_->Info();
  EXPECT_EQ(info.label, "test token");
  EXPECT_EQ(info.serial.size(), 16u);
  EXPECT_EQ(info.serial.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_TRUE(info.user_pin_initialized);
  EXPECT_EQ(info.user_pin_failures, 0);
  EXPECT_FALSE(info.user_pin_locked);
  EXPECT_EQ(info.max_pin_failures, 3);
  EXPECT_EQ(std::filesystem::status(file_).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
}

TEST_F(TokenTest, CreateRefusesExistingFileAndBadArguments) {
  EXPECT_EQ(Token::Create(file_, "x", Pin("so-pin"), Pin("user-pin"), options_).error().code,
            CKR_ARGUMENTS_BAD);
  auto other = dir_.path() / "u.token";
  EXPECT_EQ(Token::Create(other, "", Pin("a"), Pin("b"), options_).error().code, CKR_ARGUMENTS_BAD);
  EXPECT_EQ(Token::Create(other, "x", Pin(""), Pin("b"), options_).error().code, CKR_ARGUMENTS_BAD);
  EXPECT_FALSE(std::filesystem::exists(other));
}

// Regression (issue 12 point 3): the PIN length rules (4-256 bytes) hold
// for every PIN a token stores, whichever program calls (signetd through
// core/, offline `signet init`): Create's SO and user PIN, InitUserPin and
// SetPin. Before, only an empty PIN was refused here.
TEST_F(TokenTest, EveryNewPinMeetsTheLengthRules) {
  const std::string too_short(3, '1');
  const std::string too_long(257, '1');
  for (const std::string& bad : {too_short, too_long}) {
    auto so = Token::Create(dir_.path() / "a.token", "a", AsBytes(bad), Pin("user-pin"), options_);
    ASSERT_FALSE(so.ok());
    EXPECT_EQ(so.error().code, CKR_PIN_LEN_RANGE);
    auto user = Token::Create(dir_.path() / "b.token", "b", Pin("so-pin"), AsBytes(bad), options_);
    ASSERT_FALSE(user.ok());
    EXPECT_EQ(user.error().code, CKR_PIN_LEN_RANGE);
    EXPECT_FALSE(std::filesystem::exists(dir_.path() / "a.token"));
    EXPECT_FALSE(std::filesystem::exists(dir_.path() / "b.token"));
    ASSERT_TRUE(token_->Login(UserType::kSo, Pin("so-pin")).ok());
    EXPECT_EQ(token_->InitUserPin(AsBytes(bad)).error().code, CKR_PIN_LEN_RANGE);
    token_->Logout();
    EXPECT_EQ(token_->SetPin(UserType::kUser, Pin("user-pin"), AsBytes(bad)).error().code,
              CKR_PIN_LEN_RANGE);
  }
  // The old PINs still hold, and the bounds themselves are accepted.
  const std::string shortest(4, '1');
  const std::string longest(256, '1');
  ASSERT_TRUE(token_->SetPin(UserType::kUser, Pin("user-pin"), AsBytes(longest)).ok());
  ASSERT_TRUE(token_->SetPin(UserType::kSo, Pin("so-pin"), AsBytes(shortest)).ok());
  EXPECT_TRUE(Token::Create(dir_.path() / "c.token", "c", AsBytes(shortest), {}, options_).ok());
}

// PKCS#11 C_InitToken gives only an SO PIN: the user PIN stays
// uninitialised until the SO sets it, and then works like any other.
TEST_F(TokenTest, EmptyUserPinAtCreationMeansNotInitialised) {
  auto other = Token::Create(dir_.path() / "so-only.token", "so only", Pin("so-pin"), Pin(""),
                             options_);
  ASSERT_TRUE(other.ok()) << other.error().message;
  EXPECT_FALSE((*other)->Info().user_pin_initialized);
  EXPECT_EQ((*other)->Login(UserType::kUser, Pin("")).error().code, CKR_USER_PIN_NOT_INITIALIZED);
  ASSERT_TRUE((*other)->Login(UserType::kSo, Pin("so-pin")).ok());
  ASSERT_TRUE((*other)->InitUserPin(Pin("new-user")).ok());
  (*other)->Logout();
  EXPECT_TRUE((*other)->Info().user_pin_initialized);
  EXPECT_TRUE((*other)->Login(UserType::kUser, Pin("new-user")).ok());
}

TEST_F(TokenTest, WrongPinIsIncorrectAndCounted) {
  Status status = token_->Login(UserType::kUser, Pin("wrong"));
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, CKR_PIN_INCORRECT);
  EXPECT_EQ(token_->Info().user_pin_failures, 1);
  Reopen();
  EXPECT_EQ(token_->Info().user_pin_failures, 1) << "failure count must persist";
  EXPECT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  EXPECT_EQ(token_->Info().user_pin_failures, 0) << "correct PIN resets the count";
}

TEST_F(TokenTest, LockoutAfterMaxFailuresSurvivesReopen) {
  EXPECT_EQ(token_->Login(UserType::kUser, Pin("bad1")).error().code, CKR_PIN_INCORRECT);
  EXPECT_EQ(token_->Login(UserType::kUser, Pin("bad2")).error().code, CKR_PIN_INCORRECT);
  EXPECT_EQ(token_->Login(UserType::kUser, Pin("bad3")).error().code, CKR_PIN_LOCKED);
  EXPECT_TRUE(token_->Info().user_pin_locked);
  EXPECT_EQ(token_->Login(UserType::kUser, Pin("user-pin")).error().code, CKR_PIN_LOCKED);
  Reopen();
  EXPECT_TRUE(token_->Info().user_pin_locked);
  EXPECT_EQ(token_->Login(UserType::kUser, Pin("user-pin")).error().code, CKR_PIN_LOCKED);
  // The SO PIN has its own counter.
  EXPECT_TRUE(token_->Login(UserType::kSo, Pin("so-pin")).ok());
}

TEST_F(TokenTest, SoInitUserPinUnlocksUser) {
  for (const char* bad : {"1", "2", "3"}) (void)token_->Login(UserType::kUser, Pin(bad));
  ASSERT_TRUE(token_->Info().user_pin_locked);
  EXPECT_EQ(token_->InitUserPin(Pin("new-user")).error().code, CKR_USER_NOT_LOGGED_IN);
  ASSERT_TRUE(token_->Login(UserType::kSo, Pin("so-pin")).ok());
  ASSERT_TRUE(token_->InitUserPin(Pin("new-user")).ok());
  token_->Logout();
  Reopen();
  EXPECT_FALSE(token_->Info().user_pin_locked);
  EXPECT_EQ(token_->Login(UserType::kUser, Pin("user-pin")).error().code, CKR_PIN_INCORRECT);
  EXPECT_TRUE(token_->Login(UserType::kUser, Pin("new-user")).ok());
}

TEST_F(TokenTest, UserLoginCannotInitUserPin) {
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  EXPECT_EQ(token_->InitUserPin(Pin("x")).error().code, CKR_USER_NOT_LOGGED_IN);
}

TEST_F(TokenTest, SetPinKeepsKeysReadable) {
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  ObjectHandle handle = StoreSecret(0x42);
  token_->Logout();
  EXPECT_EQ(token_->SetPin(UserType::kUser, Pin("wrong"), Pin("next")).error().code,
            CKR_PIN_INCORRECT);
  ASSERT_TRUE(token_->SetPin(UserType::kUser, Pin("user-pin"), Pin("next")).ok());
  EXPECT_EQ(token_->SetPin(UserType::kUser, Pin("next"), Pin("")).error().code, CKR_PIN_LEN_RANGE);
  EXPECT_FALSE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("next")).ok());
  auto key = token_->FetchKey(handle);
  ASSERT_TRUE(key.ok()) << key.error().message;
  EXPECT_EQ((*key)->value, SecureBytes(32, 0x42));
  ASSERT_TRUE(token_->SetPin(UserType::kSo, Pin("so-pin"), Pin("so-next")).ok());
  EXPECT_TRUE(token_->Login(UserType::kSo, Pin("so-next")).ok());
}

TEST_F(TokenTest, StoringOrFetchingKeysRequiresLogin) {
  SecureBytes secret(16, 1);
  AttributeMap secret_key{{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)}};
  EXPECT_EQ(token_->CreateObject(secret_key, &secret).error().code, CKR_USER_NOT_LOGGED_IN);
  // Public objects need no KEK.
  AttributeMap data{{CKA_CLASS, UlongBytes(CKO_DATA)}, {CKA_VALUE, Bytes{1, 2}}};
  auto handle = token_->CreateObject(data, nullptr);
  ASSERT_TRUE(handle.ok());
  EXPECT_EQ(token_->FetchKey(*handle).error().code, CKR_USER_NOT_LOGGED_IN);
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  EXPECT_EQ(token_->FetchKey(*handle).error().code, CKR_KEY_HANDLE_INVALID);
  EXPECT_EQ(token_->FetchKey(9999).error().code, CKR_OBJECT_HANDLE_INVALID);
}

TEST_F(TokenTest, KeyMaterialNeverAcceptedAsClearAttribute) {
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  AttributeMap leaky{{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)}, {CKA_VALUE, Bytes(32, 9)}};
  EXPECT_EQ(token_->CreateObject(leaky, nullptr).error().code, CKR_TEMPLATE_INCONSISTENT);
  ObjectHandle handle = StoreSecret(1);
  EXPECT_EQ(token_->UpdateAttributes(handle, {{CKA_PRIME_1, Bytes{7}}}).error().code,
            CKR_TEMPLATE_INCONSISTENT);
  SecureBytes secret(8, 1);
  AttributeMap certificate{{CKA_CLASS, UlongBytes(CKO_CERTIFICATE)}};
  EXPECT_EQ(token_->CreateObject(certificate, &secret).error().code, CKR_TEMPLATE_INCONSISTENT);
}

TEST_F(TokenTest, ObjectsPersistAndHandlesAreNeverReused) {
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  ObjectHandle a = StoreSecret(1, "a");
  ObjectHandle b = StoreSecret(2, "b");
  ASSERT_TRUE(token_->DestroyObject(b).ok());
  EXPECT_EQ(token_->DestroyObject(b).error().code, CKR_OBJECT_HANDLE_INVALID);
  Reopen();
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  ObjectHandle c = StoreSecret(3, "c");
  EXPECT_GT(c, b);
  auto objects = token_->ListObjects();
  ASSERT_TRUE(objects.ok());
  ASSERT_EQ(objects->size(), 2u);
  EXPECT_EQ((*objects)[0].handle, a);
  EXPECT_TRUE((*objects)[0].has_secret);
  EXPECT_EQ((*objects)[0].attributes.at(CKA_LABEL), Bytes{'a'});
  EXPECT_FALSE((*objects)[0].attributes.contains(CKA_VALUE));
  ASSERT_TRUE(token_->UpdateAttributes(a, {{CKA_LABEL, Bytes{'z'}}}).ok());
  auto object = token_->GetObject(a);
  ASSERT_TRUE(object.ok());
  EXPECT_EQ(object->attributes.at(CKA_LABEL), Bytes{'z'});
  EXPECT_EQ(token_->GetObject(b).error().code, CKR_OBJECT_HANDLE_INVALID);
}

TEST_F(TokenTest, FetchCachesAndEvictsLeastRecentlyUsed) {
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  ObjectHandle h1 = StoreSecret(1), h2 = StoreSecret(2), h3 = StoreSecret(3);
  bool hit = true;
  ASSERT_TRUE(token_->FetchKey(h1, &hit).ok());
  EXPECT_FALSE(hit);
  ASSERT_TRUE(token_->FetchKey(h1, &hit).ok());
  EXPECT_TRUE(hit);
  ASSERT_TRUE(token_->FetchKey(h2).ok());  // miss
  ASSERT_TRUE(token_->FetchKey(h3).ok());  // miss, evicts h1 (capacity 2)
  CacheStats stats = token_->cache_stats();
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.misses, 3u);
  EXPECT_EQ(stats.evictions, 1u);
  EXPECT_EQ(stats.size, 2u);
  EXPECT_EQ(stats.capacity, 2u);
  auto again = token_->FetchKey(h1);  // miss again, correct value
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->value, SecureBytes(32, 1));
  EXPECT_EQ(token_->cache_stats().misses, 4u);
}

TEST_F(TokenTest, CacheHitReadsNoRow) {
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  ObjectHandle handle = StoreSecret(5);
  ASSERT_TRUE(token_->FetchKey(handle).ok());
  // Corrupt the stored blob behind the token's back: a hit must not notice.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE objects SET wrapped_value = x'00'", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto hit = token_->FetchKey(handle);
  ASSERT_TRUE(hit.ok());
  EXPECT_EQ((*hit)->value, SecureBytes(32, 5));
  EXPECT_EQ(token_->cache_stats().hits, 1u);
}

TEST_F(TokenTest, LogoutClearsCacheAndKek) {
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  ObjectHandle handle = StoreSecret(5);
  auto key = token_->FetchKey(handle);
  ASSERT_TRUE(key.ok());
  std::weak_ptr<const UnwrappedKey> watch = *key;
  key = MakeError(CKR_OK, "");  // drop our reference
  token_->Logout();
  EXPECT_TRUE(watch.expired()) << "logout must release (zeroise) cached keys";
  EXPECT_EQ(token_->cache_stats().size, 0u);
  EXPECT_EQ(token_->FetchKey(handle).error().code, CKR_USER_NOT_LOGGED_IN);
}

TEST_F(TokenTest, DestroyDropsCachedKey) {
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  ObjectHandle handle = StoreSecret(5);
  ASSERT_TRUE(token_->FetchKey(handle).ok());
  ASSERT_TRUE(token_->DestroyObject(handle).ok());
  EXPECT_EQ(token_->FetchKey(handle).error().code, CKR_OBJECT_HANDLE_INVALID);
}

TEST_F(TokenTest, SwappedWrappedBlobIsRejected) {
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  ObjectHandle a = StoreSecret(0xaa), b = StoreSecret(0xbb);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file_.c_str(), &db), SQLITE_OK);
  std::string sql =
      "UPDATE objects SET wrapped_value = (SELECT wrapped_value FROM objects "
      "WHERE handle = " +
      std::to_string(a) + ") WHERE handle = " + std::to_string(b);
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EXPECT_EQ(token_->FetchKey(b).error().code, CKR_WRAPPED_KEY_INVALID);
  auto good = token_->FetchKey(a);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ((*good)->value, SecureBytes(32, 0xaa));
}

TEST_F(TokenTest, PrivateKeyIsParsedOnceAndSigns) {
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  auto key = crypto::PrivateKey::Generate({crypto::KeyType::kEcP256});
  ASSERT_TRUE(key.ok());
  auto der = key->ToPkcs8Der();
  ASSERT_TRUE(der.ok());
  AttributeMap attributes{{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)},
                          {CKA_KEY_TYPE, UlongBytes(CKK_EC)}};
  auto handle = token_->CreateObject(attributes, &*der);
  ASSERT_TRUE(handle.ok());
  Reopen();
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  auto fetched = token_->FetchKey(*handle);
  ASSERT_TRUE(fetched.ok()) << fetched.error().message;
  ASSERT_TRUE((*fetched)->private_key.has_value());
  crypto::SignParams params{.scheme = crypto::SignScheme::kEcdsa};
  Bytes message{'h', 'i'};
  auto signature = crypto::Sign(*(*fetched)->private_key, params, message);
  ASSERT_TRUE(signature.ok());
  auto pub = key->Public();
  ASSERT_TRUE(pub.ok());
  EXPECT_TRUE(crypto::Verify(*pub, params, message, *signature).ok());
}

TEST_F(TokenTest, SchemaVersionAndApplicationIdRecorded) {
  token_.reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file_.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(stmt, 0), CurrentSchemaVersion());
  sqlite3_finalize(stmt);
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &stmt, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(stmt, 0), kApplicationId);
  sqlite3_finalize(stmt);
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)), "wal");
  sqlite3_finalize(stmt);
  // A newer schema than this build knows is refused, not misread.
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version=99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EXPECT_EQ(Token::Open(file_, options_).error().code, CKR_TOKEN_NOT_RECOGNIZED);
}

TEST_F(TokenTest, ConcurrentFetchesWhileWriting) {
  ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  std::vector<ObjectHandle> handles;
  for (std::uint8_t i = 1; i <= 6; ++i) handles.push_back(StoreSecret(i));
  constexpr int kThreads = 4, kFetches = 200;
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kFetches; ++i) {
        std::size_t pick = static_cast<std::size_t>(i * 7 + t) % handles.size();
        auto key = token_->FetchKey(handles[pick]);
        if (!key.ok() || (*key)->value != SecureBytes(32, static_cast<std::uint8_t>(pick + 1))) {
          ++bad;
        }
      }
    });
  }
  for (int i = 0; i < 20; ++i) {  // writes and destroys interleave with the fetches
    ObjectHandle extra = StoreSecret(0xee);
    ASSERT_TRUE(token_->DestroyObject(extra).ok());
    (void)token_->Info();
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(bad.load(), 0);
  CacheStats stats = token_->cache_stats();
  EXPECT_EQ(stats.hits + stats.misses, static_cast<std::uint64_t>(kThreads * kFetches));
  EXPECT_LE(stats.size, stats.capacity);
}

TEST_F(TokenTest, FindObjectsMatchesEveryTemplateAttribute) {
  auto make = [&](CK_OBJECT_CLASS cls, const char* label, Bytes id, bool sign) {
    AttributeMap attributes{{CKA_CLASS, UlongBytes(cls)},
                            {CKA_LABEL, Bytes(label, label + std::strlen(label))},
                            {CKA_ID, std::move(id)},
                            {CKA_SIGN, Bytes{static_cast<std::uint8_t>(sign)}}};
    auto handle = token_->CreateObject(attributes, nullptr);
    EXPECT_TRUE(handle.ok());
    return handle.ok() ? *handle : 0;
  };
  ObjectHandle pub_a = make(CKO_PUBLIC_KEY, "a", {1}, false);
  ObjectHandle cert_a = make(CKO_CERTIFICATE, "a", {1}, false);
  ObjectHandle pub_b = make(CKO_PUBLIC_KEY, "b", {2}, true);
  auto handles = [&](const AttributeMap& match) {
    std::vector<ObjectHandle> out;
    auto found = token_->FindObjects(match);
    EXPECT_TRUE(found.ok()) << found.error().message;
    if (found.ok()) {
      for (const auto& object : *found) out.push_back(object.handle);
    }
    return out;
  };
  using V = std::vector<ObjectHandle>;
  EXPECT_EQ(handles({}), (V{pub_a, cert_a, pub_b}));
  EXPECT_EQ(handles({{CKA_CLASS, UlongBytes(CKO_PUBLIC_KEY)}}), (V{pub_a, pub_b}));
  EXPECT_EQ(handles({{CKA_LABEL, Bytes{'a'}}}), (V{pub_a, cert_a}));
  EXPECT_EQ(handles({{CKA_CLASS, UlongBytes(CKO_PUBLIC_KEY)}, {CKA_ID, Bytes{1}}}), (V{pub_a}));
  EXPECT_EQ(handles({{CKA_SIGN, Bytes{1}}}), (V{pub_b}));  // not a search column
  EXPECT_EQ(handles({{CKA_ID, Bytes{1}}, {CKA_SIGN, Bytes{1}}}), V{});
  EXPECT_EQ(handles({{CKA_CLASS, Bytes{1, 2}}}), V{});  // malformed CK_ULONG
  EXPECT_EQ(handles({{CKA_LABEL, Bytes{}}}), V{});
}

TEST(TokenOpen, NonTokenFilesAreNotRecognized) {
  TempDir dir;
  auto text = dir.path() / "notes.token";
  std::ofstream(text) << "this is not a database, just some text that is long enough......";
  EXPECT_EQ(Token::Open(text, FastOptions()).error().code, CKR_TOKEN_NOT_RECOGNIZED);

  auto foreign = dir.path() / "foreign.db";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(foreign.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t (x)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EXPECT_EQ(Token::Open(foreign, FastOptions()).error().code, CKR_TOKEN_NOT_RECOGNIZED);

  auto empty = dir.path() / "empty.token";
  std::ofstream{empty};
  EXPECT_EQ(Token::Open(empty, FastOptions()).error().code, CKR_TOKEN_NOT_RECOGNIZED);

  EXPECT_EQ(Token::Open(dir.path() / "missing.token", FastOptions()).error().code,
            CKR_TOKEN_NOT_PRESENT);
}

}  // namespace
}  // namespace signet::keystore
