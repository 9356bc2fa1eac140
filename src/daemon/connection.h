// Connection<Stream>: one client connection over a Unix socket, or TCP with
// TLS. It owns the socket, the FrameReader, the queue of replies to write,
// and the core::ClientState (sessions, logins, handles) that dies with it.
//
// Limits (ServerOptions): a TLS handshake must end within
// handshake_timeout; a connection with no open session, nothing in flight
// and no request for idle_timeout is closed, and so is one whose client has
// taken no reply bytes for idle_timeout; requests are taken from the read
// buffer only while the replies waiting to be written plus the size bound of every reply still
// being computed stay under max_pending_write_bytes and fewer than
// max_in_flight requests run; past that the connection stops parsing and
// reading, and resumes from its buffer when replies drain. A client that
// half-closes (EOF) gets every reply to what it sent before the close.
//
// On a Unix socket the client may attach a shared-memory ring as its
// first request (AttachRing; docs/PROTOCOL.md "The shared-memory ring"):
// then requests that fit a slot arrive there, and an empty frame (the
// doorbell) asks for a drain, a worker task that takes requests from the
// ring and answers into it until it is empty (DrainRing, RingChannel).
//
// Thread contract: every member function runs on the event loop except
// Reply (and SendFromWorker under it), which workers call, Execute, which
// runs on a worker or, for a short signature, on the loop, and DrainRing
// with what it calls, on workers. On a Unix
// socket with nothing else waiting to be written, Reply sends it at once
// from the worker (one thread wake-up less per request); otherwise, and
// always with TLS, whose session is not thread-safe, it posts the reply to
// the event loop.
// write_mu_ guards the state both sides touch (GUARDED_BY, checked by
// clang's -Wthread-safety: base/mutex.h); it is never held across Close,
// which takes it, nor while the ClientState's mu is taken. A reply for a
// connection already closed is dropped.
#pragma once

#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <asio.hpp>
#include <asio/ssl.hpp>
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/secure_bytes.h"
#include "daemon/log.h"
#include "daemon/ring_channel.h"
#include "daemon/server.h"

namespace signet::daemon {

using TlsStream = asio::ssl::stream<asio::ip::tcp::socket>;
using UnixSocket = asio::local::stream_protocol::socket;

template <typename Stream>
class Connection : public ConnectionBase, public std::enable_shared_from_this<Connection<Stream>> {
 public:
  Connection(Server& server, Stream stream, const PeerInfo& peer)
      : ConnectionBase(peer.identity, std::is_same_v<Stream, TlsStream>),
        server_(server),
        stream_(std::move(stream)),
        peer_(peer.description),
        reader_(server.options().max_frame_size),
        client_(server.hsm().NewClient()),
        timer_(server.io()) {
    client_->peer = peer_;
    client_->peer_identity = peer.identity;
    client_->admin = peer.admin;
  }

  // Start begins the TLS handshake (TLS) and the read loop.
  void Start() {
    auto self = this->shared_from_this();
    last_activity_ = Clock::now();
    if constexpr (std::is_same_v<Stream, TlsStream>) {
      handshaking_ = true;
      ArmTimer(server_.options().handshake_timeout);
      stream_.async_handshake(asio::ssl::stream_base::server, [self](const asio::error_code& ec) {
        self->handshaking_ = false;
        if (ec) {
          if (!self->IsClosed()) {
            Log("tls handshake failed peer=" + self->peer_ + " error=" + ec.message());
          }
          self->Close();
          return;
        }
        if (X509* cert = SSL_get1_peer_certificate(self->stream_.native_handle())) {
          self->client_->admin = self->server_.IsAdminCertificate(cert);
          X509_free(cert);
        }
        Log("tls established peer=" + self->peer_ +
            (self->client_->admin ? " admin=yes" : " admin=no"));
        self->last_activity_ = Clock::now();
        self->ArmTimer(self->server_.options().idle_timeout);
        self->Read();
      });
    } else {
      ArmTimer(server_.options().idle_timeout);
      Read();
    }
  }

  void Drain() override {
    // No new requests; the read stays posted (a cancel would abort a TLS
    // write of a reply too) and ends when the connection closes.
    draining_ = true;
  }

  void CloseWhenFlushed() override EXCLUDES(write_mu_) {
    close_after_flush_ = true;
    bool idle;
    {
      base::MutexLock lock(&write_mu_);
      idle = !writing_;
    }
    if (idle) Close();
  }

  // Reply: a worker's finished reply (any thread) to a request counted in
  // flight with reply bound `bound`.
  void Reply(std::vector<std::uint8_t> frame, std::size_t bound) EXCLUDES(write_mu_) {
    if constexpr (std::is_same_v<Stream, UnixSocket>) {
      SendFromWorker(std::move(frame), bound);
      return;
    }
    asio::post(server_.io(),
               [self = this->shared_from_this(), frame = std::move(frame), bound]() mutable {
                 self->SendSettling(std::move(frame), bound);
               });
  }

  void Close() override EXCLUDES(write_mu_) {
    {
      base::MutexLock lock(&write_mu_);  // no worker is sending on the socket we close
      if (closed_) return;
      closed_ = true;
      asio::error_code ignored;
      LowestLayer().shutdown(asio::socket_base::shutdown_both, ignored);
      LowestLayer().close(ignored);
    }
    timer_.cancel();
    if (ring_) {
      ring_->Close();
      server_.CountRing(false);
    }
    std::size_t dropped = server_.scheduler().Cancel(client_->id());
    // Session objects and logins end with the connection. That may wait for
    // a PIN check of the same token, so it runs on a worker, behind any
    // request of this connection still running.
    server_.scheduler().SubmitControl(
        client_->id(), [hsm = &server_.hsm(), client = client_] { hsm->Disconnect(*client); });
    Log("disconnect peer=" + peer_ +
        (dropped ? " dropped_requests=" + std::to_string(dropped) : ""));
    server_.Unregister(this);
  }

 private:
  using Clock = std::chrono::steady_clock;

  auto& LowestLayer() {
    if constexpr (std::is_same_v<Stream, TlsStream>) {
      return stream_.lowest_layer();
    } else {
      return stream_;
    }
  }

  bool IsClosed() EXCLUDES(write_mu_) {
    base::MutexLock lock(&write_mu_);
    return closed_;
  }

  // ArmTimer: OnTimer runs after `after` (0: no timer).
  void ArmTimer(std::chrono::milliseconds after) {
    if (after.count() <= 0) {
      timer_.cancel();
      return;
    }
    timer_.expires_after(after);
    timer_.async_wait([self = this->shared_from_this()](const asio::error_code& ec) {
      if (!ec) self->OnTimer();
    });
  }

  // OnTimer ends a handshake that took too long, or an idle connection.
  void OnTimer() EXCLUDES(write_mu_) {
    if (IsClosed()) return;
    if (handshaking_) {
      Log("tls handshake timeout peer=" + peer_ + " after " +
          std::to_string(server_.options().handshake_timeout.count()) + " ms");
      Close();
      return;
    }
    const auto idle_timeout = server_.options().idle_timeout;
    if (idle_timeout.count() <= 0) return;
    const Clock::time_point ring_activity{
        std::chrono::nanoseconds(last_ring_request_ns_.load(std::memory_order_relaxed))};
    last_activity_ = std::max(last_activity_, ring_activity);
    const auto now = Clock::now();
    if (now - last_activity_ < idle_timeout) {
      ArmTimer(std::chrono::duration_cast<std::chrono::milliseconds>(last_activity_ +
                                                                     idle_timeout - now) +
               std::chrono::milliseconds(1));
      return;
    }
    bool busy;
    bool stalled;
    {
      base::MutexLock lock(&write_mu_);
      busy = in_flight_ > 0 || writing_ || !writes_.empty();
      stalled = writing_ && now - last_write_ >= idle_timeout;
    }
    if (stalled) {
      // A client that stopped reading pins its unwritten replies (up to
      // max_pending_write_bytes): not for longer than the idle timeout.
      Log("write stalled peer=" + peer_ + ": no reply bytes taken for " +
          std::to_string(idle_timeout.count()) + " ms; closing");
      Close();
      return;
    }
    if (!busy) {
      // A connection with an open session is an application's (a PKCS#11
      // module keeps its login there): it is bounded by the connection
      // caps, not ended for being quiet.
      base::MutexLock lock(&client_->mu);
      busy = !client_->sessions.empty();
    }
    if (busy) {
      last_activity_ = now;
      ArmTimer(idle_timeout);
      return;
    }
    Log("idle timeout peer=" + peer_ + " after " + std::to_string(idle_timeout.count()) + " ms");
    Close();
  }

  void Read() EXCLUDES(write_mu_) {
    if (draining_ || reading_ || eof_ || paused_) return;
    {
      base::MutexLock lock(&write_mu_);
      if (closed_) return;
      if (pending_bytes_ > server_.options().max_pending_write_bytes) {
        waiting_ = true;  // a full write queue pauses reading; a write resumes it
        return;
      }
    }
    reading_ = true;
    auto buffer = reader_.Prepare(64 * 1024);
    stream_.async_read_some(
        asio::buffer(buffer.data(), buffer.size()),
        [self = this->shared_from_this()](const asio::error_code& ec, std::size_t n) {
          self->reading_ = false;
          self->reader_.Commit(n);
          if (n > 0) self->last_activity_ = Clock::now();
          if (self->draining_) return;  // shutdown: no new requests
          if (ec) {
            if (ec == asio::error::eof || ec == asio::ssl::error::stream_truncated) {
              // Half-close: answer what was sent, then close.
              self->eof_ = true;
              self->Continue();
              return;
            }
            self->Close();
            return;
          }
          self->Continue();
        });
  }

  // Continue takes the buffered requests the bounds allow, then reads more,
  // or after EOF closes once everything is answered. Runs on the loop; the
  // wake-ups of a paused connection (WakeLocked) come here.
  void Continue() EXCLUDES(write_mu_) {
    // While a read is posted every whole frame was taken already.
    if (draining_ || reading_ || IsClosed()) return;
    paused_ = false;
    ProcessFrames();
    if (paused_ || draining_) return;
    if (eof_) {
      {
        base::MutexLock lock(&write_mu_);
        if (closed_) return;
        if (in_flight_ > 0 || writing_ || !writes_.empty()) {
          waiting_ = true;
          return;
        }
      }
      Close();
      return;
    }
    Read();
  }

  // OverBudget: the connection may not take another request now; asks for
  // a wake-up when that changes.
  bool OverBudget() EXCLUDES(write_mu_) {
    base::MutexLock lock(&write_mu_);
    const ServerOptions& o = server_.options();
    bool over =
        in_flight_ >= o.max_in_flight || pending_bytes_ + in_flight_bytes_ >= o.max_pending_write_bytes;
    if (over) waiting_ = true;
    return over;
  }

  // WakeLocked: replies drained or requests finished; a connection waiting
  // for that continues on the loop.
  void WakeLocked() REQUIRES(write_mu_) {
    if (!waiting_) return;
    waiting_ = false;
    asio::post(server_.io(), [self = this->shared_from_this()] { self->Continue(); });
  }

  void ProcessFrames() EXCLUDES(write_mu_) {
    std::span<const std::uint8_t> payload;
    for (;;) {
      if (OverBudget()) {
        paused_ = true;
        return;
      }
      switch (reader_.Next(&payload)) {
        case proto::FrameReader::State::kNeedMore:
          return;
        case proto::FrameReader::State::kTooLarge:
          Log("frame too large peer=" + peer_ +
              " length=" + std::to_string(reader_.declared_length()));
          Send(ErrorFrame(0, SIGNET_RV_FRAME_TOO_LARGE,
                          "frame length " + std::to_string(reader_.declared_length()) +
                              " exceeds the limit of " + std::to_string(reader_.max_frame_size())));
          draining_ = true;  // no more reads: the stream cannot be resynchronised
          CloseWhenFlushed();
          return;
        case proto::FrameReader::State::kFrame:
          HandleFrame(payload);
          reader_.WipeConsumed();  // it may have carried a PIN or a key
          break;
      }
    }
  }

  void HandleFrame(std::span<const std::uint8_t> payload) EXCLUDES(write_mu_) {
    const bool first_request = requests_seen_++ == 0;
    if (payload.empty() && ring_) {
      RingDoorbell();
      return;
    }
    std::uint64_t start = core::NowNs();
    const wire::Request* request = VerifyRequest(payload);
    server_.hsm().counters().Add(core::Phase::kDecode, core::NowNs() - start);
    if (request == nullptr) {
      Send(ErrorFrame(0, SIGNET_RV_MALFORMED_MESSAGE, "frame is not a valid signet Request"));
      return;
    }
    if constexpr (std::is_same_v<Stream, UnixSocket>) {
      if (request->body_type() == wire::RequestBody::AttachRingRequest) {
        AttachRing(request->id(), first_request);
        return;
      }
    }
    const Route route =
        RouteFor(*request, reader_.buffered(), last_sign_ns_.load(std::memory_order_relaxed));
    if (route == Route::kEventLoop) {
      Send(Dispatch(server_.hsm(), *client_, server_.view(), *request));
      return;
    }
    // A signature that took under kInlineSignNs last time on this
    // connection runs right here when every worker is idle and no other
    // request waits behind it in the buffer: waking a sleeping worker costs
    // about as much as an ECDSA signature on a virtual machine
    // (docs/PERFORMANCE.md). An RSA signature always goes to a worker.
    bool sign = request->body_type() == wire::RequestBody::SignRequest;
    if (route == Route::kHereIfIdle &&
        server_.scheduler().TryRunHere([&] { Send(Execute(*request, sign)); })) {
      return;
    }
    // The payload lives in the reader's buffer: the worker gets its own
    // copy, wiped when freed (it may carry a PIN or a key).
    auto copy = std::make_shared<SecureBytes>(payload.begin(), payload.end());
    const std::uint64_t id = request->id();
    const std::size_t bound = ReplySizeBound(*request, server_.options().max_frame_size);
    {
      base::MutexLock lock(&write_mu_);
      ++in_flight_;
      in_flight_bytes_ += bound;
    }
    bool queued = server_.scheduler().Submit(
        client_->id(), [self = this->shared_from_this(), copy, sign, bound] {
          self->Reply(self->Execute(*flatbuffers::GetRoot<wire::Request>(copy->data()), sign),
                      bound);
        });
    if (!queued) {
      {
        base::MutexLock lock(&write_mu_);
        --in_flight_;
        in_flight_bytes_ -= bound;
      }
      Send(server_.draining() ? ErrorFrame(id, SIGNET_RV_SHUTTING_DOWN, "daemon is shutting down")
                              : ErrorFrame(id, SIGNET_RV_BUSY, "work queue full; retry"));
    }
  }

  // AttachRing answers AttachRingRequest `id`: it makes the connection's
  // ring and sends its memfd with the reply (SCM_RIGHTS). Only as the first
  // request, with nothing in flight, so the descriptor rides on the only
  // bytes in the socket.
  void AttachRing(std::uint64_t id, bool first_request) EXCLUDES(write_mu_) {
    if (server_.options().no_shared_memory) {
      Send(ErrorFrame(id, CKR_FUNCTION_NOT_SUPPORTED,
                      "shared-memory rings are off (signetd --no-shared-memory)"));
      return;
    }
    if (!first_request || ring_ || reader_.buffered() != 0) {
      Send(ErrorFrame(id, CKR_FUNCTION_REJECTED,
                      "AttachRing must be a connection's first and only request in flight"));
      return;
    }
    int fd = -1;
    Result<std::shared_ptr<RingChannel>> ring =
        RingChannel::Create(&fd, server_.scheduler().workers());
    if (!ring.ok()) {
      Log("shared-memory ring refused peer=" + peer_ + ": " + ring.error().message);
      Send(ErrorFrame(id, CKR_DEVICE_MEMORY, "signetd could not make a shared-memory ring"));
      return;
    }
    bool sent = false;
    {
      base::MutexLock lock(&write_mu_);
      // A fresh connection's socket buffer is empty: the small frame goes
      // whole or the connection is not worth keeping.
      sent = !closed_ && !writing_ && writes_.empty() &&
             SendWithDescriptor(stream_.native_handle(), AttachRingFrame(id), fd);
    }
    ::close(fd);
    if (!sent) {
      Log("shared-memory ring: the reply could not be sent peer=" + peer_);
      Close();
      return;
    }
    ring_ = std::move(ring).value();
    server_.CountRing(true);
  }

  // RingDoorbell: the client submitted to its ring while no drain would
  // look at it unasked (RingChannel). A drain starts on a worker; when the
  // work queue is full, the ring's waiting requests are answered busy, as
  // on the socket.
  void RingDoorbell() {
    if (!ring_->StartDrain()) return;
    if (!server_.draining() && SubmitDrain()) {
      return;
    }
    DrainRing(true);  // refuse
  }

  // SubmitDrain queues a drain of the ring behind the connection's work.
  bool SubmitDrain() {
    return server_.scheduler().Submit(
        client_->id(), [self = this->shared_from_this()] { self->DrainRing(); },
        /*one_request=*/false, ring_->ClientCpu());
  }

  // DrainRing, on a worker: take a request from the ring, run it, write its
  // reply back; go on while the ring has requests, yielding the worker
  // when other connections' tasks wait (the scheduler's fairness). `refuse`
  // answers every request busy (or shutting down) instead.
  void DrainRing(bool refuse = false) {
    std::uint32_t slot = 0;
    SecureBytes payload;
    std::string why;
    // A worker may wait on the ring only while it has nothing else to do.
    const std::function<bool()> may_spin = [this, refuse] {
      return !refuse && server_.scheduler().Load() <= 1;
    };
    for (;;) {
      switch (ring_->TakeNext(&slot, &payload, &why, may_spin)) {
        case RingChannel::Next::kIdle:
        case RingChannel::Next::kClosed:
          return;
        case RingChannel::Next::kCorrupt:
          Log("shared-memory ring broken by the client peer=" + peer_ + ": " + why +
              "; closing the connection");
          asio::post(server_.io(), [self = this->shared_from_this()] { self->Close(); });
          return;
        case RingChannel::Next::kRequest:
          break;
      }
      last_ring_request_ns_.store(core::NowNs(), std::memory_order_relaxed);
      server_.CountRingRequest();
      if (!refuse && ring_->AddDrain() && !SubmitDrain()) {
        ring_->DrainNotStarted();
      }
      const std::uint64_t started = core::NowNs();
      RunRingRequest(slot, payload, refuse);
      ring_->EndRequest(core::NowNs() - started);
      explicit_bzero(payload.data(), payload.size());
      if (!refuse && server_.scheduler().HasQueued() && SubmitDrain()) {
        return;  // still counted active: the queued task looks at the ring next
      }
    }
  }

  // RunRingRequest runs one request from ring slot `slot` and puts its
  // reply in the slot, or on the socket when it does not fit there.
  void RunRingRequest(std::uint32_t slot, const SecureBytes& payload, bool refuse)
      EXCLUDES(write_mu_) {
    std::uint64_t start = core::NowNs();
    const wire::Request* request = VerifyRequest(payload);
    server_.hsm().counters().Add(core::Phase::kDecode, core::NowNs() - start);
    std::vector<std::uint8_t> frame;
    if (request == nullptr) {
      frame = ErrorFrame(0, SIGNET_RV_MALFORMED_MESSAGE, "ring slot holds no valid signet Request");
    } else if (refuse || server_.draining()) {
      frame = server_.draining()
                  ? ErrorFrame(request->id(), SIGNET_RV_SHUTTING_DOWN, "daemon is shutting down")
                  : ErrorFrame(request->id(), SIGNET_RV_BUSY, "work queue full; retry");
    } else if (request->body_type() == wire::RequestBody::AttachRingRequest) {
      frame = ErrorFrame(request->id(), CKR_FUNCTION_REJECTED, "AttachRing on the ring");
    } else if (!NeedsWorker(*request)) {
      // What the socket answers on the event loop (GetStats, error replies)
      // is not an executed request in the phase counters here either.
      frame = Dispatch(server_.hsm(), *client_, server_.view(), *request);
    } else {
      frame = Execute(*request, request->body_type() == wire::RequestBody::SignRequest);
    }
    std::span<const std::uint8_t> reply(frame);
    if (ring_->Reply(slot, reply.subspan(proto::kFrameHeaderSize))) return;
    const std::size_t size = frame.size();
    {
      base::MutexLock lock(&write_mu_);
      ++in_flight_;
      in_flight_bytes_ += size;
    }
    Reply(std::move(frame), size);  // rings exist on the Unix socket only: a direct send
    ring_->ReplyOnSocket(slot);
  }

  // Execute runs `request` and returns its framed reply; for a signature
  // it remembers how long it took.
  std::vector<std::uint8_t> Execute(const wire::Request& request, bool sign) {
    core::ScopedPhase execute(server_.hsm().counters(), core::Phase::kExecute);
    const std::uint64_t start = core::NowNs();
    std::vector<std::uint8_t> frame = Dispatch(server_.hsm(), *client_, server_.view(), request);
    if (sign) last_sign_ns_.store(core::NowNs() - start, std::memory_order_relaxed);
    return frame;
  }

  // SettleLocked: a request counted in flight has its reply.
  void SettleLocked(std::size_t bound) REQUIRES(write_mu_) {
    --in_flight_;
    in_flight_bytes_ -= bound;
    WakeLocked();
  }

  // Send queues a framed reply on the loop (dropped when closed).
  void Send(std::vector<std::uint8_t> frame) EXCLUDES(write_mu_) {
    base::MutexLock lock(&write_mu_);
    QueueLocked(std::move(frame));
  }

  // SendSettling: Send for the reply to a request counted in flight with
  // reply bound `bound` (TLS replies, which workers post to the loop).
  void SendSettling(std::vector<std::uint8_t> frame, std::size_t bound) EXCLUDES(write_mu_) {
    base::MutexLock lock(&write_mu_);
    SettleLocked(bound);
    QueueLocked(std::move(frame));
  }

  // QueueLocked queues `frame` and, when no write runs, starts one (on the
  // loop).
  void QueueLocked(std::vector<std::uint8_t> frame) REQUIRES(write_mu_) {
    if (closed_) return;
    pending_bytes_ += frame.size();
    writes_.push_back(std::move(frame));
    if (!writing_) StartWriteLocked();
  }

  // SendFromWorker writes `frame` straight to the socket when no other
  // write is queued or running. What the socket does not take at once is
  // queued, with writing_ held so nothing overtakes it, and the event loop
  // is asked to write it.
  void SendFromWorker(std::vector<std::uint8_t> frame, std::size_t bound) EXCLUDES(write_mu_) {
    base::MutexLock lock(&write_mu_);
    SettleLocked(bound);
    if (closed_) return;
    if (writing_) {
      pending_bytes_ += frame.size();
      writes_.push_back(std::move(frame));  // the running write picks it up
      return;
    }
    std::size_t done = 0;
    while (done < frame.size()) {
      ssize_t n = ::send(stream_.native_handle(), frame.data() + done, frame.size() - done,
                         MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0) {
        done += static_cast<std::size_t>(n);
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else {
        break;  // full socket buffer or an error: the event loop's write handles both
      }
    }
    if (done == frame.size()) return;
    frame.erase(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(done));
    pending_bytes_ += frame.size();
    writes_.push_back(std::move(frame));
    writing_ = true;
    last_write_ = Clock::now();
    asio::post(server_.io(), [self = this->shared_from_this()] { self->ContinueWriting(); });
  }

  // ContinueWriting writes what SendFromWorker queued, on the loop.
  void ContinueWriting() EXCLUDES(write_mu_) {
    base::MutexLock lock(&write_mu_);
    if (closed_ || WriteNextLocked()) return;
    lock.Unlock();
    if (close_after_flush_) Close();
  }

  // WriteNextLocked starts writing the first queued frame and returns true;
  // with none queued it ends writing and returns false, and the caller,
  // once it has released write_mu_, closes the connection if
  // CloseWhenFlushed asked for that (Close takes write_mu_).
  bool WriteNextLocked() REQUIRES(write_mu_) {
    if (writes_.empty()) {
      writing_ = false;
      WakeLocked();
      return false;
    }
    StartWriteLocked();
    return true;
  }

  // StartWriteLocked starts writing the first queued frame; there is one.
  void StartWriteLocked() REQUIRES(write_mu_) {
    if (!writing_) last_write_ = Clock::now();  // a write starts: progress from now
    writing_ = true;
    asio::async_write(stream_, asio::buffer(writes_.front()),
                      [self = this->shared_from_this()](const asio::error_code& ec, std::size_t) {
                        self->OnWritten(ec);
                      });
  }

  // OnWritten: the first queued frame is written (or the write failed).
  void OnWritten(const asio::error_code& ec) EXCLUDES(write_mu_) {
    base::MutexLock lock(&write_mu_);
    if (closed_) return;  // Close ran meanwhile: the reply is dropped
    pending_bytes_ -= writes_.front().size();
    writes_.pop_front();
    last_write_ = Clock::now();
    if (ec) {
      writing_ = false;
      lock.Unlock();
      Close();
      return;
    }
    WakeLocked();
    if (WriteNextLocked()) return;
    lock.Unlock();
    if (close_after_flush_) Close();
  }

  Server& server_;
  Stream stream_;
  std::string peer_;
  proto::FrameReader reader_;
  std::shared_ptr<core::ClientState> client_;
  asio::steady_timer timer_;                      // handshake and idle timeouts
  base::Mutex write_mu_;
  std::deque<std::vector<std::uint8_t>> writes_ GUARDED_BY(write_mu_);
  std::size_t pending_bytes_ GUARDED_BY(write_mu_) = 0;
  std::size_t in_flight_ GUARDED_BY(write_mu_) = 0;        // requests at the scheduler
  std::size_t in_flight_bytes_ GUARDED_BY(write_mu_) = 0;  // their reply bounds
  bool waiting_ GUARDED_BY(write_mu_) = false;  // the loop wants Continue when the above drop
  bool writing_ GUARDED_BY(write_mu_) = false;
  Clock::time_point last_write_ GUARDED_BY(write_mu_) = {};  // last write progress
  bool closed_ GUARDED_BY(write_mu_) = false;
  // The connection's shared-memory ring (Unix socket, after AttachRing):
  // set on the loop before any drain task exists, then only read.
  std::shared_ptr<RingChannel> ring_;
  // When a drain last took a request: ring traffic is activity too.
  std::atomic<std::uint64_t> last_ring_request_ns_{0};
  // The last signature's execute time; unknown (so never inline) at first.
  std::atomic<std::uint64_t> last_sign_ns_{~std::uint64_t{0}};
  // Event loop only:
  Clock::time_point last_activity_{};
  bool handshaking_ = false;
  std::uint64_t requests_seen_ = 0;
  bool reading_ = false;
  bool paused_ = false;  // requests left in the buffer until replies drain
  bool eof_ = false;     // the client half-closed
  bool draining_ = false;
  bool close_after_flush_ = false;
};

}  // namespace signet::daemon
