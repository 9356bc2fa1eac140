#include "crypto/mac.h"

#include <gtest/gtest.h>

#include <string>

#include "base/hex.h"
#include "crypto/key_check_value.h"

namespace signet::crypto {
namespace {

Bytes Unhex(std::string_view hex) { return FromHex(hex).value(); }
Bytes Text(std::string_view text) {
  const ByteView view = AsBytes(text);
  return Bytes(view.begin(), view.end());
}
Bytes Repeat(std::uint8_t byte, std::size_t n) { return Bytes(n, byte); }
Bytes Counting(std::size_t n) {  // 0x01, 0x02, ... n
  Bytes out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(i + 1);
  return out;
}

std::string MacHex(const MacAlg& alg, ByteView key, ByteView data) {
  Result<SecureBytes> mac = Mac(alg, key, data);
  if (!mac.ok()) return "error: " + mac.error().message;
  return ToHex(*mac);
}

// RFC 4231 section 4: the seven test cases' keys and data, and each case's
// HMAC-SHA-224/256/384/512. Case 5's outputs are truncated to 128 bits, as
// the RFC publishes them.
struct Rfc4231Case {
  Bytes key;
  Bytes data;
  const char* sha224;
  const char* sha256;
  const char* sha384;
  const char* sha512;
};

std::vector<Rfc4231Case> Rfc4231Cases() {
  const Bytes big_key = Repeat(0xaa, 131);
  return {
      {Repeat(0x0b, 20), Text("Hi There"),
       "896fb1128abbdf196832107cd49df33f47b4b1169912ba4f53684b22",
       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
       "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59c"
       "faea9ea9076ede7f4af152e8b2fa9cb6",
       "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cde"
       "daa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854"},
      {Text("Jefe"), Text("what do ya want for nothing?"),
       "a30e01098bc6dbbf45690f3a7e9e6d0f8bbea2a39e6148008fd05e44",
       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
       "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e"
       "8e2240ca5e69e2c78b3239ecfab21649",
       "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
       "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"},
      {Repeat(0xaa, 20), Repeat(0xdd, 50),
       "7fb3cb3588c6c1f6ffa9694d7d6ad2649365b0c1f65d69d1ec8333ea",
       "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
       "88062608d3e6ad8a0aa2ace014c8a86f0aa635d947ac9febe83ef4e55966144b"
       "2a5ab39dc13814b94e3ab6e101a34f27",
       "fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39"
       "bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb"},
      {Counting(25), Repeat(0xcd, 50), "6c11506874013cac6a2abc1bb382627cec6a90d86efc012de7afec5a",
       "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
       "3e8a69b7783c25851933ab6290af6ca77a9981480850009cc5577c6e1f573b4e"
       "6801dd23c4a7d679ccf8a386c674cffb",
       "b0ba465637458c6990e5a8c5f61d4af7e576d97ff94b872de76f8050361ee3db"
       "a91ca5c11aa25eb4d679275cc5788063a5f19741120c4f2de2adebeb10a298dd"},
      {Repeat(0x0c, 20), Text("Test With Truncation"), "0e2aea68a90c8d37c988bcdb9fca6fa8",
       "a3b6167473100ee06e0c796c2955552b", "3abf34c3503b2a23a46efc619baef897",
       "415fad6271580a531d4179bc891d87a6"},
      {big_key, Text("Test Using Larger Than Block-Size Key - Hash Key First"),
       "95e9a0db962095adaebe9b2d6f0dbce2d499f112f2d2b7273fa6870e",
       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
       "4ece084485813e9088d2c63a041bc5b44f9ef1012a2b588f3cd11f05033ac4c6"
       "0c2ef6ab4030fe8296248df163f44952",
       "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f352"
       "6b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598"},
      {big_key,
       Text("This is a test using a larger than block-size key and a larger than block-size "
            "data. The key needs to be hashed before being used by the HMAC algorithm."),
       "3a854166ac5d9f023f54d517d0b39dbd946770db9c2b95c9f6f565d1",
       "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
       "6617178e941f020d351e2f254e8fd32c602420feb0b8fb9adccebb82461e99c5"
       "a678cc31e799176d3860e6110c46523e",
       "e37b6a775dc87dbaa4dfa9f96e5e3ffddebd71f8867289865df5a32d20cdc944"
       "b6022cac3c4982b10d5eeb55c3e4de15134676fb6de0446065c97440fa8c6a58"},
  };
}

// Truncated: the first hex.size()/2 bytes of the MAC (case 5 publishes 128 bits).
std::string Truncated(const MacAlg& alg, const Rfc4231Case& c, std::string_view want) {
  return MacHex(alg, c.key, c.data).substr(0, want.size());
}

TEST(Mac, Rfc4231HmacSha2KnownAnswers) {
  int number = 0;
  for (const Rfc4231Case& c : Rfc4231Cases()) {
    SCOPED_TRACE("RFC 4231 test case " + std::to_string(++number));
    EXPECT_EQ(Truncated({MacKind::kHmac, DigestAlg::kSha224}, c, c.sha224), c.sha224);
    EXPECT_EQ(Truncated({MacKind::kHmac, DigestAlg::kSha256}, c, c.sha256), c.sha256);
    EXPECT_EQ(Truncated({MacKind::kHmac, DigestAlg::kSha384}, c, c.sha384), c.sha384);
    EXPECT_EQ(Truncated({MacKind::kHmac, DigestAlg::kSha512}, c, c.sha512), c.sha512);
  }
  // Case 5 is the only truncated one: the full outputs are longer.
  const Rfc4231Case c5 = Rfc4231Cases()[4];
  EXPECT_EQ(MacHex({MacKind::kHmac, DigestAlg::kSha256}, c5.key, c5.data).size(), 64u);
}

// RFC 2202 sections 2 and 3: HMAC-MD5 and HMAC-SHA-1.
TEST(Mac, Rfc2202HmacMd5AndSha1KnownAnswers) {
  struct Case {
    Bytes key_md5, key_sha1, data;
    const char* md5;
    const char* sha1;
  };
  const Bytes big_key = Repeat(0xaa, 80);
  const Case cases[] = {
      {Repeat(0x0b, 16), Repeat(0x0b, 20), Text("Hi There"), "9294727a3638bb1c13f48ef8158bfc9d",
       "b617318655057264e28bc0b6fb378c8ef146be00"},
      {Text("Jefe"), Text("Jefe"), Text("what do ya want for nothing?"),
       "750c783e6ab0b503eaa86e310a5db738", "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"},
      {Repeat(0xaa, 16), Repeat(0xaa, 20), Repeat(0xdd, 50), "56be34521d144c88dbb8c733f0e8b3f6",
       "125d7342b9ac11cd91a39af48aa17b4f63f175d3"},
      {Counting(25), Counting(25), Repeat(0xcd, 50), "697eaf0aca3a3aea3a75164746ffaa79",
       "4c9007f4026250c6bc8414f9bf50c86c2d7235da"},
      {Repeat(0x0c, 16), Repeat(0x0c, 20), Text("Test With Truncation"),
       "56461ef2342edc00f9bab995690efd4c", "4c1a03424b55e07fe7f27be1d58bb9324a9a5a04"},
      {big_key, big_key, Text("Test Using Larger Than Block-Size Key - Hash Key First"),
       "6b1ab7fe4bd7bf8f0b62e6ce61b9d0cd", "aa4ae5e15272d00e95705637ce8a3b55ed402112"},
      {big_key, big_key,
       Text("Test Using Larger Than Block-Size Key and Larger Than One Block-Size Data"),
       "6f630fad67cda0ee1fb1f562db3aa53e", "e8e99d0f45237d786d6bbaa7965c7808bbff1a91"},
  };
  int number = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE("RFC 2202 test case " + std::to_string(++number));
    EXPECT_EQ(MacHex({MacKind::kHmac, DigestAlg::kMd5}, c.key_md5, c.data), c.md5);
    EXPECT_EQ(MacHex({MacKind::kHmac, DigestAlg::kSha1}, c.key_sha1, c.data), c.sha1);
  }
}

// NIST SP 800-38B appendix D: AES-CMAC over 0, 16, 40 and 64 bytes of the
// SP 800-38A example plaintext, for AES-128, -192 and -256.
TEST(Mac, Sp800_38bAesCmacKnownAnswers) {
  const Bytes message = Unhex(
      "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
      "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710");
  struct Case {
    const char* key;
    const char* macs[4];  // message lengths 0, 16, 40, 64
  };
  const Case cases[] = {
      {"2b7e151628aed2a6abf7158809cf4f3c",
       {"bb1d6929e95937287fa37d129b756746", "070a16b46b4d4144f79bdd9dd04a287c",
        "dfa66747de9ae63030ca32611497c827", "51f0bebf7e3b9d92fc49741779363cfe"}},
      {"8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
       {"d17ddf46adaacde531cac483de7a9367", "9e99a7bf31e710900662f65e617c5184",
        "8a1de5be2eb31aad089a82e6ee908b0e", "a1d5df0eed790f794d77589659f39a11"}},
      {"603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
       {"028962f61b7bf89efc6b551f4667d983", "28a7023f452e8f82bd4bf28d8c37c35c",
        "aaf3d8f1de5640c232f5b169b9c911e6", "e1992190549f6ed5696a2c056c315410"}},
  };
  const std::size_t lengths[4] = {0, 16, 40, 64};
  for (const Case& c : cases) {
    for (int i = 0; i < 4; ++i) {
      SCOPED_TRACE(std::string(c.key) + " over " + std::to_string(lengths[i]) + " bytes");
      EXPECT_EQ(MacHex({MacKind::kCmac}, Unhex(c.key), ByteView(message).first(lengths[i])),
                c.macs[i]);
    }
  }
}

// NIST SP 800-38B appendix D.4 and D.5: TDEA CMAC over 0, 8, 20 and 32
// bytes, three-key and two-key (K3 = K1: the 16-byte CKK_DES2 form).
TEST(Mac, Sp800_38bTdeaCmacKnownAnswers) {
  const Bytes message = Unhex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51");
  struct Case {
    const char* key;
    const char* macs[4];  // message lengths 0, 8, 20, 32
  };
  const Case cases[] = {
      {"8aa83bf8cbda10620bc1bf19fbb6cd58bc313d4a371ca8b5",
       {"b7a688e122ffaf95", "8e8f293136283797", "743ddbe0ce2dc2ed", "33e6b1092400eae5"}},
      {"4cf15134a2850dd58a3d10ba80570d384cf15134a2850dd5",
       {"bd2ebf9a3ba00361", "4ff2ab813c53ce83", "62dd1b471902bd4e", "31b1e431dabc4eb8"}},
      {"4cf15134a2850dd58a3d10ba80570d38",
       {"bd2ebf9a3ba00361", "4ff2ab813c53ce83", "62dd1b471902bd4e", "31b1e431dabc4eb8"}},
  };
  const std::size_t lengths[4] = {0, 8, 20, 32};
  for (const Case& c : cases) {
    for (int i = 0; i < 4; ++i) {
      SCOPED_TRACE(std::string(c.key) + " over " + std::to_string(lengths[i]) + " bytes");
      EXPECT_EQ(MacHex({MacKind::kDes3Cmac}, Unhex(c.key), ByteView(message).first(lengths[i])),
                c.macs[i]);
    }
  }
  EXPECT_EQ(MacSize({MacKind::kDes3Cmac}), 8u);
  EXPECT_EQ(Mac({MacKind::kDes3Cmac}, Bytes(32, 1), Text("x")).error().code, CKR_KEY_SIZE_RANGE);
  EXPECT_EQ(Mac({MacKind::kDes3Cmac}, Bytes(8, 1), Text("x")).error().code, CKR_KEY_SIZE_RANGE);
}

TEST(Mac, StreamInPiecesEqualsOneShot) {
  const Rfc4231Case c = Rfc4231Cases()[6];
  for (const MacAlg& alg :
       {MacAlg{MacKind::kHmac, DigestAlg::kSha256}, MacAlg{MacKind::kCmac, DigestAlg::kNone}}) {
    const Bytes key = alg.kind == MacKind::kCmac ? Bytes(c.key.begin(), c.key.begin() + 32) : c.key;
    Result<MacStream> stream = MacStream::Start(alg, key);
    ASSERT_TRUE(stream.ok()) << stream.error().message;
    EXPECT_EQ(stream->size(), MacSize(alg));
    const ByteView data(c.data);
    // Uneven pieces, an empty one among them, across block boundaries.
    for (std::size_t at = 0, piece = 1; at < data.size(); at += piece, piece = piece * 3 + 1) {
      ASSERT_TRUE(stream->Update(data.subspan(at, std::min(piece, data.size() - at))).ok());
      ASSERT_TRUE(stream->Update({}).ok());
    }
    Result<SecureBytes> mac = stream->Finish();
    ASSERT_TRUE(mac.ok()) << mac.error().message;
    EXPECT_EQ(ToHex(*mac), MacHex(alg, key, c.data));
    // Finished: neither more data nor a second MAC.
    EXPECT_EQ(stream->Update(data).error().code, CKR_OPERATION_NOT_INITIALIZED);
    EXPECT_EQ(stream->Finish().error().code, CKR_OPERATION_NOT_INITIALIZED);
  }
}

TEST(Mac, RefusesKeysItCannotUse) {
  EXPECT_EQ(Mac({MacKind::kCmac}, Bytes(15, 1), Text("x")).error().code, CKR_KEY_SIZE_RANGE);
  EXPECT_EQ(Mac({MacKind::kCmac}, Bytes(33, 1), Text("x")).error().code, CKR_KEY_SIZE_RANGE);
  EXPECT_EQ(Mac({MacKind::kHmac, DigestAlg::kSha256}, {}, Text("x")).error().code,
            CKR_KEY_SIZE_RANGE);
  EXPECT_EQ(Mac({MacKind::kHmac, DigestAlg::kNone}, Bytes(16, 1), Text("x")).error().code,
            CKR_MECHANISM_INVALID);
}

// The check value of a generic secret is the start of its SHA-1 hash:
// SHA-1("abc") is a9993e36... (FIPS 180-2 appendix A).
TEST(GenericSecretCheckValue, IsTheFirstThreeBytesOfSha1) {
  Result<Bytes> check = GenericSecretCheckValue(Text("abc"));
  ASSERT_TRUE(check.ok());
  EXPECT_EQ(ToHex(*check), "a9993e");
}

}  // namespace
}  // namespace signet::crypto
