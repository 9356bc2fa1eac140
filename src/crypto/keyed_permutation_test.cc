#include "crypto/keyed_permutation.h"

#include <gtest/gtest.h>

#include <set>

namespace signet::crypto {
namespace {

Bytes Key(std::uint8_t fill) { return Bytes(KeyedPermutation::kKeySize, fill); }

TEST(KeyedPermutationTest, BackwardUndoesForward) {
  auto p = KeyedPermutation::Make(Key(7));
  ASSERT_TRUE(p.ok());
  for (std::uint64_t v :
       {0ull, 1ull, 0x8000000000000001ull, 0xffffffffffffffffull, 0x0123456789abcdefull}) {
    EXPECT_EQ(p->Backward(p->Forward(v)), v);
    EXPECT_EQ(p->Forward(p->Backward(v)), v);
  }
}

TEST(KeyedPermutationTest, DistinctValuesGetDistinctImagesThatDependOnTheKey) {
  auto a = KeyedPermutation::Make(Key(1));
  auto b = KeyedPermutation::Make(Key(2));
  ASSERT_TRUE(a.ok() && b.ok());
  std::set<std::uint64_t> images;
  int same_under_both_keys = 0;
  for (std::uint64_t v = 0; v < 2000; ++v) {
    images.insert(a->Forward(v));
    if (a->Forward(v) == b->Forward(v)) ++same_under_both_keys;
  }
  EXPECT_EQ(images.size(), 2000u);
  EXPECT_EQ(same_under_both_keys, 0);
  // The same key always gives the same image (another node, another day).
  auto again = KeyedPermutation::Make(Key(1));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->Forward(42), a->Forward(42));
  EXPECT_NE(a->Forward(42), 42u);
}

TEST(KeyedPermutationTest, KeysOfTheWrongLengthAreRefused) {
  EXPECT_EQ(KeyedPermutation::Make(Bytes(16, 1)).error().code, CKR_ARGUMENTS_BAD);
  EXPECT_EQ(KeyedPermutation::Make({}).error().code, CKR_ARGUMENTS_BAD);
  auto p = KeyedPermutation::Make(Key(3));
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->SameKey(Key(3)));
  EXPECT_FALSE(p->SameKey(Key(4)));
}

}  // namespace
}  // namespace signet::crypto
