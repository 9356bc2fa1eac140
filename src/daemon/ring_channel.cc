#include "daemon/ring_channel.h"

#include <sched.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

#include "core/stats.h"

namespace signet::daemon {

Result<std::shared_ptr<RingChannel>> RingChannel::Create(int* fd, std::size_t max_drains) {
  SIGNET_ASSIGN_OR_RETURN(proto::ring::Region region, proto::ring::Region::Create(fd));
  std::shared_ptr<RingChannel> channel(new RingChannel(std::move(region), max_drains));
  channel->ring_.Initialize();
  return channel;
}

namespace {

constexpr std::uint64_t kMaxDrainSpinNs =
    std::chrono::nanoseconds(RingChannel::kMaxDrainSpin).count();

}  // namespace

void RingChannel::PublishLocked() {
  // A client needs no doorbell while some drain is between requests (it
  // will take the next one), while every worker already drains this ring
  // (a doorbell could not add one), or while this ring's requests are short
  // (waiting for the busy drain costs less than a doorbell, an event-loop
  // wake-up and a worker's); otherwise it rings, and a drain starts on an
  // idle worker instead of the request waiting behind a long one.
  const bool short_requests =
      execute_ns_ < static_cast<std::uint64_t>(std::chrono::nanoseconds(kLongRequest).count());
  ring_.SetPolling(busy_ < active_ || active_ >= max_drains_ || (active_ > 0 && short_requests));
}

bool RingChannel::StartDrain() {
  base::MutexLock lock(&mu_);
  if (closed_ || active_ >= max_drains_) return false;
  if (active_ > 0 && !ring_.Pending()) return false;  // a drain already took it
  if (active_ == 0 && idle_since_ns_ != 0) NoteGapLocked(core::NowNs() - idle_since_ns_);
  ++active_;
  PublishLocked();
  return true;
}

bool RingChannel::AddDrain() {
  base::MutexLock lock(&mu_);
  if (closed_ || active_ >= max_drains_ || !ring_.Pending()) return false;
  ++active_;
  PublishLocked();
  return true;
}

void RingChannel::EndRequest(std::uint64_t took_ns) {
  base::MutexLock lock(&mu_);
  if (busy_ > 0) --busy_;
  execute_ns_ = (execute_ns_ * 7 + took_ns) / 8;
  PublishLocked();
}

void RingChannel::DrainNotStarted() {
  base::MutexLock lock(&mu_);
  EndDrainLocked();
}

void RingChannel::NoteGapLocked(std::uint64_t gap_ns) {
  // A pause of many spins' length says nothing about a tight loop: it
  // counts as one long gap, which turns spinning off until short gaps
  // bring the average down again.
  gap_ns = std::min(gap_ns, 4 * kMaxDrainSpinNs);
  gap_ns_ = gap_ns_ == 0 ? gap_ns : (gap_ns_ * 3 + gap_ns) / 4;
}

std::uint64_t RingChannel::SpinBudgetNsLocked() const {
  if (overlap_ >= 256 / 8) return 0;
  if (gap_ns_ == 0) return kMaxDrainSpinNs / 2;  // unknown: try once
  if (gap_ns_ >= kMaxDrainSpinNs) return 0;
  return std::min(kMaxDrainSpinNs, 2 * gap_ns_);
}

void RingChannel::EndDrainLocked() {
  if (active_ > 0) --active_;
  PublishLocked();
}

bool RingChannel::SpinForRequest(std::uint64_t until, const std::function<bool()>& may_spin) {
  do {
    for (int i = 0; i < 64; ++i) {
      if (ring_.Pending()) return true;
      proto::ring::CpuRelax();
    }
  } while (core::NowNs() < until && may_spin());
  return ring_.Pending();
}

RingChannel::Next RingChannel::TakeNext(std::uint32_t* slot, SecureBytes* payload, std::string* why,
                                        const std::function<bool()>& may_spin) {
  base::MutexLock lock(&mu_);
  for (;;) {
    if (closed_) {
      EndDrainLocked();
      return Next::kClosed;
    }
    const char* broken = nullptr;
    // Local first only while other drains serve the ring too: a lone
    // drain that passed over the oldest request would leave that client's
    // CPU idle rather than spare it a wake-up (docs/PERFORMANCE.md
    // "Serving each client on its own CPU").
    const int here = active_ > 1 ? sched_getcpu() : base::kAnyCpu;
    switch (ring_.TakeNext(slot, payload, &broken, here)) {
      case proto::ring::ServerRing::Take::kRequest:
        overlap_ = (overlap_ * 15 + (active_ > 1 || ring_.Pending() ? 256 : 0)) / 16;
        ++busy_;
        PublishLocked();
        return Next::kRequest;
      case proto::ring::ServerRing::Take::kCorrupt:
        *why = broken;
        closed_ = true;
        ring_.Close();
        EndDrainLocked();
        return Next::kCorrupt;
      case proto::ring::ServerRing::Take::kEmpty:
        break;
    }
    const std::uint64_t empty_at = core::NowNs();
    const std::uint64_t budget = active_ == 1 ? SpinBudgetNsLocked() : 0;
    if (budget > 0 && may_spin()) {
      lock.Unlock();
      const bool came = SpinForRequest(empty_at + budget, may_spin);
      lock.Lock();
      if (came) {
        NoteGapLocked(core::NowNs() - empty_at);
        continue;
      }
    }
    EndDrainLocked();
    // The gap a doorbell measures runs from here, the empty ring, so a
    // spin that just missed does not shorten it.
    if (active_ == 0) idle_since_ns_ = empty_at;
    // The last drain to leave looks once more after clearing
    // daemon_polling: a client that submitted before seeing it cleared rang
    // no doorbell, and its request is found here.
    if (active_ > 0 || !ring_.Pending()) return Next::kIdle;
    active_ = 1;
    PublishLocked();
  }
}

bool SendWithDescriptor(int socket, std::span<const std::uint8_t> frame, int fd) {
  iovec data{const_cast<std::uint8_t*>(frame.data()), frame.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof(control);
  cmsghdr* cmsg = CMSG_FIRSTHDR(&message);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
  const ssize_t sent = ::sendmsg(socket, &message, MSG_DONTWAIT | MSG_NOSIGNAL);
  return sent == static_cast<ssize_t>(frame.size());
}

void RingChannel::Close() {
  base::MutexLock lock(&mu_);
  if (closed_) return;
  closed_ = true;
  ring_.Close();
}

}  // namespace signet::daemon
