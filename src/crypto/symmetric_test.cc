#include "crypto/symmetric.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "base/hex.h"

namespace signet::crypto {
namespace {

// RFC 5649 section 6.
constexpr const char* kKwpKek = "5840df6e29b02af1ab493b705bf16ea1ae8338f4dcc176a8";
TEST(AesKeyWrapPad, Rfc5649Vectors) {
  const Bytes kek = FromHex(kKwpKek).value();
  const struct {
    const char* key;
    const char* wrapped;
  } vectors[] = {
      {"c37b7e6492584340bed12207808941155068f738",
       "138bdeaa9b8fa7fc61f97742e72248ee5ae6ae5360d1ae6a5f54f373fa543b6a"},
      {"466f7250617369", "afbeb0f07dfbf5419200f2ccb50bb24f"},
  };
  for (const auto& v : vectors) {
    auto wrapped = AesKeyWrapPad(kek, FromHex(v.key).value());
    ASSERT_TRUE(wrapped.ok());
    EXPECT_EQ(ToHex(*wrapped), v.wrapped);
    auto unwrapped = AesKeyUnwrapPad(kek, FromHex(v.wrapped).value());
    ASSERT_TRUE(unwrapped.ok());
    EXPECT_EQ(ToHex(*unwrapped), v.key);
  }
}

TEST(AesKeyWrapPad, TamperedBlobIsRejected) {
  const Bytes kek = FromHex(kKwpKek).value();
  Bytes wrapped =
      FromHex("138bdeaa9b8fa7fc61f97742e72248ee5ae6ae5360d1ae6a5f54f373fa543b6a").value();
  wrapped[5] ^= 1;
  auto unwrapped = AesKeyUnwrapPad(kek, wrapped);
  ASSERT_FALSE(unwrapped.ok());
  EXPECT_EQ(unwrapped.error().code, CKR_WRAPPED_KEY_INVALID);
}

TEST(AesKeyWrapPad, WrongKekIsRejected) {
  Bytes kek = FromHex(kKwpKek).value();
  auto wrapped = AesKeyWrapPad(kek, FromHex("466f7250617369").value());
  ASSERT_TRUE(wrapped.ok());
  kek[0] ^= 0x80;
  EXPECT_FALSE(AesKeyUnwrapPad(kek, *wrapped).ok());
}

TEST(AesKeyWrapPad, BadLengthsAreRejected) {
  const Bytes kek = FromHex(kKwpKek).value();
  EXPECT_EQ(AesKeyUnwrapPad(kek, Bytes(12)).error().code, CKR_WRAPPED_KEY_LEN_RANGE);
  EXPECT_EQ(AesKeyWrapPad(Bytes(15), Bytes(8)).error().code, CKR_WRAPPING_KEY_SIZE_RANGE);
}

// The GCM specification (McGrew & Viega), test case 16: AES-256 with AAD.
constexpr const char* kGcmKey = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308";
constexpr const char* kGcmIv = "cafebabefacedbaddecaf888";
constexpr const char* kGcmAad = "feedfacedeadbeeffeedfacedeadbeefabaddad2";
constexpr const char* kGcmPlain =
    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449"
    "a6b525b16aedf5aa0de657ba637b39";
constexpr const char* kGcmCipherAndTag =
    "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056"
    "828838c5f61e6393ba7a0abcc9f66276fc6ece0f4e1768cddf8853bb2d551b";

TEST(AesGcm, SpecTestCase16) {
  auto sealed = AesGcmEncrypt(FromHex(kGcmKey).value(), FromHex(kGcmIv).value(),
                              FromHex(kGcmAad).value(), FromHex(kGcmPlain).value());
  ASSERT_TRUE(sealed.ok());
  EXPECT_EQ(ToHex(*sealed), kGcmCipherAndTag);
  auto opened = AesGcmDecrypt(FromHex(kGcmKey).value(), FromHex(kGcmIv).value(),
                              FromHex(kGcmAad).value(), FromHex(kGcmCipherAndTag).value());
  ASSERT_TRUE(opened.ok());
  EXPECT_EQ(ToHex(*opened), kGcmPlain);
}

// Test case 16 in parts: the tag split across parts, decryption releasing
// nothing before Finish; a bad tag releases nothing at all.
TEST(AesGcm, MultiPartHoldsThePlaintextUntilTheTagChecksOut) {
  const Bytes key = FromHex(kGcmKey).value(), iv = FromHex(kGcmIv).value();
  const Bytes aad = FromHex(kGcmAad).value(), sealed = FromHex(kGcmCipherAndTag).value();
  const Bytes plain = FromHex(kGcmPlain).value();
  for (std::size_t part : {1u, 10u, 16u, 70u}) {
    SCOPED_TRACE(part);
    auto enc = StartAesGcm(key, iv, aad, kGcmTagSize, true);
    auto dec = StartAesGcm(key, iv, aad, kGcmTagSize, false);
    ASSERT_TRUE(enc.ok() && dec.ok());
    Bytes ct, pt;
    for (std::size_t at = 0; at < plain.size(); at += part) {
      auto out = (*enc)->Update(ByteView(plain).subspan(at, std::min(part, plain.size() - at)));
      ct.insert(ct.end(), out->begin(), out->end());
    }
    auto tag = (*enc)->Finish();
    ct.insert(ct.end(), tag->begin(), tag->end());
    EXPECT_EQ(ToHex(ct), kGcmCipherAndTag);
    for (std::size_t at = 0; at < sealed.size(); at += part) {
      auto out = (*dec)->Update(ByteView(sealed).subspan(at, std::min(part, sealed.size() - at)));
      ASSERT_TRUE(out.ok());
      EXPECT_TRUE(out->empty());
    }
    EXPECT_EQ((*dec)->HeldBytes(), sealed.size());
    auto opened = (*dec)->Finish();
    ASSERT_TRUE(opened.ok());
    EXPECT_EQ(Bytes(opened->begin(), opened->end()), plain);
  }
  Bytes tampered = sealed;
  tampered.back() ^= 1;
  auto dec = StartAesGcm(key, iv, aad, kGcmTagSize, false);
  ASSERT_TRUE((*dec)->Update(tampered).ok());
  EXPECT_EQ((*dec)->Finish().error().code, CKR_ENCRYPTED_DATA_INVALID);
  auto short_input = StartAesGcm(key, iv, aad, kGcmTagSize, false);
  ASSERT_TRUE((*short_input)->Update(Bytes(15)).ok());
  EXPECT_EQ((*short_input)->Finish().error().code, CKR_ENCRYPTED_DATA_LEN_RANGE);
}

TEST(AesGcm, TamperedAadOrTagIsRejected) {
  Bytes aad = FromHex(kGcmAad).value();
  aad[0] ^= 1;
  auto opened = AesGcmDecrypt(FromHex(kGcmKey).value(), FromHex(kGcmIv).value(), aad,
                              FromHex(kGcmCipherAndTag).value());
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code, CKR_ENCRYPTED_DATA_INVALID);
  Bytes sealed = FromHex(kGcmCipherAndTag).value();
  sealed.back() ^= 1;
  EXPECT_FALSE(AesGcmDecrypt(FromHex(kGcmKey).value(), FromHex(kGcmIv).value(),
                             FromHex(kGcmAad).value(), sealed)
                   .ok());
}

TEST(AesGcm, BadParametersAreRejected) {
  EXPECT_EQ(AesGcmEncrypt(Bytes(10), Bytes(12), {}, Bytes(1)).error().code, CKR_KEY_SIZE_RANGE);
  EXPECT_EQ(AesGcmEncrypt(Bytes(32), Bytes(12), {}, Bytes(1), 8).error().code,
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(AesGcmDecrypt(Bytes(32), Bytes(12), {}, Bytes(4)).error().code,
            CKR_ENCRYPTED_DATA_LEN_RANGE);
}

// RFC 7914 section 12, third vector.
TEST(Scrypt, Rfc7914Vector) {
  auto key = Scrypt(AsBytes("password"), AsBytes("NaCl"), ScryptParams{1024, 8, 16}, 64);
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(ToHex(*key),
            "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff1"
            "09279d9830dac727afb94a83ee6d8360cbdfa2cc0640");
}

TEST(Scrypt, RejectsNonPowerOfTwoCost) {
  EXPECT_EQ(Scrypt(AsBytes("p"), AsBytes("s"), ScryptParams{1000, 8, 1}, 32).error().code,
            CKR_ARGUMENTS_BAD);
}

TEST(Random, ProducesDistinctOutputs) {
  auto a = RandomBytes(32), b = RandomBytes(32);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE(EqualConstantTime(*a, *b));
  Bytes c(32, 0);
  ASSERT_TRUE(FillRandom(c).ok());
  EXPECT_NE(c, Bytes(32, 0));
}

}  // namespace
}  // namespace signet::crypto
