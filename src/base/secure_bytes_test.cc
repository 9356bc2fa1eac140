#include "base/secure_bytes.h"

#include <gtest/gtest.h>

namespace signet {
namespace {

TEST(SecureBytesTest, EqualConstantTimeComparesEveryByte) {
  const Bytes a = {1, 2, 3, 4};
  EXPECT_TRUE(EqualConstantTime(a, Bytes{1, 2, 3, 4}));
  EXPECT_FALSE(EqualConstantTime(a, Bytes{1, 2, 3, 5}));  // last byte differs
  EXPECT_FALSE(EqualConstantTime(a, Bytes{0, 2, 3, 4}));  // first byte differs
  EXPECT_FALSE(EqualConstantTime(a, Bytes{1, 2, 3}));     // prefix is not equal
  EXPECT_TRUE(EqualConstantTime(Bytes{}, Bytes{}));
}

TEST(SecureBytesTest, WipeBytesZeroesAPlainBuffer) {
  Bytes secret = {9, 9, 9};
  WipeBytes(secret);
  EXPECT_EQ(secret, (Bytes{0, 0, 0}));
  Bytes empty;
  WipeBytes(empty);  // data() may be null: must not touch it
  EXPECT_TRUE(empty.empty());
}

TEST(SecureBytesTest, SecureFromStringCopiesTheCharacters) {
  const SecureBytes pin = SecureFromString("1234");
  EXPECT_EQ(std::string(pin.begin(), pin.end()), "1234");
}

}  // namespace
}  // namespace signet
