#include "daemon/cryptech_hash.h"

#include <gtest/gtest.h>

#include "base/hex.h"
#include "daemon/cryptech_keys.h"

namespace signet::daemon {
namespace {

namespace hal = proto::hal;

std::string HashHex(hal::Digest id, std::string_view data, std::string_view key = "") {
  const CryptechDigest* digest = FindCryptechDigest(static_cast<std::uint32_t>(id));
  EXPECT_NE(digest, nullptr);
  auto hash = CryptechHash::Start(*digest, AsBytes(key));
  EXPECT_TRUE(hash.ok());
  // In two parts: the handle keeps its state between hash_update calls.
  EXPECT_TRUE((*hash)->Update(AsBytes(data.substr(0, 1))).ok());
  EXPECT_TRUE((*hash)->Update(AsBytes(data.substr(1))).ok());
  auto out = (*hash)->Finish();
  EXPECT_TRUE(out.ok());
  EXPECT_EQ(out->size(), digest->length);
  return ToHex(*out);
}

// FIPS 180-4 example "abc" (NIST's published digests).
TEST(CryptechHashTest, EveryDigestMatchesTheFipsVectors) {
  EXPECT_EQ(HashHex(hal::Digest::kSha1, "abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(HashHex(hal::Digest::kSha224, "abc"),
            "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7");
  EXPECT_EQ(HashHex(hal::Digest::kSha256, "abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(HashHex(hal::Digest::kSha512_224, "abc"),
            "4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa");
  EXPECT_EQ(HashHex(hal::Digest::kSha512_256, "abc"),
            "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23");
  EXPECT_EQ(HashHex(hal::Digest::kSha384, "abc"),
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
            "8086072ba1e7cc2358baeca134c825a7");
  EXPECT_EQ(HashHex(hal::Digest::kSha512, "abc"),
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
            "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
  EXPECT_EQ(FindCryptechDigest(0), nullptr);
  EXPECT_EQ(FindCryptechDigest(8), nullptr);
}

// RFC 4231 test case 2 (key "Jefe").
TEST(CryptechHashTest, AKeyMakesItAnHmac) {
  EXPECT_EQ(HashHex(hal::Digest::kSha256, "what do ya want for nothing?", "Jefe"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(CryptechHashTest, AlgorithmIdsAreDerWithNullParameters) {
  EXPECT_EQ(ToHex(FindCryptechDigest(3)->algorithm_id),
            "300d060960864801650304020105"
            "00");
  EXPECT_EQ(ToHex(FindCryptechDigest(1)->algorithm_id), "300906052b0e03021a0500");
}

TEST(CryptechKeysTest, FlagsRoundTripThroughAttributes) {
  for (bool private_key : {true, false}) {
    for (std::uint32_t flags = 0; flags <= hal::kAllKeyFlags; ++flags) {
      if (!private_key) flags |= hal::kFlagExportable;  // public keys always are
      std::map<CK_ATTRIBUTE_TYPE, Bytes> attrs;
      for (const core::Attribute& a : KeyFlagTemplate(flags, private_key)) attrs[a.type] = a.value;
      attrs[CKA_CLASS] = UlongBytes(private_key ? CKO_PRIVATE_KEY : CKO_PUBLIC_KEY);
      attrs[CKA_KEY_TYPE] = UlongBytes(CKK_RSA);
      KeyFacts facts = KeyFactsOf(attrs);
      EXPECT_EQ(facts.flags, flags) << private_key;
      EXPECT_EQ(facts.type, private_key ? hal::KeyType::kRsaPrivate : hal::KeyType::kRsaPublic);
    }
  }
}

TEST(CryptechKeysTest, CurvesMapBothWays) {
  for (std::uint32_t c = 1; c <= 3; ++c) {
    auto type = CurveKeyType(c);
    ASSERT_TRUE(type.has_value());
    EXPECT_EQ(static_cast<std::uint32_t>(CurveOf(*type)), c);
  }
  EXPECT_FALSE(CurveKeyType(0).has_value());
  EXPECT_FALSE(CurveKeyType(4).has_value());
}

}  // namespace
}  // namespace signet::daemon
