// Copying a token between keystores (token_migration.h), between two data
// directories: the copy opens with both PINs and its secrets unwrap (each
// rewrapped for its new handle, which differs from the old one here);
// a wrong or locked PIN is refused and counts nothing in the source; a
// secret that does not unwrap leaves no token file behind; a taken label
// is refused; a token file of an older schema is read as it is, not
// migrated.
#include "keystore/token_migration.h"

#include <gtest/gtest.h>

#include "keystore/data_dir.h"
#include "keystore/keystore.h"
#include "keystore/keystore_test_util.h"
#include "keystore/sqlite_db.h"

namespace signet::keystore {
namespace {

using testing::FastOptions;
using testing::Pin;
using testing::TempDir;

constexpr const char* kSo = "so-pin-1234";
constexpr const char* kUser = "user-pin-1234";

class TokenMigrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto from = OpenDirectoryKeystore(tmp_.path() / "from", "test");
    ASSERT_TRUE(from.ok()) << from.error().message;
    from_ = std::move(*from);
    auto created = from_->CreateToken("moved", Pin(kSo), Pin(kUser), FastOptions(), {});
    ASSERT_TRUE(created.ok()) << created.error().message;
    auto& token = *created->second;
    ASSERT_TRUE(token.Login(UserType::kUser, Pin(kUser)).ok());
    // A destroyed first object: the source's handles start at 2, the
    // copy's at 1.
    auto gone = token.CreateObject({{CKA_CLASS, UlongBytes(CKO_DATA)}}, nullptr);
    ASSERT_TRUE(gone.ok());
    ASSERT_TRUE(token.DestroyObject(*gone).ok());
    auto made = token.CreateObject(
        {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)}, {CKA_KEY_TYPE, UlongBytes(CKK_AES)}}, &secret_);
    ASSERT_TRUE(made.ok()) << made.error().message;
    ASSERT_EQ(*made, 2);
    source_ = created->first;
  }

  // OpenCopy opens the one token of `dir`.
  std::unique_ptr<Token> OpenCopy(const std::filesystem::path& dir) {
    auto files = ListTokenFiles(dir);
    EXPECT_TRUE(files.ok() && files->size() == 1);
    if (!files.ok() || files->size() != 1) return nullptr;
    auto token = Token::Open(files->front(), FastOptions());
    EXPECT_TRUE(token.ok());
    return token.ok() ? std::move(*token) : nullptr;
  }

  TempDir tmp_;
  std::unique_ptr<Keystore> from_;
  std::string source_;
  SecureBytes secret_ = SecureBytes(32, 0x5a);
};

TEST_F(TokenMigrationTest, TheCopyOpensWithBothPinsAndItsSecretsUnwrap) {
  auto token = ReadUnlockedToken(*from_, "moved", UserType::kSo, Pin(kSo));
  ASSERT_TRUE(token.ok()) << token.error().message;
  auto to = OpenDirectoryKeystore(tmp_.path() / "to", "test");
  ASSERT_TRUE(to.ok());
  auto report = WriteUnlockedToken(**to, *token);
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->objects, 1u);
  EXPECT_EQ(report->secrets, 1u);

  auto copy = OpenCopy(tmp_.path() / "to");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->Info().label, "moved");
  EXPECT_EQ(copy->Info().serial, token->records.serial);
  EXPECT_TRUE(copy->CanFillPool());
  ASSERT_TRUE(copy->Login(UserType::kSo, Pin(kSo)).ok());
  ASSERT_TRUE(copy->Login(UserType::kUser, Pin(kUser)).ok());
  auto objects = copy->ListObjects();
  ASSERT_TRUE(objects.ok());
  ASSERT_EQ(objects->size(), 1u);
  EXPECT_EQ(objects->front().handle, 1);
  auto key = copy->FetchKey(1);
  ASSERT_TRUE(key.ok()) << key.error().message;
  EXPECT_EQ((*key)->value, secret_);
}

TEST_F(TokenMigrationTest, AWrongOrLockedPinIsRefusedAndCountsNothing) {
  auto wrong = ReadUnlockedToken(*from_, "moved", UserType::kUser, Pin("not-the-pin"));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().code, CKR_PIN_INCORRECT);
  auto source = from_->OpenToken(source_, FastOptions());
  ASSERT_TRUE(source.ok());
  EXPECT_EQ((*source)->Info().user_pin_failures, 0);

  for (int i = 0; i < 3; ++i) (void)(*source)->Login(UserType::kUser, Pin("not-the-pin"));
  ASSERT_TRUE((*source)->Info().user_pin_locked);
  auto locked = ReadUnlockedToken(*from_, "moved", UserType::kUser, Pin(kUser));
  ASSERT_FALSE(locked.ok());
  EXPECT_EQ(locked.error().code, CKR_PIN_LOCKED);
  EXPECT_TRUE(ReadUnlockedToken(*from_, "moved", UserType::kSo, Pin(kSo)).ok());
  EXPECT_EQ(ReadUnlockedToken(*from_, "other", UserType::kSo, Pin(kSo)).error().code,
            CKR_TOKEN_NOT_PRESENT);
}

TEST_F(TokenMigrationTest, ASecretThatDoesNotUnwrapLeavesNoTokenBehind) {
  auto token = ReadUnlockedToken(*from_, "moved", UserType::kUser, Pin(kUser));
  ASSERT_TRUE(token.ok());
  token->records.objects.front().wrapped_value->back() ^= 1;
  auto to = OpenDirectoryKeystore(tmp_.path() / "to", "test");
  ASSERT_TRUE(to.ok());
  auto report = WriteUnlockedToken(**to, *token);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().code, CKR_WRAPPED_KEY_INVALID);
  auto files = ListTokenFiles(tmp_.path() / "to");
  ASSERT_TRUE(files.ok());
  EXPECT_TRUE(files->empty());
}

TEST_F(TokenMigrationTest, ATakenLabelOrSerialIsRefused) {
  auto token = ReadUnlockedToken(*from_, "moved", UserType::kUser, Pin(kUser));
  ASSERT_TRUE(token.ok());
  auto to = OpenDirectoryKeystore(tmp_.path() / "to", "test");
  ASSERT_TRUE(to.ok());
  ASSERT_TRUE((*to)->CreateToken("moved", Pin(kSo), Pin(kUser), FastOptions(), {}).ok());
  auto report = WriteUnlockedToken(**to, *token);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().code, CKR_ARGUMENTS_BAD);
  // Under another label it goes in once; its serial is then taken.
  token->records.label = "renamed";
  ASSERT_TRUE(WriteUnlockedToken(**to, *token).ok());
  token->records.label = "renamed again";
  auto twice = WriteUnlockedToken(**to, *token);
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().code, CKR_ARGUMENTS_BAD);
  EXPECT_NE(twice.error().message.find("is already in"), std::string::npos)
      << twice.error().message;
}

TEST_F(TokenMigrationTest, AnOlderTokenFileIsReadWithoutMigratingIt) {
  // Schema version 2: no slot id, no pool key (schema.cc).
  {
    auto db = Database::Open(source_);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)
                    ->Exec("DROP TABLE pool_seal_key; ALTER TABLE token_meta DROP COLUMN slot_id; "
                           "PRAGMA user_version=2")
                    .ok());
  }
  auto token = ReadUnlockedToken(*from_, "moved", UserType::kUser, Pin(kUser));
  ASSERT_TRUE(token.ok()) << token.error().message;
  EXPECT_FALSE(token->records.slot_id.has_value());
  auto db = Database::Open(source_);
  ASSERT_TRUE(db.ok());
  EXPECT_EQ(*(*db)->PragmaInt("user_version"), 2);
  db->reset();

  auto to = OpenDirectoryKeystore(tmp_.path() / "to", "test");
  ASSERT_TRUE(to.ok());
  ASSERT_TRUE(WriteUnlockedToken(**to, *token).ok());
  auto copy = OpenCopy(tmp_.path() / "to");
  ASSERT_NE(copy, nullptr);
  EXPECT_TRUE(copy->CanFillPool());
  ASSERT_TRUE(copy->Login(UserType::kUser, Pin(kUser)).ok());
  auto key = copy->FetchKey(1);
  ASSERT_TRUE(key.ok()) << key.error().message;
  EXPECT_EQ((*key)->value, secret_);
}

}  // namespace
}  // namespace signet::keystore
