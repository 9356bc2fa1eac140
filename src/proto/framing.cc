#include "proto/framing.h"

#include <string.h>

#include <algorithm>
#include <string>

namespace signet::proto {

std::array<std::uint8_t, kFrameHeaderSize> EncodeFrameHeader(std::uint32_t payload_size) {
  return {static_cast<std::uint8_t>(payload_size >> 24),
          static_cast<std::uint8_t>(payload_size >> 16),
          static_cast<std::uint8_t>(payload_size >> 8), static_cast<std::uint8_t>(payload_size)};
}

std::uint32_t DecodeFrameHeader(std::span<const std::uint8_t, kFrameHeaderSize> header) {
  return (std::uint32_t{header[0]} << 24) | (std::uint32_t{header[1]} << 16) |
         (std::uint32_t{header[2]} << 8) | std::uint32_t{header[3]};
}

void FrameReader::Compact() {
  // Drop consumed bytes only when they dominate, so a stream of small
  // frames does not memmove on every call.
  if (start_ > 0 && (start_ == buffer_.size() || start_ >= buffer_.size() / 2)) {
    WipeConsumed();
    const std::size_t old_size = buffer_.size();
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(start_));
    // The moved bytes' old places past the new end still hold copies: wipe
    // them (the resize up stays within capacity and writes nothing).
    const std::size_t size = buffer_.size();
    buffer_.resize(old_size);
    explicit_bzero(buffer_.data() + size, old_size - size);
    buffer_.resize(size);
    start_ = 0;
    wiped_ = 0;
  }
}

void FrameReader::WipeConsumed() {
  if (start_ > wiped_) explicit_bzero(buffer_.data() + wiped_, start_ - wiped_);
  wiped_ = start_;
}

void FrameReader::Feed(std::span<const std::uint8_t> bytes) {
  Compact();
  buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
}

std::span<std::uint8_t> FrameReader::Prepare(std::size_t n) {
  Compact();
  std::size_t old = buffer_.size();
  buffer_.resize(old + n);
  prepared_ = n;
  return {buffer_.data() + old, n};
}

void FrameReader::Commit(std::size_t k) {
  k = std::min(k, prepared_);
  buffer_.resize(buffer_.size() - (prepared_ - k));
  prepared_ = 0;
}

FrameReader::State FrameReader::Next(std::span<const std::uint8_t>* payload) {
  if (too_large_) return State::kTooLarge;
  // Bytes handed out by Prepare and not committed yet are not data.
  std::size_t available = buffer_.size() - prepared_ - start_;
  if (available < kFrameHeaderSize) return State::kNeedMore;
  std::span<const std::uint8_t, kFrameHeaderSize> header(buffer_.data() + start_, kFrameHeaderSize);
  declared_length_ = DecodeFrameHeader(header);
  if (declared_length_ > max_frame_size_) {
    too_large_ = true;
    return State::kTooLarge;
  }
  if (available - kFrameHeaderSize < declared_length_) return State::kNeedMore;
  *payload = {buffer_.data() + start_ + kFrameHeaderSize,
              static_cast<std::size_t>(declared_length_)};
  start_ += kFrameHeaderSize + static_cast<std::size_t>(declared_length_);
  return State::kFrame;
}

}  // namespace signet::proto
