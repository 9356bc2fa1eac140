// RingChannel: one connection's shared-memory ring on the daemon's side
// (proto/shm_ring.h, docs/PROTOCOL.md "The shared-memory ring"): the
// ServerRing and how many workers are draining it.
//
// A drain is a worker task that takes requests from the ring, runs them and
// writes their replies back, until the ring is empty (Connection<Stream>::
// DrainRing). The ring's daemon_polling word tells the client whether a
// submission needs a doorbell: not while a drain is between requests (it
// takes the next one), nor while every worker already drains this ring;
// yes while every drain is busy running a long request (kLongRequest) and
// a worker could start another, so two threads of one client signing with
// RSA run on two cores. The last drain
// to leave clears it and looks once more, so a request submitted meanwhile
// is never stranded. A drain that finds more waiting also asks for another
// (up to one per worker).
//
// The last drain, finding the ring empty, may keep its worker on the ring
// a little before it leaves: when the caller says the worker has nothing
// else to do (may_spin), and the client's gap (from an empty ring to its
// next request, a moving average) is under kMaxDrainSpin, it waits up to
// twice that gap, unless the client lately had several requests in the
// ring at once (its threads then need the cores). A client in a tight loop
// (one thread signing at a time, verifying each signature between
// requests) then never rings, and neither side sleeps; a client with
// longer pauses, or many threads, costs no spinning.
//
// Thread contract: every member may be called from any thread; the
// accounting is under mu_, never held while a request runs.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "base/mutex.h"
#include "base/secure_bytes.h"
#include "proto/shm_ring.h"
#include "signet/result.hpp"

namespace signet::daemon {

class RingChannel {
 public:
  // kMaxDrainSpin: the longest the last drain waits on an empty ring; a
  // client whose gap is longer gets no spin.
  static constexpr std::chrono::microseconds kMaxDrainSpin{200};
  // kLongRequest: requests that take longer than this on average are worth
  // a second drain (a doorbell's system call and two wake-ups) rather than
  // a wait behind the busy one: RSA, not ECDSA or EdDSA.
  static constexpr std::chrono::microseconds kLongRequest{100};

  // Create makes a ring; *fd receives its memfd, to send to the client and
  // then close. At most `max_drains` drains run at once.
  static Result<std::shared_ptr<RingChannel>> Create(int* fd, std::size_t max_drains);

  // StartDrain: a doorbell came. True when the caller must start a drain
  // (none is active, or every active one is busy with a request and a
  // worker is left); it then counts as active.
  bool StartDrain() EXCLUDES(mu_);

  // AddDrain: a drain holding a request sees more waiting. True when the
  // caller should start another drain (counted active from now);
  // DrainNotStarted undoes that when it could not be started.
  bool AddDrain() EXCLUDES(mu_);
  void DrainNotStarted() EXCLUDES(mu_);

  // EndRequest: a drain finished the request TakeNext gave it, which took
  // `took_ns` to run.
  void EndRequest(std::uint64_t took_ns) EXCLUDES(mu_);

  enum class Next { kRequest, kIdle, kCorrupt, kClosed };
  // TakeNext, for an active drain: the next request's slot and payload
  // (while several drains serve the ring, preferring one whose client runs
  // on the caller's CPU); or
  // kIdle (the ring is empty and this drain has ended), kClosed (ended), or
  // kCorrupt (ended; *why says what rule the client broke, and the ring is
  // closed). `may_spin` says whether a worker is free to wait on the ring
  // (asked only when spinning is in question; checked again while spinning).
  Next TakeNext(std::uint32_t* slot, SecureBytes* payload, std::string* why,
                const std::function<bool()>& may_spin) EXCLUDES(mu_);

  // Reply / ReplyOnSocket: proto::ring::ServerRing's, for a taken slot.
  bool Reply(std::uint32_t slot, std::span<const std::uint8_t> reply) {
    return ring_.Reply(slot, reply);
  }
  void ReplyOnSocket(std::uint32_t slot) { ring_.ReplyOnSocket(slot); }

  // ClientCpu: the CPU the client submitted its last taken request from
  // (base::kAnyCpu: unknown); a hint for which worker should take its next
  // drain.
  int ClientCpu() const { return ring_.LastClientCpu(); }

  // Close ends the ring: drains stop at their next TakeNext and the
  // client's waiters wake.
  void Close() EXCLUDES(mu_);

 private:
  RingChannel(proto::ring::Region region, std::size_t max_drains)
      : ring_(std::move(region)), max_drains_(max_drains) {}

  // EndDrainLocked: a drain leaves; the last one clears daemon_polling.
  void EndDrainLocked() REQUIRES(mu_);
  // PublishLocked writes daemon_polling from active_ and busy_.
  void PublishLocked() REQUIRES(mu_);
  // SpinForRequest: waits until `until_ns` for a submission while
  // `may_spin` holds; true when one came. Called without mu_ by the only
  // active drain (so nothing else moves the ring's head meanwhile).
  bool SpinForRequest(std::uint64_t until_ns, const std::function<bool()>& may_spin);
  // SpinBudgetNsLocked: how long the last drain waits (0: it does not).
  std::uint64_t SpinBudgetNsLocked() const REQUIRES(mu_);
  // NoteGapLocked folds one observed client gap into gap_ns_.
  void NoteGapLocked(std::uint64_t gap_ns) REQUIRES(mu_);

  proto::ring::ServerRing ring_;  // TakeNext under mu_; Reply per slot, any thread
  const std::size_t max_drains_;
  base::Mutex mu_;
  std::size_t active_ GUARDED_BY(mu_) = 0;        // drains started and not ended
  std::size_t busy_ GUARDED_BY(mu_) = 0;          // of those, running a request
  std::uint64_t execute_ns_ GUARDED_BY(mu_) = 0;  // moving average of a request's run
  bool closed_ GUARDED_BY(mu_) = false;
  // When the ring was last found empty by a drain that then left (0:
  // never), and the client's gap: the moving average of the time from an
  // empty ring to its next request (0: not yet known).
  std::uint64_t idle_since_ns_ GUARDED_BY(mu_) = 0;
  std::uint64_t gap_ns_ GUARDED_BY(mu_) = 0;
  // How often (moving average, 1/256ths) a taken request had company: more
  // waiting behind it, or another drain busy.
  std::uint32_t overlap_ GUARDED_BY(mu_) = 0;
};

// SendWithDescriptor sends `frame` on connected Unix socket `socket` with
// `fd` as SCM_RIGHTS ancillary data, in one non-blocking sendmsg; true when
// all of it went.
bool SendWithDescriptor(int socket, std::span<const std::uint8_t> frame, int fd);

}  // namespace signet::daemon
