// Issue 10 defect 12: one damaged token file does not stop the Hsm from
// serving the healthy ones; it is named, with its reason, in
// unavailable_tokens() and takes no slot.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "core/hsm.h"
#include "keystore/data_dir.h"

namespace signet::core {
namespace {


constexpr std::string_view kSoPin = "so-pin-1234";
constexpr std::string_view kUserPin = "user-pin-1234";

class HsmOpenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/signet-hsm-open-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    options_.data_dir = dir_ / "data";
    options_.token_options.kdf.n = 1u << 10;
    auto hsm = Hsm::Open(options_);
    ASSERT_TRUE(hsm.ok()) << hsm.error().message;
    auto admin = (*hsm)->NewClient();
    admin->admin = true;  // creates the tokens
    for (const char* label : {"first", "second"}) {
      auto made = (*hsm)->InitToken(*admin, (*hsm)->Slots().size() - 1, AsBytes(kSoPin), label,
                                    AsBytes(kUserPin));
      ASSERT_TRUE(made.ok()) << made.error().message;
      serials_.push_back(made->second);
    }
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path TokenFile(std::size_t i) const {
    return keystore::TokenFilePath(options_.data_dir, serials_[i]);
  }

  std::filesystem::path dir_;
  HsmOptions options_;
  std::vector<std::string> serials_;
};

TEST_F(HsmOpenTest, DamagedTokenDoesNotStopTheHealthyOne) {
  std::ofstream(TokenFile(0), std::ios::binary | std::ios::trunc) << std::string(8192, 'x');
  auto hsm = Hsm::Open(options_);
  ASSERT_TRUE(hsm.ok()) << hsm.error().message;

  // The healthy token keeps its slot (1: the damaged token does not
  // renumber it), then the free slot; nothing else.
  auto slots = (*hsm)->Slots();
  ASSERT_EQ(slots.size(), 2u);
  EXPECT_TRUE(slots[0].token_present);
  EXPECT_EQ(slots[0].serial, serials_[1]);
  EXPECT_EQ(slots[0].id, 1u);
  EXPECT_FALSE(slots[1].token_present);
  EXPECT_EQ(slots[1].id, 2u);

  ASSERT_EQ((*hsm)->unavailable_tokens().size(), 1u);
  const UnavailableToken& bad = (*hsm)->unavailable_tokens()[0];
  EXPECT_EQ(bad.file, TokenFile(0));
  EXPECT_NE(bad.reason.find(TokenFile(0).string()), std::string::npos) << bad.reason;
  EXPECT_NE(bad.reason.find("not a signet token"), std::string::npos) << bad.reason;

  // The healthy one serves: login and sign.
  auto client = (*hsm)->NewClient();
  auto s = (*hsm)->OpenSession(*client, slots[0].id, CKF_SERIAL_SESSION | CKF_RW_SESSION);
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE((*hsm)->Login(*client, *s, CKU_USER, AsBytes(kUserPin)).ok());
  Mechanism gen{CKM_EC_KEY_PAIR_GEN, {}, {}};
  auto pair = (*hsm)->GenerateKeyPair(
      *client, *s, gen, {{CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)}}, {});
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  Mechanism sign{CKM_ECDSA_SHA256, {}, {}};
  EXPECT_TRUE((*hsm)->Sign(*client, *s, pair->second, sign, AsBytes("still here")).ok());
  (*hsm)->Disconnect(*client);
}

TEST_F(HsmOpenTest, DirectoryAndDanglingSymlinkAreReportedNotSkipped) {
  std::filesystem::create_directory(keystore::TokenFilePath(options_.data_dir, "00000000000000aa"));
  std::filesystem::create_symlink(dir_ / "gone",
                                  keystore::TokenFilePath(options_.data_dir, "00000000000000bb"));
  auto hsm = Hsm::Open(options_);
  ASSERT_TRUE(hsm.ok()) << hsm.error().message;
  EXPECT_EQ((*hsm)->Slots().size(), 3u);  // both healthy tokens + the free slot
  ASSERT_EQ((*hsm)->unavailable_tokens().size(), 2u);
  EXPECT_NE((*hsm)->unavailable_tokens()[0].reason.find("is a directory"), std::string::npos);
  EXPECT_NE((*hsm)->unavailable_tokens()[1].reason.find("symbolic link to a missing file"),
            std::string::npos);
}

TEST_F(HsmOpenTest, StrictRefusesAnyDamagedToken) {
  std::filesystem::resize_file(TokenFile(1), 0);
  options_.strict = true;
  auto hsm = Hsm::Open(options_);
  ASSERT_FALSE(hsm.ok());
  EXPECT_NE(hsm.error().message.find(TokenFile(1).string()), std::string::npos)
      << hsm.error().message;
}

TEST_F(HsmOpenTest, NoServableTokenIsAnError) {
  std::filesystem::resize_file(TokenFile(0), 0);
  std::filesystem::resize_file(TokenFile(1), 0);
  auto hsm = Hsm::Open(options_);
  ASSERT_FALSE(hsm.ok());
  EXPECT_NE(hsm.error().message.find("no token could be opened"), std::string::npos)
      << hsm.error().message;
}

TEST(HsmOpen, EmptyDataDirStillStarts) {
  char tmpl[] = "/tmp/signet-hsm-open-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  HsmOptions options;
  options.data_dir = std::filesystem::path(tmpl) / "data";
  options.strict = true;
  auto hsm = Hsm::Open(options);
  ASSERT_TRUE(hsm.ok()) << hsm.error().message;
  EXPECT_EQ((*hsm)->Slots().size(), 1u);
  std::filesystem::remove_all(tmpl);
}

}  // namespace
}  // namespace signet::core
