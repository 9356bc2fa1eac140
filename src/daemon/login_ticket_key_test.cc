// ReadLoginTicketKeys on real files in a temp dir: one key, or up to three
// while the key rotates (the first seals), each 64 hex digits on a line of
// its own; a file others may read, a fourth key, a blank or short line,
// and an empty file are refused with the reason.
#include "daemon/login_ticket_key.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "keystore/keystore_test_util.h"

namespace signet::daemon {
namespace {

const std::string kFirst(64, 'a');
const std::string kSecond(64, '0');
const std::string kThird = std::string(32, '1') + std::string(32, 'F');

class LoginTicketKeyTest : public ::testing::Test {
 protected:
  // Write puts `text` in the key file with `mode` and returns its path.
  std::filesystem::path Write(const std::string& text, mode_t mode = 0600) {
    const std::filesystem::path file = dir_.path() / "ticket.key";
    std::ofstream(file, std::ios::trunc) << text;
    ::chmod(file.c_str(), mode);
    return file;
  }

  keystore::testing::TempDir dir_;
};

TEST_F(LoginTicketKeyTest, OneKeyWithOrWithoutItsNewline) {
  for (const std::string& text : {kFirst, kFirst + "\n"}) {
    auto keys = ReadLoginTicketKeys(Write(text));
    ASSERT_TRUE(keys.ok()) << keys.error().message;
    ASSERT_EQ(keys->size(), 1u);
    EXPECT_EQ(*keys, std::vector<SecureBytes>{SecureBytes(32, 0xaa)});
  }
}

TEST_F(LoginTicketKeyTest, UpToThreeKeysInTheirOrder) {
  auto keys = ReadLoginTicketKeys(Write(kFirst + "\n" + kSecond + "\n" + kThird + "\n"));
  ASSERT_TRUE(keys.ok()) << keys.error().message;
  ASSERT_EQ(keys->size(), 3u);
  EXPECT_EQ((*keys)[0], SecureBytes(32, 0xaa));
  EXPECT_EQ((*keys)[1], SecureBytes(32, 0x00));
  EXPECT_EQ((*keys)[2][0], 0x11);
  EXPECT_EQ((*keys)[2][31], 0xff);
}

TEST_F(LoginTicketKeyTest, RefusesWhatIsNotOneToThreeKeysForItsOwnerAlone) {
  const std::string four = kFirst + "\n" + kSecond + "\n" + kThird + "\n" + kFirst + "\n";
  const std::pair<std::string, std::string> refused[] = {
      {"", "expected 1 to 3 lines"},
      {"\n", "expected 1 to 3 lines"},
      {kFirst + "\n\n" + kSecond, "expected 1 to 3 lines"},
      {kFirst.substr(1), "expected 1 to 3 lines"},
      {kFirst + "0", "expected 1 to 3 lines"},
      {std::string(63, 'a') + "g", "expected 1 to 3 lines"},
      {four, "expected 1 to 3 lines"},
  };
  for (const auto& [text, why] : refused) {
    auto keys = ReadLoginTicketKeys(Write(text));
    ASSERT_FALSE(keys.ok()) << "accepted: " << text;
    EXPECT_EQ(keys.error().code, CKR_ARGUMENTS_BAD);
    EXPECT_NE(keys.error().message.find(why), std::string::npos) << keys.error().message;
  }
  auto shared = ReadLoginTicketKeys(Write(kFirst, 0640));
  ASSERT_FALSE(shared.ok());
  EXPECT_NE(shared.error().message.find("chmod 600"), std::string::npos);
  auto missing = ReadLoginTicketKeys(dir_.path() / "none");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("cannot open it"), std::string::npos);
}

}  // namespace
}  // namespace signet::daemon
