// Framing of the signet wire protocol: every message is one frame, a 4-byte
// big-endian payload length followed by the payload (a FlatBuffer whose root
// is signet.wire.Request or signet.wire.Response, see schema/signet.fbs).
//
// Used by both ends: the daemon's connections and the client library.
// FrameReader turns an arbitrary byte stream (partial reads, several frames
// per read) into whole payloads, and reports a length over the limit before
// buffering any of it, so a hostile 4 GiB length costs nothing.
//
// Thread contract: the functions are pure; a FrameReader belongs to one
// connection and is used by one thread at a time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "base/secure_bytes.h"
#include "signet/protocol.hpp"
#include "signet/result.hpp"

namespace signet::proto {

// kProtocolVersion: the Request.version this build speaks. A request with
// another version is answered with SIGNET_RV_UNSUPPORTED_VERSION.
inline constexpr std::uint16_t kProtocolVersion = 1;

// kFrameHeaderSize: bytes of the big-endian length prefix.
inline constexpr std::size_t kFrameHeaderSize = 4;

// kDefaultMaxFrameSize: the largest payload either end accepts by default
// (1 MiB). A frame declaring more is refused and the connection closed.
inline constexpr std::size_t kDefaultMaxFrameSize = std::size_t{1} << 20;

// EncodeFrameHeader returns the 4-byte big-endian prefix for `payload_size`.
std::array<std::uint8_t, kFrameHeaderSize> EncodeFrameHeader(std::uint32_t payload_size);

// DecodeFrameHeader reads a big-endian length from 4 bytes at `header`.
std::uint32_t DecodeFrameHeader(std::span<const std::uint8_t, kFrameHeaderSize> header);

// WipingAllocator: FrameReader's buffer allocator: SecureBytes' allocator
// (base/secure_bytes.h: wiped with explicit_bzero before it is freed, since
// requests carry PINs and imported keys), except that it default-initialises
// elements, so growing the buffer for a socket read does not zero the bytes
// the read overwrites anyway (64 KiB per read).
template <typename T>
struct WipingAllocator : ZeroisingAllocator<T> {
  template <typename U>
  struct rebind {
    using other = WipingAllocator<U>;
  };
  WipingAllocator() = default;
  template <typename U>
  WipingAllocator(const WipingAllocator<U>&) {}  // NOLINT
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <typename U>
  bool operator==(const WipingAllocator<U>&) const {
    return true;
  }
};

// FrameReader: incremental frame decoder over a byte stream.
//
//   reader.Feed(bytes_from_socket);          // or Prepare()/Commit()
//   std::span<const uint8_t> payload;
//   while (reader.Next(&payload) == FrameReader::State::kFrame) Handle(payload);
//
// After kTooLarge the stream cannot be resynchronised: the caller replies
// SIGNET_RV_FRAME_TOO_LARGE and closes; every later Next says kTooLarge.
class FrameReader {
 public:
  enum class State { kNeedMore, kFrame, kTooLarge };

  explicit FrameReader(std::size_t max_frame_size = kDefaultMaxFrameSize)
      : max_frame_size_(max_frame_size) {}

  // Feed appends received bytes.
  void Feed(std::span<const std::uint8_t> bytes);

  // Prepare returns `n` writable bytes at the end of the buffer for a direct
  // socket read; Commit(k) then keeps the first k of them. The span is valid
  // until the next call on this reader.
  std::span<std::uint8_t> Prepare(std::size_t n);
  void Commit(std::size_t k);

  // Next extracts the next whole payload into `*payload` (valid until the
  // next Feed or Prepare; several Next calls in a row keep earlier payloads
  // valid) and returns kFrame; kNeedMore when more bytes
  // are needed; kTooLarge when the pending frame declares a length over the
  // limit (declared_length() tells which).
  State Next(std::span<const std::uint8_t>* payload);

  // declared_length: the length field of the last header read.
  std::uint64_t declared_length() const { return declared_length_; }
  // WipeConsumed overwrites the bytes of every payload returned so far
  // (their spans become invalid): the caller is done with them, and they may
  // hold secrets. Freed and moved-from memory is wiped anyway.
  void WipeConsumed();

  // buffered: bytes received and not yet returned.
  std::size_t buffered() const { return buffer_.size() - prepared_ - start_; }
  std::size_t max_frame_size() const { return max_frame_size_; }

 private:
  void Compact();

  std::size_t max_frame_size_;
  std::vector<std::uint8_t, WipingAllocator<std::uint8_t>> buffer_;
  std::size_t start_ = 0;     // first unconsumed byte
  std::size_t wiped_ = 0;     // bytes before this are wiped
  std::size_t prepared_ = 0;  // bytes handed out by Prepare, not committed
  std::uint64_t declared_length_ = 0;
  bool too_large_ = false;
};

}  // namespace signet::proto
