// Client::Impl: the state behind one client connection: the byte stream, the
// frame reader, the queue of encoded requests not yet written, the replies
// received but not yet waited for, and the request-id counter.
//
// Thread contract: every member may be called from many threads at once.
// Two locks, never one held across a round trip:
//   - send_mu_ guards the outbox and every write to the stream: a request
//     body is encoded into its own Request (no lock), Submit takes send_mu_
//     only to append the framed bytes (and write them past 64 KiB).
//   - recv_mu_ guards in_flight_, replies_, broken_, reading_ and
//     sleepers_. Leader/follower: a waiter whose reply is not here becomes
//     the reader when nobody reads (it reads the stream WITHOUT recv_mu_ and
//     files every whole reply under it); otherwise it sleeps on its own
//     condition variable. The reader wakes only the sleepers whose replies
//     it filed, and on leaving hands the role to one sleeper still waiting,
//     so a reply costs one wake-up however many threads share the client.
// With a shared-memory ring (ring_attach.h), a request that fits a slot
// skips all of that: the thread copies it into a free slot (ClientRing's own
// lock), notes id -> slot in ring_slots_, and later waits on that slot alone
// (WaitRing: a spin, then a futex sleep), so no thread reads for another.
// Flush sends the doorbell frame when the daemon is not polling the ring. A
// reply too large for its slot comes on the socket, by the path above.
// Lock order: send_mu_ before recv_mu_; recv_mu_ is never held while
// taking send_mu_ or doing I/O. The stream is written by one thread at a
// time (send_mu_) and read by one thread at a time (reading_), possibly at
// the same moment: Stream implementations allow exactly that.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "base/mutex.h"
#include "base/secure_bytes.h"
#include "client/reply_frame.h"
#include "client/stream.h"
#include "proto/framing.h"
#include "proto/shm_ring.h"
#include "proto/signet_generated.h"
#include "signet/client.hpp"

namespace signet::client {

class Client::Impl {
 public:
  // kAttachRingId: the request id of AttachRing, sent before the Impl
  // exists (ring_attach.h); its own ids start after it.
  static constexpr std::uint64_t kAttachRingId = 1;

  explicit Impl(std::unique_ptr<Stream> stream) : stream_(std::move(stream)) {}
  // With a shared-memory ring: `socket_fd` is the stream's socket (watched
  // for the daemon's end while a thread waits on the ring), `timeout` bounds
  // each wait as the stream's does (zero: none).
  Impl(std::unique_ptr<Stream> stream, std::unique_ptr<proto::ring::ClientRing> ring, int socket_fd,
       std::chrono::milliseconds timeout)
      : stream_(std::move(stream)),
        ring_(std::move(ring)),
        socket_fd_(socket_fd),
        timeout_(timeout),
        next_id_(kAttachRingId + 1) {}

  // Request: one request being encoded by one thread. Send* encode the body
  // into builder() and finish with Enqueue; the builder is the Request's
  // own, so threads encode in parallel without a lock.
  class Request {
   public:
    explicit Request(Impl* impl) : impl_(impl) {}
    Request(const Request&) = delete;
    Request& operator=(const Request&) = delete;

    flatbuffers::FlatBufferBuilder& builder() { return builder_; }

    // Enqueue finishes the request around `body` with a fresh id, frames it
    // and queues it for writing (flushing past 64 KiB). `secret` wipes the
    // builder's copy at once (PINs, imported keys).
    template <typename T>
    Result<Pending<T>> Enqueue(wire::RequestBody type, flatbuffers::Offset<void> body,
                               Result<T> (*decode)(const ReplyFrame&), bool secret = false) {
      SIGNET_ASSIGN_OR_RETURN(std::uint64_t id, impl_->Submit(builder_, type, body, secret));
      return Pending<T>{id, decode};
    }

   private:
    Impl* impl_;
    flatbuffers::FlatBufferBuilder builder_{1024};
  };

  // NewRequest starts encoding a request on this connection.
  Request NewRequest() { return Request(this); }

  // Flush writes every queued byte (of every thread's requests).
  Status Flush() EXCLUDES(send_mu_);

  // WaitReply returns the reply for `id`, reading the stream as needed (or
  // waiting while another thread reads it).
  Result<std::shared_ptr<const ReplyFrame>> WaitReply(std::uint64_t id)
      EXCLUDES(send_mu_, recv_mu_);

  std::size_t in_flight() const EXCLUDES(recv_mu_) {
    base::MutexLock lock(&recv_mu_);
    return in_flight_.size() + replies_.size();
  }

 private:
  using Frames = std::vector<std::shared_ptr<const ReplyFrame>>;

  // Submit finishes `fbb` as a Request with a fresh id and queues it.
  Result<std::uint64_t> Submit(flatbuffers::FlatBufferBuilder& fbb, wire::RequestBody type,
                               flatbuffers::Offset<void> body, bool secret)
      EXCLUDES(send_mu_, recv_mu_);
  // SubmitToRing puts `payload` (request `id`, at most a slot's capacity)
  // in a free ring slot and returns true; false when no slot is free or the
  // connection is broken (the socket path then sends or reports it).
  bool SubmitToRing(std::uint64_t id, std::span<const std::uint8_t> payload) EXCLUDES(recv_mu_);
  // WaitRing waits for request `id` in ring slot `slot`: its reply, or
  // nullptr when the daemon sent it on the socket instead.
  Result<std::shared_ptr<const ReplyFrame>> WaitRing(std::uint64_t id, std::uint32_t slot)
      EXCLUDES(send_mu_, recv_mu_);
  // SpinBudget: how long a waiter that may spin does so before it sleeps,
  // from the recent round trip.
  std::chrono::nanoseconds SpinBudget() const;
  // RingCheckInterval: how long a waiter sleeps before it looks whether
  // signetd is still there (kRingCheckMin..kRingCheckMax).
  std::chrono::microseconds RingCheckInterval() const;
  // DaemonGone: the socket says signetd closed or died.
  bool DaemonGone() const;
  // FlushLocked: Flush with send_mu_ held.
  Status FlushLocked() REQUIRES(send_mu_) EXCLUDES(recv_mu_);
  // ReadMore reads once from the stream and returns every whole reply.
  // REQUIRES: this thread is the reader (reading_), recv_mu_ NOT held.
  Result<Frames> ReadMore() EXCLUDES(recv_mu_);
  // FileReplies moves `frames` into replies_. REQUIRES: recv_mu_ held.
  Status FileReplies(Frames frames) REQUIRES(recv_mu_);
  // Fail / FailLocked mark the connection unusable and wake every waiter;
  // every later call returns `error`. Fail takes recv_mu_ itself.
  Error Fail(Error error) EXCLUDES(recv_mu_);
  Error FailLocked(Error error) REQUIRES(recv_mu_);
  std::optional<Error> Broken() const EXCLUDES(recv_mu_);

  std::unique_ptr<Stream> stream_;
  std::unique_ptr<proto::ring::ClientRing> ring_;  // null: the socket alone
  int socket_fd_ = -1;
  std::chrono::milliseconds timeout_{0};
  std::atomic<std::uint64_t> next_id_{1};
  // The recent ring round trip (ns, moving average), for SpinBudget and
  // RingCheckInterval.
  std::atomic<std::uint64_t> ring_round_trip_ns_{0};

  base::Mutex send_mu_ ACQUIRED_BEFORE(recv_mu_);
  // Framed requests not yet written (may hold PINs).
  SecureBytes outbox_ GUARDED_BY(send_mu_);
  // write_failed_: the daemon stopped taking requests (it closed or is
  // draining); replies it already sent may still be read, so this does not
  // break the connection until the stream ends.
  std::optional<Error> write_failed_ GUARDED_BY(send_mu_);

  // WakeLocked wakes the sleepers waiting for `id`, if any. REQUIRES:
  // recv_mu_ held.
  void WakeLocked(std::uint64_t id) REQUIRES(recv_mu_);
  // HandOverReadingLocked wakes one sleeper whose reply has not arrived, to
  // become the reader. REQUIRES: recv_mu_ held, reading_ false.
  void HandOverReadingLocked() REQUIRES(recv_mu_);

  mutable base::Mutex recv_mu_;
  bool reading_ GUARDED_BY(recv_mu_) = false;  // a thread is in ReadMore
  // Threads asleep in WaitReply, by the request id they wait for.
  std::multimap<std::uint64_t, base::CondVar*> sleepers_ GUARDED_BY(recv_mu_);
  // reader_ is used only by the reader (the thread that set reading_), with
  // recv_mu_ not held: the role, not a lock, makes it exclusive.
  proto::FrameReader reader_;
  std::set<std::uint64_t> in_flight_ GUARDED_BY(recv_mu_);  // sent, reply not yet received
  // Received, not yet waited for.
  std::map<std::uint64_t, std::shared_ptr<const ReplyFrame>> replies_ GUARDED_BY(recv_mu_);
  std::optional<Error> broken_ GUARDED_BY(recv_mu_);
  // Requests sent through the ring, by id: their slots. Also in in_flight_,
  // since a reply too large for its slot comes on the socket.
  std::map<std::uint64_t, std::uint32_t> ring_slots_ GUARDED_BY(recv_mu_);
};

}  // namespace signet::client
