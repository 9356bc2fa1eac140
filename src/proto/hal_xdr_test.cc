#include "proto/hal_xdr.h"

#include <gtest/gtest.h>

#include "proto/hal_rpc.h"

namespace signet::proto {
namespace {

Bytes Of(const XdrWriter& w) { return Bytes(w.bytes().begin(), w.bytes().end()); }

TEST(HalXdrTest, WordsAreBigEndianAndOpaquesPadded) {
  XdrWriter w;
  w.PutU32(0x01020304);
  w.PutOpaque(Bytes{0xAA, 0xBB, 0xCC, 0xDD, 0xEE});
  w.PutOpaque(Bytes{});
  EXPECT_EQ(Of(w),
            (Bytes{1, 2, 3, 4, 0, 0, 0, 5, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(XdrOpaqueSize(5), 12u);
  EXPECT_EQ(XdrOpaqueSize(16), 20u);
}

TEST(HalXdrTest, ReadsBackAndRefusesShortPackets) {
  Bytes packet{0, 0, 0, 23, 0, 0, 0, 3, 'a', 'b', 'c', 0, 0, 0, 0, 1};
  XdrReader r(packet);
  std::uint32_t op = 0, last = 0;
  ByteView text;
  ASSERT_TRUE(r.GetU32(op));
  EXPECT_EQ(op, static_cast<std::uint32_t>(hal::Opcode::kPkeySign));
  ASSERT_TRUE(r.GetOpaque(text));
  EXPECT_EQ(Bytes(text.begin(), text.end()), (Bytes{'a', 'b', 'c'}));
  ASSERT_TRUE(r.GetU32(last));
  EXPECT_EQ(last, 1u);
  EXPECT_FALSE(r.GetU32(last));

  Bytes lying{0, 0, 0, 9, 'x'};  // claims 9 bytes, has 1
  XdrReader r2(lying);
  EXPECT_FALSE(r2.GetOpaque(text));
  Bytes huge{0xFF, 0xFF, 0xFF, 0xFF};
  XdrReader r3(huge);
  EXPECT_FALSE(r3.GetOpaque(text));
}

TEST(HalXdrTest, AFinalOpaqueMayLackItsPadding) {
  Bytes packet{0, 0, 0, 2, 'h', 'i'};
  XdrReader r(packet);
  ByteView text;
  ASSERT_TRUE(r.GetOpaque(text));
  EXPECT_EQ(text.size(), 2u);
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(HalRpcTest, OpcodeNamesFollowTheTable) {
  EXPECT_STREQ(hal::OpcodeName(0), "get_version");
  EXPECT_STREQ(hal::OpcodeName(26), "pkey_get_key_curve");
  EXPECT_STREQ(hal::OpcodeName(31), "pkey_generate_hashsig");
  EXPECT_STREQ(hal::OpcodeName(32), "unknown");
}

}  // namespace
}  // namespace signet::proto
