// Backup and restore of token files (keystore/backup.h) on real SQLite
// files: a backup taken while another thread keeps writing is one snapshot
// (it opens, passes the integrity check, and holds a count of objects the
// token really had); a restored token serves its keys with the PIN; the
// refusals (an existing output, a serial or label already in the
// directory, a damaged backup) leave nothing behind.
#include "keystore/backup.h"

#include <sqlite3.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <thread>

#include "crypto/keys.h"
#include "keystore/data_dir.h"
#include "keystore/keystore_test_util.h"

namespace signet::keystore {
namespace {

using testing::FastOptions;
using testing::Pin;
using testing::TempDir;

class BackupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto token = CreateInDirectory(dir_.path() / "data", "source", Pin("so-pin"), Pin("user-pin"),
                                   FastOptions());
    ASSERT_TRUE(token.ok()) << token.error().message;
    token_ = std::move(*token);
    file_ = TokenFilePath(dir_.path() / "data", token_->Info().serial);
    ASSERT_TRUE(token_->Login(UserType::kUser, Pin("user-pin")).ok());
  }

  ObjectHandle StoreSecret(std::uint8_t fill) {
    AttributeMap attributes{{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)}};
    SecureBytes secret(32, fill);
    auto handle = token_->CreateObject(attributes, &secret);
    EXPECT_TRUE(handle.ok());
    return handle.ok() ? *handle : 0;
  }

  TempDir dir_;
  std::filesystem::path file_;
  std::unique_ptr<Token> token_;
};

TEST_F(BackupTest, ABackupTakenWhileWritingIsOneSnapshot) {
  for (int i = 0; i < 20; ++i) StoreSecret(static_cast<std::uint8_t>(i));
  std::atomic<bool> stop{false};
  std::atomic<int> written{0};
  std::thread writer([&] {
    while (!stop) {
      if (StoreSecret(0x77) != 0) ++written;
    }
  });
  while (written < 5) std::this_thread::yield();  // the writer is busy
  const std::filesystem::path out = dir_.path() / "backup.token";
  auto report = BackupToken(file_, out);
  stop = true;
  writer.join();
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->serial, token_->Info().serial);
  EXPECT_EQ(report->label, "source");
  EXPECT_GE(report->objects, 25);
  EXPECT_LE(report->objects, 20 + written.load());
  EXPECT_GT(report->bytes, 0u);
  EXPECT_EQ(std::filesystem::status(out).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
}

TEST_F(BackupTest, AnExistingOutputIsRefusedAndKept) {
  const std::filesystem::path out = dir_.path() / "precious";
  std::ofstream(out) << "keep me";
  auto report = BackupToken(file_, out);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().code, CKR_ARGUMENTS_BAD);
  EXPECT_EQ(testing::ReadFileBytes(out), Bytes({'k', 'e', 'e', 'p', ' ', 'm', 'e'}));
}

TEST_F(BackupTest, ARestoredTokenServesItsKeysWithThePin) {
  ObjectHandle handle = StoreSecret(0x42);
  const std::filesystem::path out = dir_.path() / "backup.token";
  ASSERT_TRUE(BackupToken(file_, out).ok());
  const std::filesystem::path elsewhere = dir_.path() / "elsewhere";
  auto restored = RestoreToken(out, elsewhere, /*replace=*/false, {});
  ASSERT_TRUE(restored.ok()) << restored.error().message;
  auto token = Token::Open(TokenFilePath(elsewhere, restored->serial), FastOptions());
  ASSERT_TRUE(token.ok());
  EXPECT_EQ((*token)->Info().serial, token_->Info().serial);
  ASSERT_TRUE((*token)->Login(UserType::kUser, Pin("user-pin")).ok());
  auto key = (*token)->FetchKey(handle);
  ASSERT_TRUE(key.ok()) << key.error().message;
  EXPECT_EQ((*key)->value, SecureBytes(32, 0x42));
}

TEST_F(BackupTest, ASerialOrLabelAlreadyThereIsRefusedUnlessReplacing) {
  const std::filesystem::path out = dir_.path() / "backup.token";
  ASSERT_TRUE(BackupToken(file_, out).ok());
  const std::filesystem::path data = dir_.path() / "data";
  std::vector<TokenInfo> others{token_->Info()};
  token_.reset();
  auto same_serial = RestoreToken(out, data, /*replace=*/false, others);
  ASSERT_FALSE(same_serial.ok());
  EXPECT_EQ(same_serial.error().code, CKR_ARGUMENTS_BAD);
  EXPECT_NE(same_serial.error().message.find("--replace"), std::string::npos);
  EXPECT_TRUE(RestoreToken(out, data, /*replace=*/true, others).ok());

  TokenInfo namesake;
  namesake.label = "source";
  namesake.serial = "0123456789abcdef";
  auto same_label = RestoreToken(out, dir_.path() / "third", false, {namesake});
  ASSERT_FALSE(same_label.ok());
  EXPECT_EQ(same_label.error().code, CKR_ARGUMENTS_BAD);
  auto listed = ListTokenFiles(dir_.path() / "third");
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());
}

// A pooled key must reach one client only, and the other token keeps its
// slot id: the restored copy has neither the pool entries nor a slot id
// another token in the directory has.
TEST_F(BackupTest, ARestoredTokenHasNoPoolEntriesAndYieldsATakenSlotId) {
  ASSERT_TRUE(token_->SetSlotId(5).ok());
  auto pooled = crypto::PrivateKey::Generate({crypto::KeyType::kEcP256});
  ASSERT_TRUE(pooled.ok());
  ASSERT_TRUE(token_->StorePoolKey("ec:p256", *pooled->ToPkcs8Der(), {}).ok());
  const std::filesystem::path out = dir_.path() / "backup.token";
  auto backed_up = BackupToken(file_, out);
  ASSERT_TRUE(backed_up.ok()) << backed_up.error().message;
  EXPECT_EQ(backed_up->pool_entries, 1);
  TokenInfo holder;
  holder.label = "holder";
  holder.serial = "0123456789abcdef";
  holder.slot_id = 5;
  const std::filesystem::path elsewhere = dir_.path() / "elsewhere";
  auto restored = RestoreToken(out, elsewhere, false, {holder});
  ASSERT_TRUE(restored.ok()) << restored.error().message;
  EXPECT_EQ(restored->pool_entries, 0);
  auto token = Token::Open(TokenFilePath(elsewhere, restored->serial), FastOptions());
  ASSERT_TRUE(token.ok());
  EXPECT_EQ((*token)->Info().slot_id, std::nullopt);
  EXPECT_TRUE((*token)->PoolCounts()->empty());
}

// The serial names the restored file: a backup whose serial is a path
// (crafted) is refused, and nothing is written outside the directory.
TEST_F(BackupTest, ABackupWhoseSerialIsAPathIsRefused) {
  const std::filesystem::path out = dir_.path() / "backup.token";
  ASSERT_TRUE(BackupToken(file_, out).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(out.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "UPDATE token_meta SET serial = '../escaped'", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  auto restored = RestoreToken(out, dir_.path() / "inside", false, {});
  ASSERT_FALSE(restored.ok());
  EXPECT_EQ(restored.error().code, CKR_ARGUMENTS_BAD);
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "escaped.token"));
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "inside" / ".restore.token.tmp"));
}

TEST_F(BackupTest, ADamagedBackupIsRefusedAndNothingIsInstalled) {
  const std::filesystem::path out = dir_.path() / "backup.token";
  for (int i = 0; i < 50; ++i) StoreSecret(static_cast<std::uint8_t>(i));
  ASSERT_TRUE(BackupToken(file_, out).ok());
  {
    // Every page after the first loses its b-tree page header (SQLite's
    // default page size is 4096): what a torn copy or a bad disk leaves.
    const auto size = std::filesystem::file_size(out);
    std::fstream damage(out, std::ios::in | std::ios::out | std::ios::binary);
    const std::string garbage(16, '\xee');
    for (std::uintmax_t page = 4096; page < size; page += 4096) {
      damage.seekp(static_cast<std::streamoff>(page));
      damage.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
    }
  }
  const std::filesystem::path elsewhere = dir_.path() / "elsewhere";
  auto restored = RestoreToken(out, elsewhere, false, {});
  ASSERT_FALSE(restored.ok());
  auto listed = ListTokenFiles(elsewhere);
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());
  EXPECT_FALSE(std::filesystem::exists(elsewhere / ".restore.token.tmp"));
}

}  // namespace
}  // namespace signet::keystore
