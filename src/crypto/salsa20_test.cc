#include "crypto/salsa20.h"

#include <gtest/gtest.h>

#include "base/hex.h"

namespace signet::crypto {
namespace {

// KeyStream returns `length` bytes of the Salsa20/12 key stream (zeros
// encrypted) of (`key_hex`, `nonce_hex`).
Bytes KeyStream(std::string_view key_hex, std::string_view nonce_hex, std::size_t length) {
  Bytes zeros(length, 0);
  Bytes out(length);
  const Status s = Salsa2012Xor(FromHex(key_hex).value(), FromHex(nonce_hex).value(), zeros, out);
  EXPECT_TRUE(s.ok()) << s.error().message;
  return out;
}

// eSTREAM's verified Salsa20/12 vectors (256-bit key), set 6 vector 0:
// stream[0..63] and stream[65472..65535], as libgcrypt's tests/basic.c
// carries them; the second block shows the 64-bit counter runs as eSTREAM's.
TEST(Salsa2012, EstreamSet6Vector0) {
  const Bytes stream = KeyStream("0053A6F94C9FF24598EB3E91E4378ADD3083D6297CCF2275C81B6EC11467BA0D",
                                 "0D74DB42A91077DE", 65536);
  EXPECT_EQ(ToHex(ByteView(stream).first(64)),
            "52e20cf8775ae882f200c2999fe4ba31a7a18f1d5c9716191d123175e147bd4e"
            "8ca6ed166ce0fc8e65a5ca608420fc6544c9700a0f2138e8c1a286fb8c1fbfa0");
  EXPECT_EQ(ToHex(ByteView(stream).last(64)),
            "8fbc9fe8691bd4f082b47f5405edfbc16f4d5a12ddcb2d754e8a9998d0b21955"
            "7dfe2984f4a1d2dda76b9596928cce0556f50066cd599e44ef5c14b226683aef");
}

// eSTREAM set 1 vector 0 (key 80 00 .. 00, nonce 0): the first 8 bytes.
TEST(Salsa2012, EstreamSet1Vector0) {
  EXPECT_EQ(ToHex(KeyStream("80" + std::string(62, '0'), "0000000000000000", 8)),
            "afe411ed1c4e07e4");
}

TEST(Salsa2012, InPlaceRoundTripAndBadLengths) {
  const Bytes key(kSalsa2012KeyBytes, 7), nonce(kSalsa2012NonceBytes, 9);
  Bytes text = {'s', 'e', 'e', 'd', ' ', '0', '0', '2'};
  const Bytes plain = text;
  ASSERT_TRUE(Salsa2012Xor(key, nonce, text, text).ok());
  EXPECT_NE(text, plain);
  ASSERT_TRUE(Salsa2012Xor(key, nonce, text, text).ok());
  EXPECT_EQ(text, plain);
  Bytes out(8);
  EXPECT_EQ(Salsa2012Xor(Bytes(16), nonce, plain, out).error().code, CKR_KEY_SIZE_RANGE);
  EXPECT_EQ(Salsa2012Xor(key, Bytes(12), plain, out).error().code, CKR_MECHANISM_PARAM_INVALID);
  Bytes short_out(4);
  EXPECT_EQ(Salsa2012Xor(key, nonce, plain, short_out).error().code, CKR_ARGUMENTS_BAD);
}

}  // namespace
}  // namespace signet::crypto
