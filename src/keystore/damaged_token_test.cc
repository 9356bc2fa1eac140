// Issue 10 defect 12: a damaged token file is refused by Token::Open with a
// message that names the file and says what is wrong with it (never "user
// PIN not initialised"), and ListTokenFiles reports token names that are
// not regular files instead of skipping them silently.
#include <sqlite3.h>
#include <unistd.h>

#include <cstring>

#include "keystore/attribute_codec.h"
#include "keystore/data_dir.h"
#include "keystore/keystore_test_util.h"
#include "keystore/sqlite_db.h"

namespace signet::keystore {
namespace {

using testing::FastOptions;
using testing::Pin;
using testing::TempDir;

constexpr const char* kSerial = "00112233aabbccdd";

class DamagedTokenTest : public ::testing::Test {
 protected:
  // MakeToken creates a healthy token with a few objects at file_ and
  // closes it (SQLite folds the WAL back into the file on close).
  void MakeToken() {
    auto token = Token::Create(file_, "healthy", Pin("so-pin"), Pin("user"), FastOptions());
    ASSERT_TRUE(token.ok()) << token.error().message;
    ASSERT_TRUE((*token)->Login(UserType::kUser, Pin("user")).ok());
    for (int i = 0; i < 40; ++i) {
      std::string label = "key-" + std::to_string(i);
      AttributeMap attributes{{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                              {CKA_LABEL, Bytes(label.begin(), label.end())}};
      SecureBytes secret(32, static_cast<std::uint8_t>(i));
      ASSERT_TRUE((*token)->CreateObject(attributes, &secret).ok());
    }
  }

  // Sql runs `sql` on the token file with the plain SQLite API.
  void Sql(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(file_.c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
    std::string message = error ? error : "";
    sqlite3_free(error);
    sqlite3_close(db);
    ASSERT_EQ(rc, SQLITE_OK) << message;
  }

  // ExpectRefused opens file_ and expects a refusal whose message names the
  // file and contains `reason`.
  void ExpectRefused(const std::string& reason) {
    auto token = Token::Open(file_, FastOptions());
    ASSERT_FALSE(token.ok()) << "a damaged token file opened";
    const std::string& message = token.error().message;
    EXPECT_NE(message.find(file_.string()), std::string::npos) << message;
    EXPECT_NE(message.find(reason), std::string::npos) << message;
    EXPECT_EQ(message.find("PIN not initialised"), std::string::npos) << message;
    EXPECT_NE(token.error().code, CKR_USER_PIN_NOT_INITIALIZED);
  }

  TempDir dir_;
  std::filesystem::path file_ = TokenFilePath(dir_.path(), kSerial);
};

TEST_F(DamagedTokenTest, GarbageBytesAreNotAToken) {
  std::ofstream(file_, std::ios::binary) << std::string(8192, '\x5a');
  ExpectRefused("not a signet token");
}

TEST_F(DamagedTokenTest, ZeroLengthFileIsNotAToken) {
  std::ofstream(file_, std::ios::binary).flush();
  ExpectRefused("empty");
  // Refusing it must not have turned it into a database.
  EXPECT_EQ(std::filesystem::file_size(file_), 0u);
}

TEST_F(DamagedTokenTest, TruncatedFileIsReportedAsDamaged) {
  MakeToken();
  auto size = std::filesystem::file_size(file_);
  ASSERT_GT(size, 4 * 4096u);
  std::filesystem::resize_file(file_, size / 2);
  ExpectRefused("damaged");
}

TEST_F(DamagedTokenTest, OverwrittenPagesAreReportedAsDamaged) {
  MakeToken();
  auto size = std::filesystem::file_size(file_);
  {
    std::fstream f(file_, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(size / 2));
    std::string junk(4096, '\xa5');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  ExpectRefused("damaged");
}

TEST_F(DamagedTokenTest, DirectoryIsReported) {
  std::filesystem::create_directory(file_);
  ExpectRefused("is a directory");
}

TEST_F(DamagedTokenTest, DanglingSymlinkIsReported) {
  std::filesystem::create_symlink(dir_.path() / "gone.token", file_);
  ExpectRefused("symbolic link to a missing file");
}

TEST_F(DamagedTokenTest, ForeignApplicationIdIsNotAToken) {
  MakeToken();
  Sql("PRAGMA application_id=1234");
  ExpectRefused("not a signet token");
}

TEST_F(DamagedTokenTest, NewerSchemaIsNamed) {
  MakeToken();
  Sql("PRAGMA user_version=99");
  ExpectRefused("schema version 99");
}

TEST_F(DamagedTokenTest, MissingPinRecordsAreDamageNotAnUninitialisedPin) {
  MakeToken();
  Sql("DELETE FROM pin_records");
  ExpectRefused("no SO PIN record");
}

TEST_F(DamagedTokenTest, MissingMetadataIsDamage) {
  MakeToken();
  Sql("DELETE FROM token_meta");
  ExpectRefused("no metadata");
}

TEST_F(DamagedTokenTest, HealthyTokenStillOpens) {
  MakeToken();
  auto token = Token::Open(file_, FastOptions());
  ASSERT_TRUE(token.ok()) << token.error().message;
  EXPECT_EQ((*token)->Info().label, "healthy");
}

TEST(DataDirListing, ReportsDirectoriesAndDanglingSymlinksUnderTokenNames) {
  TempDir tmp;
  auto dir_token = TokenFilePath(tmp.path(), "fedcba9876543210");
  auto link_token = TokenFilePath(tmp.path(), "0000000000000001");
  std::filesystem::create_directory(dir_token);
  std::filesystem::create_symlink(tmp.path() / "nowhere", link_token);
  auto listed = ListTokenFiles(tmp.path());
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0], link_token);
  EXPECT_EQ((*listed)[1], dir_token);
}

}  // namespace
}  // namespace signet::keystore
