#include "keystore/attribute_codec.h"

#include <gtest/gtest.h>

namespace signet::keystore {
namespace {

TEST(AttributeCodec, RoundTrips) {
  AttributeMap attributes{{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)},
                          {CKA_LABEL, Bytes{'k', 'e', 'y'}},
                          {CKA_ID, Bytes{}},
                          {CKA_VENDOR_DEFINED + 5, Bytes(300, 0xab)}};
  auto encoded = EncodeAttributes(attributes);
  ASSERT_TRUE(encoded.ok());
  auto decoded = DecodeAttributes(*encoded);
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  EXPECT_EQ(*decoded, attributes);
  EXPECT_EQ(FindUlong(*decoded, CKA_CLASS), CKO_PRIVATE_KEY);
  EXPECT_EQ(FindUlong(*decoded, CKA_LABEL), std::nullopt);  // wrong size
}

TEST(AttributeCodec, LayoutIsVersionTypeLengthValue) {
  auto encoded = EncodeAttributes({{0x102, Bytes{0xaa}}});
  ASSERT_TRUE(encoded.ok());
  Bytes expected{1, 0x02, 0x01, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0xaa};
  EXPECT_EQ(*encoded, expected);
}

TEST(AttributeCodec, RejectsCorruptInput) {
  auto encoded = EncodeAttributes({{CKA_LABEL, Bytes{1, 2, 3}}, {CKA_ID, Bytes{4}}});
  ASSERT_TRUE(encoded.ok());
  for (std::size_t cut = 0; cut < encoded->size(); ++cut) {
    if (cut == 1) continue;  // version byte alone is an empty map
    Bytes truncated(encoded->begin(), encoded->begin() + cut);
    auto decoded = DecodeAttributes(truncated);
    if (cut == 1 + 12 + 3) continue;  // a whole first attribute
    EXPECT_FALSE(decoded.ok()) << "cut at " << cut;
  }
  Bytes bad_version = *encoded;
  bad_version[0] = 9;
  EXPECT_FALSE(DecodeAttributes(bad_version).ok());
  // The same attribute twice (out of order) is corrupt.
  Bytes twice{1};
  auto one = EncodeAttributes({{CKA_ID, Bytes{4}}});
  ASSERT_TRUE(one.ok());
  twice.insert(twice.end(), one->begin() + 1, one->end());
  twice.insert(twice.end(), one->begin() + 1, one->end());
  EXPECT_FALSE(DecodeAttributes(twice).ok());
}

}  // namespace
}  // namespace signet::keystore
