#include "proto/framing.h"

#include <algorithm>

#include <gtest/gtest.h>

#include <vector>

#include "proto/signet_generated.h"

namespace signet::proto {
namespace {

using Payload = std::span<const std::uint8_t>;

// Frame returns header || payload, as the client and the daemon write them.
std::vector<std::uint8_t> Frame(const std::vector<std::uint8_t>& payload) {
  auto header = EncodeFrameHeader(static_cast<std::uint32_t>(payload.size()));
  std::vector<std::uint8_t> frame(header.begin(), header.end());
  frame.insert(frame.end(), payload.begin(), payload.end());
  return frame;
}

TEST(Framing, HeaderIsBigEndian) {
  auto h = EncodeFrameHeader(0x01020304);
  EXPECT_EQ(h[0], 1);
  EXPECT_EQ(h[3], 4);
  EXPECT_EQ(DecodeFrameHeader(h), 0x01020304u);
}

TEST(Framing, ReaderReassemblesByteByByte) {
  auto frame = Frame({1, 2, 3});
  FrameReader reader;
  Payload payload;
  for (std::size_t i = 0; i + 1 < frame.size(); ++i) {
    reader.Feed(Payload(&frame[i], 1));
    EXPECT_EQ(reader.Next(&payload), FrameReader::State::kNeedMore);
  }
  reader.Feed(Payload(&frame.back(), 1));
  ASSERT_EQ(reader.Next(&payload), FrameReader::State::kFrame);
  EXPECT_EQ(std::vector<std::uint8_t>(payload.begin(), payload.end()),
            (std::vector<std::uint8_t>{1, 2, 3}));
  EXPECT_EQ(reader.Next(&payload), FrameReader::State::kNeedMore);
  EXPECT_EQ(reader.buffered(), 0u);
}

TEST(Framing, ReaderSplitsSeveralFramesInOneRead) {
  auto a = Frame({7});
  auto b = Frame({});
  auto c = Frame({8, 9});
  std::vector<std::uint8_t> all;
  for (auto* f : {&a, &b, &c}) all.insert(all.end(), f->begin(), f->end());
  FrameReader reader;
  auto span = reader.Prepare(all.size() + 100);
  std::copy(all.begin(), all.end(), span.begin());
  reader.Commit(all.size());
  Payload p;
  ASSERT_EQ(reader.Next(&p), FrameReader::State::kFrame);
  EXPECT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0], 7);
  ASSERT_EQ(reader.Next(&p), FrameReader::State::kFrame);
  EXPECT_EQ(p.size(), 0u);
  ASSERT_EQ(reader.Next(&p), FrameReader::State::kFrame);
  EXPECT_EQ(p.size(), 2u);
  EXPECT_EQ(reader.Next(&p), FrameReader::State::kNeedMore);
}

TEST(Framing, FourGibLengthIsRefusedBeforeBuffering) {
  FrameReader reader;
  std::vector<std::uint8_t> header = {0xff, 0xff, 0xff, 0xff, 0x00};
  reader.Feed(header);
  Payload p;
  EXPECT_EQ(reader.Next(&p), FrameReader::State::kTooLarge);
  EXPECT_EQ(reader.declared_length(), 0xffffffffu);
  // Sticky: the stream cannot be resynchronised.
  reader.Feed(Frame({1}));
  EXPECT_EQ(reader.Next(&p), FrameReader::State::kTooLarge);
}

TEST(Framing, LimitIsInclusive) {
  FrameReader reader(4);
  reader.Feed(Frame({1, 2, 3, 4}));
  Payload p;
  EXPECT_EQ(reader.Next(&p), FrameReader::State::kFrame);
  FrameReader small(3);
  small.Feed(Frame({1, 2, 3, 4}));
  EXPECT_EQ(small.Next(&p), FrameReader::State::kTooLarge);
}

TEST(Framing, CommitShorterThanPrepared) {
  FrameReader reader;
  auto frame = Frame({5, 6});
  auto span = reader.Prepare(64);
  std::copy(frame.begin(), frame.begin() + 3, span.begin());
  reader.Commit(3);
  EXPECT_EQ(reader.buffered(), 3u);
  reader.Feed(Payload(frame.data() + 3, frame.size() - 3));
  Payload p;
  ASSERT_EQ(reader.Next(&p), FrameReader::State::kFrame);
  EXPECT_EQ(p[1], 6);
}

TEST(Framing, SchemaRoundTripVerifies) {
  flatbuffers::FlatBufferBuilder fbb;
  auto body = wire::CreateGenerateRandomRequest(fbb, 42, 16);
  auto req = wire::CreateRequest(fbb, 9, kProtocolVersion, wire::RequestBody::GenerateRandomRequest,
                                 body.Union());
  fbb.Finish(req);
  flatbuffers::Verifier verifier(fbb.GetBufferPointer(), fbb.GetSize());
  ASSERT_TRUE(wire::VerifyRequestBuffer(verifier));
  auto* parsed = wire::GetRequest(fbb.GetBufferPointer());
  EXPECT_EQ(parsed->id(), 9u);
  EXPECT_EQ(parsed->body_as_GenerateRandomRequest()->length(), 16u);
  std::vector<std::uint8_t> junk = {1, 2, 3, 4, 5, 6, 7, 8};
  flatbuffers::Verifier bad(junk.data(), junk.size());
  EXPECT_FALSE(wire::VerifyRequestBuffer(bad));
}


// Issue 10, defect 6: a request's bytes (a PIN, an imported key) must not
// stay in the reader's buffer once the caller is done with it.
TEST(Framing, WipeConsumedZeroesHandledPayloads) {
  FrameReader reader;
  auto first = Frame({0x11, 0x22, 0x33});
  auto second = Frame({0x44, 0x55});
  std::vector<std::uint8_t> both(first);
  both.insert(both.end(), second.begin(), second.end());
  both.push_back(0);  // the start of a third frame stays buffered
  reader.Feed(both);
  Payload p1, p2;
  ASSERT_EQ(reader.Next(&p1), FrameReader::State::kFrame);
  ASSERT_EQ(reader.Next(&p2), FrameReader::State::kFrame);
  reader.WipeConsumed();
  EXPECT_EQ(std::count(p1.begin(), p1.end(), 0), 3);
  EXPECT_EQ(std::count(p2.begin(), p2.end(), 0), 2);
  EXPECT_EQ(reader.buffered(), 1u);
}

// A posted read's prepared bytes are not data until committed.
TEST(Framing, PreparedBytesAreNotParsed) {
  FrameReader reader;
  auto span = reader.Prepare(64);
  std::fill(span.begin(), span.end(), 0);  // would read as empty frames
  Payload p;
  EXPECT_EQ(reader.Next(&p), FrameReader::State::kNeedMore);
  EXPECT_EQ(reader.buffered(), 0u);
  reader.Commit(0);
}

}  // namespace
}  // namespace signet::proto
