// frame_reader_fuzz: proto::FrameReader (src/proto/framing.h) over an arbitrary
// byte stream delivered in arbitrary pieces, by Feed and by
// Prepare/Commit. Input: byte 0 picks the frame limit (16 B .. 1 MiB),
// byte 1 seeds the piece sizes, the rest is the stream.
//
// Checks against a plain reference parse of the whole stream: the reader
// returns exactly the frames the stream holds, in order, never one over the
// limit, says kTooLarge exactly when the next header declares too much, and
// buffered() accounts for every byte received and not yet returned.
#include <algorithm>
#include <cstring>
#include <span>
#include <vector>

#include "fuzz_target.h"
#include "proto/framing.h"

namespace {

using signet::proto::FrameReader;
using signet::proto::kFrameHeaderSize;

struct Expected {
  std::vector<std::span<const std::uint8_t>> frames;
  bool too_large = false;  // the stream's next header declares over the limit
};

// ReferenceParse: the frames of `stream` by the protocol's definition.
Expected ReferenceParse(std::span<const std::uint8_t> stream, std::size_t limit) {
  Expected out;
  std::size_t pos = 0;
  while (stream.size() - pos >= kFrameHeaderSize) {
    std::uint64_t len = (std::uint64_t{stream[pos]} << 24) | (std::uint64_t{stream[pos + 1]} << 16) |
                        (std::uint64_t{stream[pos + 2]} << 8) | stream[pos + 3];
    if (len > limit) {
      out.too_large = true;
      break;
    }
    if (stream.size() - pos - kFrameHeaderSize < len) break;
    out.frames.push_back(stream.subspan(pos + kFrameHeaderSize, len));
    pos += kFrameHeaderSize + len;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t limit = std::size_t{16} << (data[0] % 17);
  std::uint32_t rng = data[1] * 2654435761u + 1;
  std::span<const std::uint8_t> stream(data + 2, size - 2);
  const Expected expected = ReferenceParse(stream, limit);

  FrameReader reader(limit);
  std::size_t fed = 0, next_frame = 0, returned_bytes = 0;
  bool saw_too_large = false;
  while (fed < stream.size() && !saw_too_large) {
    rng = rng * 1103515245u + 12345u;
    std::size_t piece = std::min<std::size_t>(1 + (rng >> 16) % 97, stream.size() - fed);
    if (rng & 1) {
      reader.Feed(stream.subspan(fed, piece));
    } else {
      // A short socket read: ask for more room than arrives.
      std::span<std::uint8_t> room = reader.Prepare(piece + (rng >> 8) % 64);
      std::memcpy(room.data(), stream.data() + fed, piece);
      reader.Commit(piece);
    }
    fed += piece;
    std::span<const std::uint8_t> payload;
    for (;;) {
      FrameReader::State state = reader.Next(&payload);
      if (state == FrameReader::State::kNeedMore) break;
      if (state == FrameReader::State::kTooLarge) {
        FUZZ_CHECK(expected.too_large && next_frame == expected.frames.size());
        FUZZ_CHECK(reader.declared_length() > limit);
        FUZZ_CHECK(reader.Next(&payload) == FrameReader::State::kTooLarge);
        saw_too_large = true;
        break;
      }
      FUZZ_CHECK(next_frame < expected.frames.size());
      FUZZ_CHECK(payload.size() <= limit);
      const auto& want = expected.frames[next_frame++];
      FUZZ_CHECK(payload.size() == want.size());
      FUZZ_CHECK(std::equal(payload.begin(), payload.end(), want.begin()));
      returned_bytes += kFrameHeaderSize + payload.size();
    }
    if (!saw_too_large) FUZZ_CHECK(reader.buffered() == fed - returned_bytes);
  }
  if (!saw_too_large) {
    FUZZ_CHECK(next_frame == expected.frames.size());
    FUZZ_CHECK(!expected.too_large);
  }

  // Every payload's length encodes back to the header it came with.
  for (const auto& frame : expected.frames) {
    auto header = signet::proto::EncodeFrameHeader(static_cast<std::uint32_t>(frame.size()));
    FUZZ_CHECK(signet::proto::DecodeFrameHeader(header) == frame.size());
  }
  return 0;
}
