#include "keystore/data_dir.h"

#include <sys/stat.h>

#include "keystore/keystore_test_util.h"

namespace signet::keystore {
namespace {

using testing::Pin;
using testing::TempDir;

mode_t ModeOf(const std::filesystem::path& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

TEST(DataDir, CreateInDirectoryMakesPrivateDirAndSerialNamedFile) {
  TempDir tmp;
  auto dir = tmp.path() / "nested" / "data";
  auto token = CreateInDirectory(dir, "first", Pin("so-pin"), Pin("user"), testing::FastOptions());
  ASSERT_TRUE(token.ok()) << token.error().message;
  std::string serial = (*token)->Info().serial;
  auto file = TokenFilePath(dir, serial);
  EXPECT_EQ(file.filename().string(), serial + ".token");
  EXPECT_TRUE(std::filesystem::is_regular_file(file));
  EXPECT_EQ(ModeOf(dir), 0700u);
  EXPECT_EQ(ModeOf(file), 0600u);
  token->reset();

  auto reopened = Token::Open(file, testing::FastOptions());
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ((*reopened)->Info().label, "first");
}

TEST(DataDir, ListTokenFilesFindsOnlyTokensSorted) {
  TempDir tmp;
  auto none = ListTokenFiles(tmp.path() / "absent");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());

  std::vector<std::string> serials;
  for (const char* label : {"a", "b"}) {
    auto token =
        CreateInDirectory(tmp.path(), label, Pin("so-pin"), Pin("user"), testing::FastOptions());
    ASSERT_TRUE(token.ok());
    serials.push_back((*token)->Info().serial);
  }
  std::sort(serials.begin(), serials.end());
  for (const char* junk :
       {"notes.txt", "ABCDEF0123456789.token", "short.token", "0123456789abcdef.token-wal"}) {
    std::ofstream(tmp.path() / junk) << "x";
  }

  auto listed = ListTokenFiles(tmp.path());
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0], TokenFilePath(tmp.path(), serials[0]));
  EXPECT_EQ((*listed)[1], TokenFilePath(tmp.path(), serials[1]));
}

}  // namespace
}  // namespace signet::keystore
