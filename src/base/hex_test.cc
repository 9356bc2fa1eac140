#include "base/hex.h"

#include <gtest/gtest.h>

#include <limits>

namespace signet {
namespace {

TEST(ToHex, TwoLowercaseDigitsPerByte) {
  EXPECT_EQ(ToHex(Bytes{0x00, 0x0f, 0xa5, 0xff}), "000fa5ff");
  EXPECT_EQ(ToHex(Bytes{}), "");
}

TEST(FromHex, DecodesEitherCase) {
  EXPECT_EQ(FromHex("00ffA5"), (Bytes{0x00, 0xff, 0xa5}));
  EXPECT_EQ(FromHex("aBcD"), (Bytes{0xab, 0xcd}));
  EXPECT_EQ(FromHex(""), Bytes{});
}

TEST(FromHex, RejectsOddLengthAndBadDigits) {
  EXPECT_EQ(FromHex("abc"), std::nullopt);
  EXPECT_EQ(FromHex("0"), std::nullopt);
  EXPECT_EQ(FromHex("zz"), std::nullopt);
  EXPECT_EQ(FromHex("0g"), std::nullopt);
  EXPECT_EQ(FromHex("g0"), std::nullopt);
  EXPECT_EQ(FromHex("00 1"), std::nullopt);  // no separators
  EXPECT_EQ(FromHex("0x00"), std::nullopt);  // no prefix
}

TEST(FromHex, UndoesToHex) {
  Bytes all(256);
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint8_t>(i);
  EXPECT_EQ(FromHex(ToHex(all)), all);
}

TEST(HexNumber, WritesLikePrintfHexWithPrefix) {
  EXPECT_EQ(HexNumber(0), "0x0");
  EXPECT_EQ(HexNumber(0x2a), "0x2a");
  EXPECT_EQ(HexNumber(0x80000000UL), "0x80000000");
  EXPECT_EQ(HexNumber(std::numeric_limits<std::uint64_t>::max()), "0xffffffffffffffff");
}

}  // namespace
}  // namespace signet
