#include "core/unique_id.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace signet::core {
namespace {

std::string Text(const Bytes& b) { return std::string(b.begin(), b.end()); }

TEST(UniqueIdTest, NewIdsAreVersion4UuidsAndDiffer) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    std::string id = Text(NewUniqueId());
    ASSERT_EQ(id.size(), 36u);
    EXPECT_EQ(id[14], '4') << id;
    EXPECT_NE(std::string("89ab").find(id[19]), std::string::npos) << id;
    EXPECT_TRUE(seen.insert(id).second);
  }
}

TEST(UniqueIdTest, DerivedIdsAreStableAndDistinct) {
  EXPECT_EQ(DerivedUniqueId("00112233aabbccdd", 7), DerivedUniqueId("00112233aabbccdd", 7));
  EXPECT_NE(DerivedUniqueId("00112233aabbccdd", 7), DerivedUniqueId("00112233aabbccdd", 8));
  EXPECT_NE(DerivedUniqueId("00112233aabbccdd", 7), DerivedUniqueId("00112233aabbccde", 7));
  EXPECT_EQ(Text(DerivedUniqueId("s", 1))[14], '8');
}

TEST(UniqueIdTest, TextAndBytesRoundTrip) {
  Uuid uuid{0x0b, 0x5e, 0x00, 0xff, 0x12, 0x34, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0, 1, 2, 3};
  Bytes text = UuidText(uuid);
  EXPECT_EQ(Text(text), "0b5e00ff-1234-4567-89ab-cdef00010203");
  auto back = UuidFromText(text);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, uuid);
  std::string upper = "0B5E00FF-1234-4567-89AB-CDEF00010203";
  EXPECT_EQ(UuidFromText(Bytes(upper.begin(), upper.end())), uuid);
  for (std::string bad :
       {"0b5e00ff-1234-4567-89ab-cdef0001020", "0b5e00ff+1234-4567-89ab-cdef00010203",
        "0b5e00fg-1234-4567-89ab-cdef00010203", ""}) {
    EXPECT_FALSE(UuidFromText(Bytes(bad.begin(), bad.end())).has_value()) << bad;
  }
}

}  // namespace
}  // namespace signet::core
