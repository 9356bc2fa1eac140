// Single DES through OpenSSL's legacy provider: refused before the provider
// is loaded, then FIPS 81's known answers (appendix B, ECB and CBC) and
// `openssl enc -des-cbc` (with the legacy provider) both ways. Its own test
// program: loading the provider is for the life of the process.
#include <gtest/gtest.h>

#include <string>

#include "base/hex.h"
#include "crypto/aes_modes.h"
#include "crypto/crypto_test_util.h"
#include "crypto/legacy_provider.h"

namespace signet::crypto {
namespace {

Bytes Unhex(std::string_view hex) { return FromHex(hex).value(); }

// FIPS 81 appendix B: "Now is the time for all " under key 0123456789abcdef.
constexpr const char* kKey = "0123456789abcdef";
constexpr const char* kIv = "1234567890abcdef";
constexpr const char* kPlain = "4e6f77206973207468652074696d6520666f7220616c6c20";

TEST(SingleDes, IsRefusedUntilTheLegacyProviderLoadsThenGivesFips81sAnswers) {
  ASSERT_FALSE(LegacyProviderLoaded());
  auto before = BlockEncrypt(BlockCipher::kDes, BlockMode::kEcb, Unhex(kKey), {}, Unhex(kPlain));
  ASSERT_FALSE(before.ok());
  EXPECT_EQ(before.error().code, CKR_MECHANISM_INVALID);

  ASSERT_TRUE(LoadLegacyProvider().ok());
  EXPECT_TRUE(LegacyProviderLoaded());
  auto ecb = BlockEncrypt(BlockCipher::kDes, BlockMode::kEcb, Unhex(kKey), {}, Unhex(kPlain));
  ASSERT_TRUE(ecb.ok()) << ecb.error().message;
  EXPECT_EQ(ToHex(*ecb), "3fa40e8a984d48156a271787ab8883f9893d51ec4b563b53");
  const Bytes iv = Unhex(kIv);
  auto cbc = BlockEncrypt(BlockCipher::kDes, BlockMode::kCbc, Unhex(kKey), {iv}, Unhex(kPlain));
  ASSERT_TRUE(cbc.ok()) << cbc.error().message;
  EXPECT_EQ(ToHex(*cbc), "e5c7cdde872bf27c43e934008c389c0f683788499a7c05f6");
  auto back = BlockDecrypt(BlockCipher::kDes, BlockMode::kCbc, Unhex(kKey), {iv}, *cbc);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(ToHex(ByteView(back->data(), back->size())), kPlain);
  // Loading twice is harmless; the default provider's ciphers stay.
  EXPECT_TRUE(LoadLegacyProvider().ok());
  EXPECT_TRUE(
      BlockEncrypt(BlockCipher::kAes, BlockMode::kEcb, Bytes(16, 1), {}, Bytes(16, 2)).ok());
}

// CBC_PAD equals `openssl enc -des-cbc` (PKCS#7 padding) both ways.
TEST(SingleDes, CbcPadAgreesWithOpenSslEncBothWays) {
  ASSERT_TRUE(LoadLegacyProvider().ok());
  testing::TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string key_hex = "133457799bbcdff1";
  const Bytes key = Unhex(key_hex), iv = Unhex(kIv);
  Bytes plain(333);
  for (std::size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<std::uint8_t>(i * 13 + 5);
  testing::WriteFile(dir.File("plain"), plain);
  const std::vector<std::string> legacy = {"-provider", "legacy", "-provider", "default"};
  std::vector<std::string> enc = {"enc",  "-des-cbc",
                                  "-K",   key_hex,
                                  "-iv",  kIv,
                                  "-in",  dir.File("plain"),
                                  "-out", dir.File("openssl.enc")};
  enc.insert(enc.end(), legacy.begin(), legacy.end());
  ASSERT_EQ(testing::RunOpenssl(enc), 0);
  auto ours = BlockEncrypt(BlockCipher::kDes, BlockMode::kCbcPad, key, {iv}, plain);
  ASSERT_TRUE(ours.ok()) << ours.error().message;
  EXPECT_EQ(*ours, testing::ReadFile(dir.File("openssl.enc")));
  testing::WriteFile(dir.File("ours.enc"), *ours);
  std::vector<std::string> dec = {"enc",
                                  "-d",
                                  "-des-cbc",
                                  "-K",
                                  key_hex,
                                  "-iv",
                                  kIv,
                                  "-in",
                                  dir.File("ours.enc"),
                                  "-out",
                                  dir.File("openssl.dec")};
  dec.insert(dec.end(), legacy.begin(), legacy.end());
  ASSERT_EQ(testing::RunOpenssl(dec), 0);
  EXPECT_EQ(testing::ReadFile(dir.File("openssl.dec")), plain);
}

}  // namespace
}  // namespace signet::crypto
