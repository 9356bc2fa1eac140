#include "crypto/aes_modes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "base/hex.h"
#include "crypto/crypto_test_util.h"

namespace signet::crypto {
namespace {

// Unhex: a test vector's bytes (the vectors below are well-formed hex).
Bytes Unhex(std::string_view hex) { return FromHex(hex).value(); }

// NIST SP 800-38A appendix F: the four plaintext blocks every example uses.
constexpr const char* kSp800Plain =
    "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
    "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
constexpr const char* kAes128Key = "2b7e151628aed2a6abf7158809cf4f3c";

struct ModeVector {
  const char* name;
  AesMode mode;
  const char* key;
  const char* iv;
  const char* ciphertext;
};

const ModeVector kSp800Vectors[] = {
    {"F.1.1 ECB-AES128", AesMode::kEcb, kAes128Key, "",
     "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"
     "43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4"},
    {"F.2.1 CBC-AES128", AesMode::kCbc, kAes128Key, "000102030405060708090a0b0c0d0e0f",
     "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
     "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7"},
    {"F.2.5 CBC-AES256", AesMode::kCbc,
     "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
     "000102030405060708090a0b0c0d0e0f",
     "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d"
     "39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b"},
    {"F.5.1 CTR-AES128", AesMode::kCtr, kAes128Key, "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
     "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
     "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee"},
};

TEST(AesModes, Sp800_38aKnownAnswers) {
  for (const ModeVector& v : kSp800Vectors) {
    SCOPED_TRACE(v.name);
    const Bytes key = Unhex(v.key), iv = Unhex(v.iv), plain = Unhex(kSp800Plain);
    Result<Bytes> enc = AesEncrypt(v.mode, key, {iv}, plain);
    ASSERT_TRUE(enc.ok()) << enc.error().message;
    EXPECT_EQ(ToHex(*enc), v.ciphertext);
    Result<SecureBytes> dec = AesDecrypt(v.mode, key, {iv}, *enc);
    ASSERT_TRUE(dec.ok()) << dec.error().message;
    EXPECT_EQ(Bytes(dec->begin(), dec->end()), plain);
  }
}

TEST(AesModes, CbcPadAddsAWholeBlockToAlignedInputAndChecksItsPadding) {
  const Bytes key = Unhex(kAes128Key), iv = Unhex("000102030405060708090a0b0c0d0e0f");
  const Bytes plain = Unhex(kSp800Plain);
  Result<Bytes> enc = AesEncrypt(AesMode::kCbcPad, key, {iv}, plain);
  ASSERT_TRUE(enc.ok());
  // The first 64 bytes are plain CBC (SP 800-38A F.2.1); PKCS#7 adds a block.
  ASSERT_EQ(enc->size(), 80u);
  EXPECT_EQ(ToHex(ByteView(*enc).first(16)), "7649abac8119b246cee98e9b12e9197d");
  for (std::size_t size : {0u, 1u, 15u, 17u, 4096u}) {
    Bytes message(size, 0x42);
    Result<Bytes> c = AesEncrypt(AesMode::kCbcPad, key, {iv}, message);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c->size(), (size / 16 + 1) * 16);
    Result<SecureBytes> d = AesDecrypt(AesMode::kCbcPad, key, {iv}, *c);
    ASSERT_TRUE(d.ok()) << size;
    EXPECT_EQ(Bytes(d->begin(), d->end()), message);
  }
  // The last block decrypts to garbage padding under another IV's chain.
  Bytes tampered = *enc;
  tampered[tampered.size() - 1] ^= 0x01;
  EXPECT_EQ(AesDecrypt(AesMode::kCbcPad, key, {iv}, tampered).error().code,
            CKR_ENCRYPTED_DATA_INVALID);
  EXPECT_EQ(AesDecrypt(AesMode::kCbcPad, key, {iv}, Bytes{}).error().code,
            CKR_ENCRYPTED_DATA_LEN_RANGE);
}

TEST(AesModes, LengthsKeysAndIvsAreChecked) {
  const Bytes key = Unhex(kAes128Key), iv(16, 0);
  EXPECT_EQ(AesEncrypt(AesMode::kCbc, key, {iv}, Bytes(15)).error().code, CKR_DATA_LEN_RANGE);
  EXPECT_EQ(AesEncrypt(AesMode::kEcb, key, {}, Bytes(17)).error().code, CKR_DATA_LEN_RANGE);
  EXPECT_EQ(AesDecrypt(AesMode::kCbc, key, {iv}, Bytes(20)).error().code,
            CKR_ENCRYPTED_DATA_LEN_RANGE);
  EXPECT_EQ(AesEncrypt(AesMode::kCbc, Bytes(20), {iv}, Bytes(16)).error().code, CKR_KEY_SIZE_RANGE);
  EXPECT_EQ(AesEncrypt(AesMode::kCbc, key, {Bytes(8)}, Bytes(16)).error().code,
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(AesEncrypt(AesMode::kEcb, key, {iv}, Bytes(16)).error().code,
            CKR_MECHANISM_PARAM_INVALID);
  // CTR takes any length.
  EXPECT_TRUE(AesEncrypt(AesMode::kCtr, key, {iv}, Bytes(17)).ok());
}

TEST(AesModes, CtrRefusesInputThatWouldWrapTheCounter) {
  const Bytes key = Unhex(kAes128Key);
  // An 8-bit counter at 0xfe has two values left: 32 bytes fit, 33 do not.
  Bytes block(16, 0);
  block[15] = 0xfe;
  EXPECT_TRUE(AesEncrypt(AesMode::kCtr, key, {block, 8}, Bytes(32)).ok());
  EXPECT_EQ(AesEncrypt(AesMode::kCtr, key, {block, 8}, Bytes(33)).error().code, CKR_DATA_LEN_RANGE);
  EXPECT_EQ(AesDecrypt(AesMode::kCtr, key, {block, 8}, Bytes(33)).error().code, CKR_DATA_LEN_RANGE);
  // Bits above the counter do not count: 0x01fe with 8 bits is still 0xfe.
  block[14] = 0x01;
  EXPECT_EQ(AesEncrypt(AesMode::kCtr, key, {block, 8}, Bytes(33)).error().code, CKR_DATA_LEN_RANGE);
  // A 128-bit counter at its maximum has one block left.
  const Bytes all_ones(16, 0xff);
  EXPECT_TRUE(AesEncrypt(AesMode::kCtr, key, {all_ones, 128}, Bytes(16)).ok());
  EXPECT_EQ(AesEncrypt(AesMode::kCtr, key, {all_ones, 128}, Bytes(17)).error().code,
            CKR_DATA_LEN_RANGE);
  for (std::size_t bits : {0u, 129u}) {
    EXPECT_EQ(AesEncrypt(AesMode::kCtr, key, {block, bits}, Bytes(1)).error().code,
              CKR_MECHANISM_PARAM_INVALID);
  }
}

TEST(AesKeyWrap, Rfc3394KnownAnswers) {
  struct Vector {
    const char* name;
    const char* kek;
    const char* key;
    const char* wrapped;
  };
  const Vector vectors[] = {
      {"4.1 128-bit KEK, 128-bit key", "000102030405060708090a0b0c0d0e0f",
       "00112233445566778899aabbccddeeff", "1fa68b0a8112b447aef34bd8fb5a7b829d3e862371d2cfe5"},
      {"4.6 256-bit KEK, 256-bit key",
       "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
       "00112233445566778899aabbccddeeff000102030405060708090a0b0c0d0e0f",
       "28c9f404c4b810f4cbccb35cfb87f8263f5786e2d80ed326cbc7f0e71a99f43bfb988b9b7a02dd21"},
  };
  for (const Vector& v : vectors) {
    SCOPED_TRACE(v.name);
    Result<Bytes> wrapped = AesKeyWrap(Unhex(v.kek), {}, false, Unhex(v.key));
    ASSERT_TRUE(wrapped.ok()) << wrapped.error().message;
    EXPECT_EQ(ToHex(*wrapped), v.wrapped);
    Result<SecureBytes> key = AesKeyUnwrap(Unhex(v.kek), {}, false, *wrapped);
    ASSERT_TRUE(key.ok());
    EXPECT_EQ(ToHex(Bytes(key->begin(), key->end())), v.key);
    // RFC 3394's default IV, given explicitly, is the same wrap.
    EXPECT_EQ(*AesKeyWrap(Unhex(v.kek), Unhex("a6a6a6a6a6a6a6a6"), false, Unhex(v.key)), *wrapped);
    Bytes tampered = *wrapped;
    tampered[3] ^= 0x80;
    EXPECT_EQ(AesKeyUnwrap(Unhex(v.kek), {}, false, tampered).error().code,
              CKR_WRAPPED_KEY_INVALID);
  }
  const Bytes kek(16, 7);
  EXPECT_EQ(AesKeyWrap(kek, {}, false, Bytes(20)).error().code, CKR_KEY_SIZE_RANGE);
  EXPECT_EQ(AesKeyWrap(kek, {}, false, Bytes(8)).error().code, CKR_KEY_SIZE_RANGE);
  EXPECT_EQ(AesKeyWrap(Bytes(10), {}, false, Bytes(16)).error().code, CKR_WRAPPING_KEY_SIZE_RANGE);
  EXPECT_EQ(AesKeyWrap(kek, Bytes(4), false, Bytes(16)).error().code, CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(AesKeyUnwrap(kek, {}, false, Bytes(20)).error().code, CKR_WRAPPED_KEY_LEN_RANGE);
}

TEST(AesKeyWrap, Pkcs7PaddedWrapIsRfc3394OverThePaddedKey) {
  const Bytes kek = Unhex("000102030405060708090a0b0c0d0e0f");
  for (std::size_t size : {8u, 9u, 15u, 16u, 20u, 32u, 1217u}) {
    Bytes key(size);
    for (std::size_t i = 0; i < size; ++i) key[i] = static_cast<std::uint8_t>(i * 7);
    Result<Bytes> wrapped = AesKeyWrap(kek, {}, true, key);
    ASSERT_TRUE(wrapped.ok()) << size;
    // Independently: PKCS#7-pad to 8 bytes, then plain RFC 3394.
    Bytes padded = key;
    padded.insert(padded.end(), 8 - size % 8, static_cast<std::uint8_t>(8 - size % 8));
    EXPECT_EQ(*wrapped, *AesKeyWrap(kek, {}, false, padded)) << size;
    Result<SecureBytes> back = AesKeyUnwrap(kek, {}, true, *wrapped);
    ASSERT_TRUE(back.ok()) << size;
    EXPECT_EQ(Bytes(back->begin(), back->end()), key);
  }
  // A wrap whose last byte is not valid padding does not unwrap as padded.
  Bytes bad_padding(16, 0x00);
  Result<Bytes> wrapped = AesKeyWrap(kek, {}, false, bad_padding);
  ASSERT_TRUE(wrapped.ok());
  EXPECT_EQ(AesKeyUnwrap(kek, {}, true, *wrapped).error().code, CKR_WRAPPED_KEY_INVALID);
}

// RunInParts feeds `in` to a multi-part operation `part` bytes at a time
// and returns everything it released, Finish's output included.
Result<Bytes> RunInParts(Result<std::unique_ptr<MultiPart>> started, ByteView in,
                         std::size_t part) {
  if (!started.ok()) return started.error();
  MultiPart& op = **started;
  Bytes out;
  for (std::size_t at = 0; at < in.size(); at += part) {
    Result<SecureBytes> got = op.Update(in.subspan(at, std::min(part, in.size() - at)));
    if (!got.ok()) return got.error();
    out.insert(out.end(), got->begin(), got->end());
  }
  Result<SecureBytes> last = op.Finish();
  if (!last.ok()) return last.error();
  out.insert(out.end(), last->begin(), last->end());
  return out;
}

// The SP 800-38A vectors again, fed in parts of every awkward size: the
// parts' outputs joined are the one-shot output, both ways.
TEST(AesModes, MultiPartGivesTheKnownAnswersForAnySplit) {
  for (const ModeVector& v : kSp800Vectors) {
    const Bytes key = Unhex(v.key), iv = Unhex(v.iv), plain = Unhex(kSp800Plain);
    for (std::size_t part : {1u, 7u, 16u, 17u, 64u}) {
      SCOPED_TRACE(std::string(v.name) + " part " + std::to_string(part));
      Result<Bytes> enc = RunInParts(StartAes(v.mode, key, {iv}, true), plain, part);
      ASSERT_TRUE(enc.ok()) << enc.error().message;
      EXPECT_EQ(ToHex(*enc), v.ciphertext);
      Result<Bytes> dec = RunInParts(StartAes(v.mode, key, {iv}, false), *enc, part);
      ASSERT_TRUE(dec.ok()) << dec.error().message;
      EXPECT_EQ(*dec, plain);
    }
  }
  // CBC_PAD holds back the last block until Finish, in both directions.
  const Bytes key = Unhex(kAes128Key), iv(16, 7), message(100, 0x5a);
  Result<Bytes> one_shot = AesEncrypt(AesMode::kCbcPad, key, {iv}, message);
  ASSERT_TRUE(one_shot.ok());
  EXPECT_EQ(RunInParts(StartAes(AesMode::kCbcPad, key, {iv}, true), message, 9).value(), *one_shot);
  EXPECT_EQ(RunInParts(StartAes(AesMode::kCbcPad, key, {iv}, false), *one_shot, 5).value(),
            message);
}

TEST(AesModes, MultiPartChecksLengthsAtFinishAndTheCounterAtEachPart) {
  const Bytes key = Unhex(kAes128Key), iv(16, 0);
  EXPECT_EQ(RunInParts(StartAes(AesMode::kCbc, key, {iv}, true), Bytes(20), 8).error().code,
            CKR_DATA_LEN_RANGE);
  EXPECT_EQ(RunInParts(StartAes(AesMode::kEcb, key, {}, false), Bytes(31), 16).error().code,
            CKR_ENCRYPTED_DATA_LEN_RANGE);
  EXPECT_EQ(RunInParts(StartAes(AesMode::kCbcPad, key, {iv}, false), Bytes{}, 16).error().code,
            CKR_ENCRYPTED_DATA_LEN_RANGE);
  // An 8-bit counter at 0xfe has two blocks left: the part that needs a
  // third is refused, the earlier parts went through.
  Bytes block(16, 0);
  block[15] = 0xfe;
  Result<std::unique_ptr<MultiPart>> ctr = StartAes(AesMode::kCtr, key, {block, 8}, true);
  ASSERT_TRUE(ctr.ok());
  EXPECT_EQ((*ctr)->Update(Bytes(20)).value().size(), 20u);
  EXPECT_EQ((*ctr)->Update(Bytes(12)).value().size(), 12u);
  EXPECT_EQ((*ctr)->Update(Bytes(1)).error().code, CKR_DATA_LEN_RANGE);
  EXPECT_EQ(StartAes(AesMode::kCbc, key, {Bytes(15)}, true).error().code,
            CKR_MECHANISM_PARAM_INVALID);
}

// NIST SP 800-67 Rev. 1 appendix B: TDEA ECB with three keys over
// "The qufck brown fox jump".
TEST(TripleDes, Sp800_67KnownAnswer) {
  const Bytes key = Unhex("0123456789abcdef23456789abcdef01456789abcdef0123");
  const Bytes plain = Unhex("54686520717566636b2062726f776e20666f78206a756d70");
  Result<Bytes> enc = BlockEncrypt(BlockCipher::kDes, BlockMode::kEcb, key, {}, plain);
  ASSERT_TRUE(enc.ok()) << enc.error().message;
  EXPECT_EQ(ToHex(*enc), "a826fd8ce53b855fcce21c8112256fe668d5c05dd9b6b900");
  Result<SecureBytes> dec = BlockDecrypt(BlockCipher::kDes, BlockMode::kEcb, key, {}, *enc);
  ASSERT_TRUE(dec.ok()) << dec.error().message;
  EXPECT_EQ(Bytes(dec->begin(), dec->end()), plain);
}

// NIST SP 800-20 table A.1 (variable plaintext known answers, every key
// 0101...01, so K1 = K2 = K3 and TDEA is single DES), first entries.
TEST(TripleDes, Sp800_20VariablePlaintextKnownAnswers) {
  const Bytes key = Unhex("010101010101010101010101010101010101010101010101");
  const std::pair<const char*, const char*> vectors[] = {
      {"8000000000000000", "95f8a5e5dd31d900"},
      {"4000000000000000", "dd7f121ca5015619"},
  };
  for (const auto& [plain, cipher] : vectors) {
    Result<Bytes> enc = BlockEncrypt(BlockCipher::kDes, BlockMode::kEcb, key, {}, Unhex(plain));
    ASSERT_TRUE(enc.ok()) << enc.error().message;
    EXPECT_EQ(ToHex(*enc), cipher);
    // Two-key triple DES with K1 = K2 is the same single DES.
    Result<Bytes> two_key =
        BlockEncrypt(BlockCipher::kDes, BlockMode::kEcb, ByteView(key).first(16), {}, Unhex(plain));
    ASSERT_TRUE(two_key.ok());
    EXPECT_EQ(ToHex(*two_key), cipher);
  }
}

TEST(TripleDes, TwoKeyIsThreeKeyWithK3EqualToK1) {
  const Bytes k12 = Unhex("0123456789abcdef23456789abcdef01");
  Bytes k121 = k12;
  k121.insert(k121.end(), k12.begin(), k12.begin() + 8);
  const Bytes iv = Unhex("0001020304050607");
  const Bytes plain = Unhex("00112233445566778899aabbccddeeff0011");
  Result<Bytes> two = BlockEncrypt(BlockCipher::kDes, BlockMode::kCbcPad, k12, {iv}, plain);
  Result<Bytes> three = BlockEncrypt(BlockCipher::kDes, BlockMode::kCbcPad, k121, {iv}, plain);
  ASSERT_TRUE(two.ok() && three.ok());
  EXPECT_EQ(*two, *three);
  EXPECT_EQ(two->size(), 24u);  // 18 bytes padded to three 8-byte blocks
}

// CBC_PAD equals `openssl enc -des-ede3-cbc` (PKCS#7 padding) both ways.
TEST(TripleDes, CbcPadAgreesWithOpenSslEncBothWays) {
  testing::TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string key_hex = "9e2ff7a1d0b1c4e3f80d5b6a7c1e2f3a4b5c6d7e8f901a2b";
  const std::string iv_hex = "a1b2c3d4e5f60718";
  const Bytes key = Unhex(key_hex), iv = Unhex(iv_hex);
  Bytes plain(1000);
  for (std::size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<std::uint8_t>(i * 31 + 7);
  testing::WriteFile(dir.File("plain"), plain);
  ASSERT_EQ(testing::RunOpenssl({"enc", "-des-ede3-cbc", "-K", key_hex, "-iv", iv_hex, "-in",
                                 dir.File("plain"), "-out", dir.File("openssl.enc")}),
            0);
  Result<Bytes> ours = BlockEncrypt(BlockCipher::kDes, BlockMode::kCbcPad, key, {iv}, plain);
  ASSERT_TRUE(ours.ok()) << ours.error().message;
  EXPECT_EQ(*ours, testing::ReadFile(dir.File("openssl.enc")));
  // The other way: openssl decrypts what signet encrypted.
  testing::WriteFile(dir.File("ours.enc"), *ours);
  ASSERT_EQ(testing::RunOpenssl({"enc", "-d", "-des-ede3-cbc", "-K", key_hex, "-iv", iv_hex, "-in",
                                 dir.File("ours.enc"), "-out", dir.File("openssl.dec")}),
            0);
  EXPECT_EQ(testing::ReadFile(dir.File("openssl.dec")), plain);
  Result<SecureBytes> dec = BlockDecrypt(BlockCipher::kDes, BlockMode::kCbcPad, key, {iv},
                                         testing::ReadFile(dir.File("openssl.enc")));
  ASSERT_TRUE(dec.ok()) << dec.error().message;
  EXPECT_EQ(Bytes(dec->begin(), dec->end()), plain);
}

TEST(TripleDes, RefusesWhatItCannotDo) {
  const Bytes key(24, 0x5b), iv(8, 1);
  const Bytes block(8, 2);
  EXPECT_EQ(BlockEncrypt(BlockCipher::kDes, BlockMode::kEcb, Bytes(12, 1), {}, block).error().code,
            CKR_KEY_SIZE_RANGE);
  EXPECT_EQ(BlockEncrypt(BlockCipher::kDes, BlockMode::kEcb, Bytes(32, 1), {}, block).error().code,
            CKR_KEY_SIZE_RANGE);
  EXPECT_EQ(
      BlockEncrypt(BlockCipher::kDes, BlockMode::kCbc, key, {Bytes(16, 1)}, block).error().code,
      CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(
      BlockEncrypt(BlockCipher::kDes, BlockMode::kCtr, key, {Bytes(8, 1)}, block).error().code,
      CKR_MECHANISM_INVALID);
  EXPECT_EQ(BlockEncrypt(BlockCipher::kDes, BlockMode::kCbc, key, {iv}, Bytes(12, 1)).error().code,
            CKR_DATA_LEN_RANGE);
  EXPECT_EQ(
      BlockDecrypt(BlockCipher::kDes, BlockMode::kCbcPad, key, {iv}, Bytes(12, 1)).error().code,
      CKR_ENCRYPTED_DATA_LEN_RANGE);
  // An 8-byte block is whole for triple DES (not for AES).
  EXPECT_TRUE(BlockEncrypt(BlockCipher::kDes, BlockMode::kCbc, key, {iv}, block).ok());
}

}  // namespace
}  // namespace signet::crypto
