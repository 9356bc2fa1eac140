#include "crypto/bulk_cipher.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "base/hex.h"
#include "crypto/symmetric.h"

namespace signet::crypto {
namespace {

Bytes EncryptWhole(BulkCipherAlg alg, const Bytes& key, const Bytes& iv, const Bytes& pt) {
  auto cipher = BulkCipher::Create(alg, key, iv);
  EXPECT_TRUE(cipher.ok());
  Bytes out(pt.size());
  EXPECT_TRUE(cipher->Update(pt, out).ok());
  auto tag = cipher->Finish();
  EXPECT_TRUE(tag.ok());
  out.insert(out.end(), tag->begin(), tag->end());
  return out;
}

// NIST SP 800-38A F.5.1, first two blocks (also what `openssl enc
// -aes-128-ctr` prints for them).
TEST(BulkCipher, Aes128CtrKnownAnswer) {
  const Bytes out = EncryptWhole(
      BulkCipherAlg::kAes128Ctr, FromHex("2b7e151628aed2a6abf7158809cf4f3c").value(),
      FromHex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff").value(),
      FromHex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51").value());
  EXPECT_EQ(ToHex(out), "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff");
}

// RFC 8439 section 2.4.2; OpenSSL's IV is the LE block counter || nonce.
TEST(BulkCipher, ChaCha20Rfc8439) {
  const std::string text =
      "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the "
      "future, sunscreen would be it.";
  const Bytes out = EncryptWhole(
      BulkCipherAlg::kChaCha20,
      FromHex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f").value(),
      FromHex("01000000000000000000004a00000000").value(), Bytes(text.begin(), text.end()));
  EXPECT_EQ(ToHex(out).substr(0, 64),
            "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b");
  EXPECT_EQ(ToHex(out).substr(ToHex(out).size() - 8), "5e42874d");
}

// McGrew-Viega GCM test case 14, and agreement with crypto::AesGcmEncrypt.
TEST(BulkCipher, Aes256GcmKnownAnswerAndTag) {
  const Bytes key(32, 0), iv(12, 0), pt(16, 0);
  const Bytes out = EncryptWhole(BulkCipherAlg::kAes256Gcm, key, iv, pt);
  EXPECT_EQ(ToHex(out), "cea7403d4d606b6e074ec5d3baf39d18d0d1c8a799996bf0265b98b5d48ab919");
  auto reference = AesGcmEncrypt(key, iv, {}, pt);
  ASSERT_TRUE(reference.ok());
  EXPECT_EQ(*reference, out);
}

// Streaming in odd-sized pieces, in place, then Reset gives the one-shot
// result again for every algorithm.
TEST(BulkCipher, PiecewiseInPlaceAndResetMatchOneShot) {
  for (auto alg :
       {BulkCipherAlg::kAes128Ctr, BulkCipherAlg::kAes256Gcm, BulkCipherAlg::kChaCha20}) {
    SCOPED_TRACE(std::string(BulkCipherName(alg)));
    const Bytes key(BulkCipherKeySize(alg), 7), iv(BulkCipherIvSize(alg), 3);
    Bytes pt(1000);
    for (std::size_t i = 0; i < pt.size(); ++i) pt[i] = static_cast<std::uint8_t>(i * 31);
    const Bytes expected = EncryptWhole(alg, key, iv, pt);

    auto cipher = BulkCipher::Create(alg, key, iv);
    ASSERT_TRUE(cipher.ok());
    for (int round = 0; round < 2; ++round) {
      Bytes buf = pt;
      for (std::size_t off = 0; off < buf.size(); off += 77) {
        const std::size_t len = std::min<std::size_t>(77, buf.size() - off);
        std::span<std::uint8_t> piece(buf.data() + off, len);
        ASSERT_TRUE(cipher->Update(piece, piece).ok());
      }
      auto tag = cipher->Finish();
      ASSERT_TRUE(tag.ok());
      buf.insert(buf.end(), tag->begin(), tag->end());
      EXPECT_EQ(buf, expected) << "round " << round;
      ASSERT_TRUE(cipher->Reset(iv).ok());
    }
  }
}

TEST(BulkCipher, RejectsBadSizes) {
  auto bad_key = BulkCipher::Create(BulkCipherAlg::kAes128Ctr, Bytes(32), Bytes(16));
  ASSERT_FALSE(bad_key.ok());
  EXPECT_EQ(bad_key.error().code, CKR_KEY_SIZE_RANGE);
  auto bad_iv = BulkCipher::Create(BulkCipherAlg::kChaCha20, Bytes(32), Bytes(12));
  ASSERT_FALSE(bad_iv.ok());
  EXPECT_EQ(bad_iv.error().code, CKR_MECHANISM_PARAM_INVALID);
  auto cipher = BulkCipher::Create(BulkCipherAlg::kAes256Gcm, Bytes(32), Bytes(12));
  ASSERT_TRUE(cipher.ok());
  Bytes in(10), out(5);
  EXPECT_EQ(cipher->Update(in, out).error().code, CKR_BUFFER_TOO_SMALL);
  EXPECT_EQ(cipher->Reset(Bytes(16)).error().code, CKR_MECHANISM_PARAM_INVALID);
}

}  // namespace
}  // namespace signet::crypto
