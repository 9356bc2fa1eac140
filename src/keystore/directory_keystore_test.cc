// The data-directory Keystore (keystore.h): opening makes the directory
// (0700) and takes its lock, so a second keystore on it is refused until
// the first goes; created tokens are listed by file, get slot ids 0, 1, ...
// from the directory's counter, refuse a label already taken, and reopen.
#include <sys/stat.h>

#include "keystore/data_dir.h"
#include "keystore/keystore.h"
#include "keystore/keystore_test_util.h"

namespace signet::keystore {
namespace {

using testing::FastOptions;
using testing::Pin;
using testing::TempDir;

TEST(DirectoryKeystoreTest, CreatesListsReopensAndHoldsTheLock) {
  TempDir tmp;
  const std::filesystem::path dir = tmp.path() / "data";
  auto keystore = OpenDirectoryKeystore(dir, "test");
  ASSERT_TRUE(keystore.ok()) << keystore.error().message;
  struct stat st {};
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_EQ((*keystore)->Describe(), "data directory " + dir.string());
  EXPECT_EQ((*keystore)->OpenToken((dir / "none.token").string(), FastOptions()).error().code,
            CKR_TOKEN_NOT_PRESENT);

  // A second daemon on the same directory is refused, naming the first.
  auto second = OpenDirectoryKeystore(dir, "other");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, CKR_FUNCTION_FAILED);
  EXPECT_NE(second.error().message.find("test"), std::string::npos) << second.error().message;

  std::vector<TokenInfo> others;
  std::vector<std::string> locations;
  for (const char* label : {"alpha", "beta"}) {
    auto created = (*keystore)->CreateToken(label, Pin("so-pin-1234"), Pin("user-pin-1234"),
                                            FastOptions(), others);
    ASSERT_TRUE(created.ok()) << created.error().message;
    const TokenInfo info = created->second->Info();
    EXPECT_EQ(created->first, TokenFilePath(dir, info.serial).string());
    EXPECT_EQ(info.slot_id, CK_SLOT_ID{others.size()});
    others.push_back(info);
    locations.push_back(created->first);
  }
  EXPECT_EQ(*(*keystore)->ReadNextSlotId(), 2u);
  auto taken = (*keystore)->CreateToken("alpha", Pin("so-pin-1234"), {}, FastOptions(), others);
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.error().code, CKR_ARGUMENTS_BAD);

  auto listed = (*keystore)->ListTokens();
  ASSERT_TRUE(listed.ok());
  std::sort(locations.begin(), locations.end());
  EXPECT_EQ(*listed, locations);
  auto reopened = (*keystore)->OpenToken(locations[0], FastOptions());
  ASSERT_TRUE(reopened.ok()) << reopened.error().message;

  keystore->reset();  // the lock goes with it
  EXPECT_TRUE(OpenDirectoryKeystore(dir, "other").ok());
}

TEST(DirectoryKeystoreTest, AFileWhereTheDirectoryShouldBeIsRefused) {
  TempDir tmp;
  const std::filesystem::path file = tmp.path() / "file";
  ASSERT_TRUE(CreateEmptyFile(file).ok());
  auto keystore = OpenDirectoryKeystore(file, "test");
  ASSERT_FALSE(keystore.ok());
  EXPECT_EQ(keystore.error().code, CKR_DEVICE_ERROR);
}

}  // namespace
}  // namespace signet::keystore
