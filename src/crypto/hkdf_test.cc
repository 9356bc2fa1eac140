// HKDF against RFC 5869 appendix A, test cases 1-7 (SHA-256: 1-3; SHA-1:
// 4-7): the extract step alone gives the published PRK, the expand step
// alone on that PRK and both steps together give the published OKM. Then
// agreement with the `openssl kdf` command on SHA-384 and SHA-512, for
// which the RFC has no vector, and the refusals.
#include "crypto/hkdf.h"

#include <gtest/gtest.h>

#include <string>

#include "base/hex.h"
#include "crypto/crypto_test_util.h"

namespace signet::crypto {
namespace {

using testing::ReadFile;
using testing::RunOpenssl;
using testing::TempDir;

Bytes H(std::string_view hex) {
  auto bytes = FromHex(hex);
  EXPECT_TRUE(bytes.has_value()) << hex;
  return bytes.value_or(Bytes{});
}

std::string Hex(const SecureBytes& bytes) { return ToHex(ByteView(bytes.data(), bytes.size())); }

// Counting: the bytes first, first + 1, ... last, as hex (the RFC's long
// inputs of test cases 2 and 5).
std::string Counting(int first, int last) {
  Bytes out;
  for (int b = first; b <= last; ++b) out.push_back(static_cast<std::uint8_t>(b));
  return ToHex(out);
}

struct Rfc5869Case {
  int number;
  DigestAlg digest;
  std::string ikm, salt, info;
  std::size_t length;
  std::string prk, okm;
};

std::vector<Rfc5869Case> Rfc5869Cases() {
  auto repeat = [](const std::string& byte, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += byte;
    return out;
  };
  return {
      {1, DigestAlg::kSha256, repeat("0b", 22), Counting(0x00, 0x0c), Counting(0xf0, 0xf9), 42,
       "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
       "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"},
      {2, DigestAlg::kSha256, Counting(0x00, 0x4f), Counting(0x60, 0xaf), Counting(0xb0, 0xff), 82,
       "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
       "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e"
       "590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87"},
      {3, DigestAlg::kSha256, repeat("0b", 22), "", "", 42,
       "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
       "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"},
      {4, DigestAlg::kSha1, repeat("0b", 11), Counting(0x00, 0x0c), Counting(0xf0, 0xf9), 42,
       "9b6c18c432a7bf8f0e71c8eb88f4b30baa2ba243",
       "085a01ea1b10f36933068b56efa5ad81a4f14b822f5b091568a9cdd4f155fda2c22e422478d305f3f896"},
      {5, DigestAlg::kSha1, Counting(0x00, 0x4f), Counting(0x60, 0xaf), Counting(0xb0, 0xff), 82,
       "8adae09a2a307059478d309b26c4115a224cfaf6",
       "0bd770a74d1160f7c9f12cd5912a06ebff6adcae899d92191fe4305673ba2ffe8fa3f1a4e5ad79f3f334b3b202"
       "b2173c486ea37ce3d397ed034c7f9dfeb15c5e927336d0441f4c4300e2cff0d0900b52d3b4"},
      // 6: a zero-length salt; 7: no salt, which is as many zero bytes as the hash is long.
      {6, DigestAlg::kSha1, repeat("0b", 22), "", "", 42,
       "da8c8a73c7fa77288ec6f5e7c297786aa0d32d01",
       "0ac1af7002b3d761d1e55298da9d0506b9ae52057220a306e07b6b87e8df21d0ea00033de03984d34918"},
      {7, DigestAlg::kSha1, repeat("0c", 22), repeat("00", 20), "", 42,
       "2adccada18779e7c2077ad2eb19d3f3e731385dd",
       "2c91117204d745f3500d636a62f64f0ab3bae548aa53d423b0d1f27ebba6f5e5673a081d70cce7acfc48"},
  };
}

TEST(Hkdf, Rfc5869TestCasesOneToSeven) {
  for (const Rfc5869Case& c : Rfc5869Cases()) {
    SCOPED_TRACE("RFC 5869 test case " + std::to_string(c.number));
    const Bytes ikm = H(c.ikm), salt = H(c.salt), info = H(c.info);
    auto prk = Hkdf(HkdfStep::kExtract, c.digest, ikm, salt, info, 0);
    ASSERT_TRUE(prk.ok()) << prk.error().message;
    EXPECT_EQ(Hex(*prk), c.prk);
    auto expanded = Hkdf(HkdfStep::kExpand, c.digest, H(c.prk), {}, info, c.length);
    ASSERT_TRUE(expanded.ok()) << expanded.error().message;
    EXPECT_EQ(Hex(*expanded), c.okm);
    auto both = Hkdf(HkdfStep::kExtractAndExpand, c.digest, ikm, salt, info, c.length);
    ASSERT_TRUE(both.ok()) << both.error().message;
    EXPECT_EQ(Hex(*both), c.okm);
  }
}

TEST(Hkdf, AgreesWithTheOpensslKdfCommand) {
  TempDir dir;
  const std::string key = "4b657920666f7220746865206b646620636f6d6d616e64";
  const std::string salt = "73616c74", info = "696e666f";
  for (DigestAlg digest : {DigestAlg::kSha224, DigestAlg::kSha384, DigestAlg::kSha512}) {
    const std::string name(FactsOf(digest).openssl_name);
    SCOPED_TRACE(name);
    const std::string out = dir.File(name);
    ASSERT_EQ(RunOpenssl({"kdf", "-keylen", "100", "-kdfopt", "digest:" + name, "-kdfopt",
                          "hexkey:" + key, "-kdfopt", "hexsalt:" + salt, "-kdfopt",
                          "hexinfo:" + info, "-binary", "-out", out, "HKDF"}),
              0);
    auto ours = Hkdf(HkdfStep::kExtractAndExpand, digest, H(key), H(salt), H(info), 100);
    ASSERT_TRUE(ours.ok()) << ours.error().message;
    EXPECT_EQ(Bytes(ours->begin(), ours->end()), ReadFile(out));
  }
}

TEST(Hkdf, RefusesWhatTheRfcDoesNotDefine) {
  const Bytes key(32, 1);
  EXPECT_EQ(Hkdf(HkdfStep::kExpand, DigestAlg::kNone, key, {}, {}, 32).error().code,
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(Hkdf(HkdfStep::kExpand, DigestAlg::kMd5, key, {}, {}, 32).error().code,
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(Hkdf(HkdfStep::kExpand, DigestAlg::kSha256, key, {}, {}, 0).error().code,
            CKR_MECHANISM_PARAM_INVALID);
  // 255 hash lengths is the most the expand step makes.
  EXPECT_TRUE(Hkdf(HkdfStep::kExpand, DigestAlg::kSha256, key, {}, {}, 255 * 32).ok());
  EXPECT_EQ(Hkdf(HkdfStep::kExpand, DigestAlg::kSha256, key, {}, {}, 255 * 32 + 1).error().code,
            CKR_MECHANISM_PARAM_INVALID);
  const Bytes long_info(kMaxHkdfInfoBytes + 1, 7);
  EXPECT_EQ(Hkdf(HkdfStep::kExpand, DigestAlg::kSha256, key, {}, long_info, 32).error().code,
            CKR_MECHANISM_PARAM_INVALID);
}

}  // namespace
}  // namespace signet::crypto
