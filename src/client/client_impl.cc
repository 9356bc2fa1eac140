#include "client/client_impl.h"

#include <poll.h>
#include <string.h>

#include <algorithm>

namespace signet::client {
namespace {

// kFlushThreshold: queued request bytes that trigger a write without a Wait.
constexpr std::size_t kFlushThreshold = 64 * 1024;

// kRingCheck*: how often a thread sleeping on its ring slot wakes to see
// whether signetd is still there (a killed daemon wakes no one), which is
// how long a client takes to learn its node died before it fails over
// (docs/PERFORMANCE.md "Failover"): four recent round trips, within these
// bounds, so a client whose replies come in a millisecond learns it in
// 20 ms, and one that waits 40 ms for each reply (hundreds of threads
// queued on RSA) is not woken several times per reply. Each wake-up costs
// a futex time-out and a poll(), about 20 us.
constexpr std::chrono::milliseconds kRingCheckMin{20};
constexpr std::chrono::milliseconds kRingCheckMax{200};

// kMaxExpectedSpin: a waiter that may spin (ClientRing::WaitFor) and
// expects its reply within this spins for up to twice its expected wait;
// a longer wait just sleeps. Measured on a 2-vCPU VM (docs/PERFORMANCE.md):
// at c = 1 a futex wake-up costs RSA-2048 ~45 us of its ~320 us and P-256
// ~20 us of ~90 us, and a timed sleep that wakes ahead of the reply costs
// as much as the wake-up itself, so spinning through the whole wait is
// what pays, up to an RSA-2048 signature's length.
constexpr std::chrono::nanoseconds kMaxExpectedSpin{300'000};

// kDoorbell: the frame that tells signetd to look at the ring (an empty
// payload: docs/PROTOCOL.md).
constexpr std::array<std::uint8_t, proto::kFrameHeaderSize> kDoorbell{};

}  // namespace

Error Client::Impl::FailLocked(Error error) {
  if (!broken_) broken_ = error;
  for (auto& [id, cv] : sleepers_) cv->Signal();
  return error;
}

void Client::Impl::WakeLocked(std::uint64_t id) {
  auto [first, last] = sleepers_.equal_range(id);
  for (auto it = first; it != last; ++it) it->second->Signal();
}

void Client::Impl::HandOverReadingLocked() {
  for (auto& [id, cv] : sleepers_) {
    if (replies_.count(id) == 0) {
      cv->Signal();
      return;
    }
  }
}

Error Client::Impl::Fail(Error error) {
  base::MutexLock lock(&recv_mu_);
  return FailLocked(std::move(error));
}

std::optional<Error> Client::Impl::Broken() const {
  base::MutexLock lock(&recv_mu_);
  return broken_;
}

Result<std::uint64_t> Client::Impl::Submit(flatbuffers::FlatBufferBuilder& fbb,
                                           wire::RequestBody type,
                                           flatbuffers::Offset<void> body, bool secret) {
  std::uint64_t id = next_id_.fetch_add(1, std::memory_order_relaxed);
  fbb.Finish(wire::CreateRequest(fbb, id, proto::kProtocolVersion, type, body));
  std::span<const std::uint8_t> payload(fbb.GetBufferPointer(), fbb.GetSize());
  auto wipe = [&] {
    if (secret) explicit_bzero(fbb.GetBufferPointer(), fbb.GetSize());
  };
  if (ring_ && payload.size() <= proto::ring::kSlotCapacity && SubmitToRing(id, payload)) {
    wipe();
    return id;
  }
  if (payload.size() > proto::kDefaultMaxFrameSize) {
    wipe();
    return MakeError(CKR_DATA_LEN_RANGE, "request of " + std::to_string(payload.size()) +
                                             " bytes exceeds the frame limit");
  }
  base::MutexLock send(&send_mu_);
  if (write_failed_) {
    wipe();
    return *write_failed_;
  }
  {
    // Registered before any byte is written, so its reply is never unknown.
    base::MutexLock lock(&recv_mu_);
    if (broken_) {
      wipe();
      return *broken_;
    }
    in_flight_.insert(id);
  }
  auto header = proto::EncodeFrameHeader(static_cast<std::uint32_t>(payload.size()));
  outbox_.insert(outbox_.end(), header.begin(), header.end());
  outbox_.insert(outbox_.end(), payload.begin(), payload.end());
  wipe();
  if (outbox_.size() >= kFlushThreshold) {
    Status flushed = FlushLocked();
    if (!flushed.ok()) {
      base::MutexLock lock(&recv_mu_);
      in_flight_.erase(id);  // the caller gets no ticket for it
      return std::move(flushed).error();
    }
  }
  return id;
}

bool Client::Impl::SubmitToRing(std::uint64_t id, std::span<const std::uint8_t> payload) {
  std::optional<std::uint32_t> slot = ring_->Acquire();
  if (!slot) return false;
  {
    base::MutexLock lock(&recv_mu_);
    if (broken_) {
      lock.Unlock();
      ring_->Release(*slot);
      return false;  // the socket path reports broken_
    }
    in_flight_.insert(id);
    ring_slots_.emplace(id, *slot);
  }
  ring_->Submit(*slot, payload);
  return true;
}

Status Client::Impl::Flush() {
  base::MutexLock send(&send_mu_);
  if (ring_ && ring_->NeedsDoorbell())
    outbox_.insert(outbox_.end(), kDoorbell.begin(), kDoorbell.end());
  return FlushLocked();
}

std::chrono::microseconds Client::Impl::RingCheckInterval() const {
  const auto four_trips = std::chrono::duration_cast<std::chrono::microseconds>(
      4 * std::chrono::nanoseconds(ring_round_trip_ns_.load(std::memory_order_relaxed)));
  return std::clamp<std::chrono::microseconds>(four_trips, kRingCheckMin, kRingCheckMax);
}

std::chrono::nanoseconds Client::Impl::SpinBudget() const {
  const std::chrono::nanoseconds expected(ring_round_trip_ns_.load(std::memory_order_relaxed));
  if (expected.count() == 0) return kMaxExpectedSpin;  // no estimate yet
  if (expected > kMaxExpectedSpin) return std::chrono::nanoseconds(0);
  return 2 * expected;
}

bool Client::Impl::DaemonGone() const {
  pollfd pfd{socket_fd_, POLLRDHUP, 0};
  return poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

Result<std::shared_ptr<const ReplyFrame>> Client::Impl::WaitRing(std::uint64_t id,
                                                                 std::uint32_t slot) {
  using Clock = std::chrono::steady_clock;
  using proto::ring::ClientRing;
  const auto start = Clock::now();
  const auto give_up = timeout_.count() > 0 ? start + timeout_ : Clock::time_point::max();
  for (;;) {
    ClientRing::Wait waited = ring_->WaitFor(slot, RingCheckInterval(), SpinBudget());
    if (waited == ClientRing::Wait::kReplied) {
      const auto took = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start);
      const std::uint64_t old = ring_round_trip_ns_.load(std::memory_order_relaxed);
      const std::uint64_t now = static_cast<std::uint64_t>(took.count());
      ring_round_trip_ns_.store(old == 0 ? now : (old * 7 + now) / 8, std::memory_order_relaxed);
      std::span<const std::uint8_t> payload = ring_->ReplyPayload(slot);
      std::shared_ptr<const ReplyFrame> frame;
      if (VerifyReply(payload)) {
        frame = std::make_shared<const ReplyFrame>(
            std::vector<std::uint8_t>(payload.begin(), payload.end()));
      }
      ring_->Release(slot);
      base::MutexLock lock(&recv_mu_);
      ring_slots_.erase(id);
      in_flight_.erase(id);
      if (!frame) return FailLocked(MakeError(CKR_DEVICE_ERROR, "signetd sent a malformed reply"));
      return frame;
    }
    if (waited == ClientRing::Wait::kReplyOnSocket) {
      ring_->Release(slot);
      base::MutexLock lock(&recv_mu_);
      ring_slots_.erase(id);
      return std::shared_ptr<const ReplyFrame>();
    }
    if (std::optional<Error> broken = Broken()) return *broken;
    if (waited == ClientRing::Wait::kClosed || DaemonGone()) {
      return Fail(MakeError(CKR_DEVICE_REMOVED, "connection closed by signetd"));
    }
    if (Clock::now() >= give_up) {
      return Fail(MakeError(CKR_DEVICE_ERROR, "no reply from signetd within the timeout"));
    }
  }
}

Status Client::Impl::FlushLocked() {
  if (outbox_.empty()) return OkStatus();
  if (write_failed_) return *write_failed_;
  if (std::optional<Error> broken = Broken()) return *broken;
  Status written = stream_->Write(outbox_);
  explicit_bzero(outbox_.data(), outbox_.size());
  outbox_.clear();
  if (written.ok()) return OkStatus();
  if (written.error().code != CKR_DEVICE_REMOVED) return Fail(std::move(written).error());
  // The daemon hung up on our requests (e.g. it is shutting down), but its
  // replies to earlier ones may still be in the socket: keep reading them.
  write_failed_ = std::move(written).error();
  return *write_failed_;
}

Status Client::Impl::FileReplies(Frames frames) {
  for (std::shared_ptr<const ReplyFrame>& frame : frames) {
    std::uint64_t id = frame->response().id();
    if (id == 0) {
      // The daemon could not read one of our frames; it cannot say which,
      // so no ticket can be answered reliably any more.
      return FailLocked(frame->ToError());
    }
    if (in_flight_.erase(id) == 0) {
      return FailLocked(MakeError(CKR_DEVICE_ERROR,
                                  "signetd replied to unknown request id " + std::to_string(id)));
    }
    replies_.emplace(id, std::move(frame));
    WakeLocked(id);
  }
  return OkStatus();
}

Result<Client::Impl::Frames> Client::Impl::ReadMore() {
  std::span<std::uint8_t> space = reader_.Prepare(64 * 1024);
  Result<std::size_t> got = stream_->Read(space);
  if (!got.ok()) {
    reader_.Commit(0);
    return std::move(got).error();
  }
  reader_.Commit(*got);
  Frames frames;
  std::span<const std::uint8_t> payload;
  for (;;) {
    proto::FrameReader::State state = reader_.Next(&payload);
    if (state == proto::FrameReader::State::kNeedMore) return frames;
    if (state == proto::FrameReader::State::kTooLarge) {
      return MakeError(CKR_DEVICE_ERROR, "signetd sent a frame over the size limit");
    }
    if (!VerifyReply(payload)) {
      return MakeError(CKR_DEVICE_ERROR, "signetd sent a malformed reply");
    }
    frames.push_back(std::make_shared<const ReplyFrame>(
        std::vector<std::uint8_t>(payload.begin(), payload.end())));
  }
}

Result<std::shared_ptr<const ReplyFrame>> Client::Impl::WaitReply(std::uint64_t id) {
  // Our request (and whatever else is queued) goes out before we wait. A
  // hang-up while writing is noted in write_failed_ and reading goes on:
  // replies to earlier requests may still be in the socket.
  (void)Flush();
  if (ring_) {
    std::optional<std::uint32_t> slot;
    {
      base::MutexLock lock(&recv_mu_);
      if (auto it = ring_slots_.find(id); it != ring_slots_.end()) slot = it->second;
    }
    if (slot) {
      SIGNET_ASSIGN_OR_RETURN(std::shared_ptr<const ReplyFrame> frame, WaitRing(id, *slot));
      if (frame) return frame;
      // Too large for the slot: the reply comes on the socket.
    }
  }
  base::MutexLock lock(&recv_mu_);
  base::CondVar wake;
  for (;;) {
    auto found = replies_.find(id);
    if (found != replies_.end()) {
      std::shared_ptr<const ReplyFrame> frame = std::move(found->second);
      replies_.erase(found);
      if (!reading_) HandOverReadingLocked();
      return frame;
    }
    if (broken_) return *broken_;
    if (in_flight_.count(id) == 0) {
      return MakeError(CKR_ARGUMENTS_BAD, "no request with id " + std::to_string(id) +
                                              " is pending (waited twice?)");
    }
    if (reading_) {
      // The reader files our reply, or hands the role on to us.
      auto sleeper = sleepers_.emplace(id, &wake);
      wake.Wait(&recv_mu_);
      sleepers_.erase(sleeper);
      continue;
    }
    reading_ = true;
    lock.Unlock();
    Result<Frames> frames = ReadMore();
    lock.Lock();
    reading_ = false;
    if (frames.ok()) {
      (void)FileReplies(std::move(*frames));  // a failure sets broken_
    } else {
      FailLocked(std::move(frames).error());
    }
  }
}

}  // namespace signet::client
