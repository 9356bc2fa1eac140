#include "proto/slip.h"

#include <gtest/gtest.h>

namespace signet::proto {
namespace {

std::vector<SecureBytes> DecodeAll(SlipDecoder& d, const Bytes& stream, std::vector<bool>* big) {
  std::vector<SecureBytes> packets;
  for (std::uint8_t b : stream) {
    if (d.Push(b)) {
      packets.push_back(d.packet());
      if (big) big->push_back(d.oversized());
    }
  }
  return packets;
}

TEST(SlipTest, EncodesWithEndsAndEscapes) {
  SecureBytes out;
  SlipEncode(Bytes{0x01, 0xC0, 0x02, 0xDB, 0x03}, out);
  EXPECT_EQ(Bytes(out.begin(), out.end()),
            (Bytes{0xC0, 0x01, 0xDB, 0xDC, 0x02, 0xDB, 0xDD, 0x03, 0xC0}));
}

TEST(SlipTest, DecodesOneByteAtATimeAndSkipsEmptyFrames) {
  SlipDecoder d(64);
  Bytes stream{0xC0, 0xC0, 0x01, 0xDB, 0xDC, 0xDB, 0xDD, 0xC0, 0xC0, 0x07, 0xC0};
  auto packets = DecodeAll(d, stream, nullptr);
  ASSERT_EQ(packets.size(), 2u);
  EXPECT_EQ(Bytes(packets[0].begin(), packets[0].end()), (Bytes{0x01, 0xC0, 0xDB}));
  EXPECT_EQ(Bytes(packets[1].begin(), packets[1].end()), (Bytes{0x07}));
}

TEST(SlipTest, RoundTripsEveryByteValue) {
  Bytes packet;
  for (int i = 0; i < 256; ++i) packet.push_back(static_cast<std::uint8_t>(i));
  SecureBytes framed;
  SlipEncode(packet, framed);
  SlipDecoder d(1024);
  auto packets = DecodeAll(d, Bytes(framed.begin(), framed.end()), nullptr);
  ASSERT_EQ(packets.size(), 1u);
  EXPECT_EQ(Bytes(packets[0].begin(), packets[0].end()), packet);
}

TEST(SlipTest, AnOversizedPacketIsCutAndFlaggedAndTheNextIsWhole) {
  SlipDecoder d(4);
  Bytes stream{0xC0, 1, 2, 3, 4, 5, 6, 0xC0, 9, 0xC0};
  std::vector<bool> big;
  auto packets = DecodeAll(d, stream, &big);
  ASSERT_EQ(packets.size(), 2u);
  EXPECT_TRUE(big[0]);
  EXPECT_EQ(Bytes(packets[0].begin(), packets[0].end()), (Bytes{1, 2, 3, 4}));
  EXPECT_FALSE(big[1]);
  EXPECT_EQ(Bytes(packets[1].begin(), packets[1].end()), (Bytes{9}));
}

TEST(SlipTest, AnUnknownEscapeStandsForItself) {
  SlipDecoder d(16);
  auto packets = DecodeAll(d, Bytes{0xDB, 0x41, 0xC0}, nullptr);
  ASSERT_EQ(packets.size(), 1u);
  EXPECT_EQ(Bytes(packets[0].begin(), packets[0].end()), (Bytes{0x41}));
}

}  // namespace
}  // namespace signet::proto
