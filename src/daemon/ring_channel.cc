#include "daemon/ring_channel.h"

#include "core/stats.h"

namespace signet::daemon {

Result<std::shared_ptr<RingChannel>> RingChannel::Create(int* fd, std::size_t max_drains) {
  SIGNET_ASSIGN_OR_RETURN(proto::ring::Region region, proto::ring::Region::Create(fd));
  proto::ring::ServerRing ring(std::move(region));
  ring.Initialize();
  return std::shared_ptr<RingChannel>(new RingChannel(std::move(ring), max_drains));
}

bool RingChannel::StartDrain() {
  base::MutexLock lock(&mu_);
  if (closed_ || active_ > 0) return false;
  // A doorbell soon after the last drain left: a spin would have caught
  // this request, so the next drain spins.
  spin_pays_ = core::NowNs() - idle_since_ns_ <
               static_cast<std::uint64_t>(std::chrono::nanoseconds(kDrainSpin).count());
  active_ = 1;
  ring_.SetPolling(true);
  return true;
}

bool RingChannel::AddDrain() {
  base::MutexLock lock(&mu_);
  if (closed_ || active_ >= max_drains_ || !ring_.Pending()) return false;
  ++active_;
  return true;
}

void RingChannel::DrainNotStarted() {
  base::MutexLock lock(&mu_);
  EndDrainLocked();
}

void RingChannel::EndDrainLocked() {
  if (active_ > 0) --active_;
  if (active_ == 0) {
    ring_.SetPolling(false);
    idle_since_ns_ = core::NowNs();
  }
}

bool RingChannel::SpinForRequest(const std::function<bool()>& may_spin) {
  const std::uint64_t until =
      core::NowNs() + static_cast<std::uint64_t>(std::chrono::nanoseconds(kDrainSpin).count());
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
    switch (ring_.TakeNext(slot, payload, &broken)) {
      case proto::ring::ServerRing::Take::kRequest:
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
    if (active_ == 1 && spin_pays_ && may_spin()) {
      lock.Unlock();
      const bool came = SpinForRequest(may_spin);
      lock.Lock();
      if (came) continue;
      spin_pays_ = false;  // until a doorbell says the client is quick again
    }
    EndDrainLocked();
    // The last drain to leave looks once more after clearing
    // daemon_polling: a client that submitted before seeing it cleared rang
    // no doorbell, and its request is found here.
    if (active_ > 0 || !ring_.Pending()) return Next::kIdle;
    active_ = 1;
    ring_.SetPolling(true);
  }
}

void RingChannel::Close() {
  base::MutexLock lock(&mu_);
  if (closed_) return;
  closed_ = true;
  ring_.Close();
}

}  // namespace signet::daemon
