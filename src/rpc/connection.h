// Connection<Stream>: one client connection over a Unix socket, or TCP with
// TLS. It owns the socket, the FrameReader, the queue of replies to write,
// and the core::ClientState (sessions, logins, handles) that dies with it.
//
// Thread contract: every member function runs on the event loop except
// Reply and Execute, which workers call. On a Unix socket with
// nothing else waiting to be written, Reply sends it at once from the worker
// (one thread wake-up less per request); otherwise, and always with TLS,
// whose session is not thread-safe, it posts the reply to the event loop.
// write_mu_ guards the write state both sides touch. A reply for a
// connection already closed is dropped.
#pragma once

#include <asio.hpp>
#include <asio/ssl.hpp>
#include <sys/socket.h>

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "rpc/log.h"
#include "rpc/server.h"

namespace signet::rpc {

using TlsStream = asio::ssl::stream<asio::ip::tcp::socket>;
using UnixSocket = asio::local::stream_protocol::socket;

// Signatures faster than this may run on the event loop (see HandleFrame).
inline constexpr std::uint64_t kInlineSignNs = 100'000;

template <typename Stream>
class Connection : public ConnectionBase, public std::enable_shared_from_this<Connection<Stream>> {
 public:
  Connection(Server& server, Stream stream, std::string peer)
      : server_(server),
        stream_(std::move(stream)),
        peer_(std::move(peer)),
        reader_(server.options().max_frame_size),
        client_(server.hsm().NewClient()) {
    client_->peer = peer_;
  }

  // Start begins the TLS handshake (TLS) and the read loop.
  void Start() {
    auto self = this->shared_from_this();
    if constexpr (std::is_same_v<Stream, TlsStream>) {
      stream_.async_handshake(asio::ssl::stream_base::server, [self](const asio::error_code& ec) {
        if (ec) {
          Log("tls handshake failed peer=" + self->peer_ + " error=" + ec.message());
          self->Close();
          return;
        }
        self->Read();
      });
    } else {
      Read();
    }
  }

  void Drain() override {
    draining_ = true;
    asio::error_code ignored;
    LowestLayer().cancel(ignored);
  }

  void CloseWhenFlushed() override {
    close_after_flush_ = true;
    bool idle;
    {
      std::lock_guard lock(write_mu_);
      idle = !writing_;
    }
    if (idle) Close();
  }

  // Send queues a framed reply (dropped when closed).
  void Send(std::vector<std::uint8_t> frame) {
    std::unique_lock lock(write_mu_);
    if (closed_) return;
    pending_bytes_ += frame.size();
    writes_.push_back(std::move(frame));
    if (!writing_) WriteNext(lock);
  }

  // Reply: a worker's finished reply (any thread).
  void Reply(std::vector<std::uint8_t> frame) {
    if constexpr (std::is_same_v<Stream, UnixSocket>) {
      SendFromWorker(std::move(frame));
      return;
    }
    asio::post(server_.io(), [self = this->shared_from_this(), frame = std::move(frame)]() mutable {
      self->Send(std::move(frame));
    });
  }

 private:
  auto& LowestLayer() {
    if constexpr (std::is_same_v<Stream, TlsStream>) {
      return stream_.lowest_layer();
    } else {
      return stream_;
    }
  }

  void Read() {
    {
      std::lock_guard lock(write_mu_);
      if (closed_ || pending_bytes_ > server_.options().max_pending_write_bytes) {
        return;  // a full write queue pauses reading; WriteNext resumes it
      }
    }
    if (draining_ || reading_) return;
    reading_ = true;
    auto buffer = reader_.Prepare(64 * 1024);
    stream_.async_read_some(
        asio::buffer(buffer.data(), buffer.size()),
        [self = this->shared_from_this()](const asio::error_code& ec, std::size_t n) {
          self->reading_ = false;
          self->reader_.Commit(n);
          if (ec) {
            if (ec == asio::error::operation_aborted && self->draining_) return;
            self->Close();
            return;
          }
          self->ProcessFrames();
          self->Read();
        });
  }

  void ProcessFrames() {
    std::span<const std::uint8_t> payload;
    for (;;) {
      switch (reader_.Next(&payload)) {
        case FrameReader::State::kNeedMore:
          return;
        case FrameReader::State::kTooLarge:
          Log("frame too large peer=" + peer_ +
              " length=" + std::to_string(reader_.declared_length()));
          Send(ErrorFrame(0, SIGNET_RV_FRAME_TOO_LARGE,
                          "frame length " + std::to_string(reader_.declared_length()) +
                              " exceeds the limit of " + std::to_string(reader_.max_frame_size())));
          draining_ = true;  // no more reads: the stream cannot be resynchronised
          CloseWhenFlushed();
          return;
        case FrameReader::State::kFrame:
          HandleFrame(payload);
          break;
      }
    }
  }

  void HandleFrame(std::span<const std::uint8_t> payload) {
    std::uint64_t start = core::NowNs();
    const wire::Request* request = VerifyRequest(payload);
    server_.hsm().counters().Add(core::Phase::kDecode, core::NowNs() - start);
    if (request == nullptr) {
      Send(ErrorFrame(0, SIGNET_RV_MALFORMED_MESSAGE, "frame is not a valid signet Request"));
      return;
    }
    if (!NeedsWorker(*request)) {
      Send(Dispatch(server_.hsm(), *client_, server_.view(), *request));
      return;
    }
    // A signature that took under kInlineSignNs last time on this
    // connection runs right here when every worker is idle and no other
    // request waits behind it in the buffer: waking a sleeping worker costs
    // about as much as an ECDSA signature on a virtual machine
    // (docs/PERFORMANCE.md). An RSA signature always goes to a worker.
    bool sign = request->body_type() == wire::RequestBody::SignRequest;
    if (sign && reader_.buffered() == 0 &&
        last_sign_ns_.load(std::memory_order_relaxed) < kInlineSignNs &&
        server_.scheduler().TryRunHere([&] { Send(Execute(*request, sign)); })) {
      return;
    }
    // The payload lives in the reader's buffer: the worker gets its own copy.
    auto copy = std::make_shared<std::vector<std::uint8_t>>(payload.begin(), payload.end());
    std::uint64_t id = request->id();
    bool queued =
        server_.scheduler().Submit(client_->id(), [self = this->shared_from_this(), copy, sign] {
          self->Reply(self->Execute(*flatbuffers::GetRoot<wire::Request>(copy->data()), sign));
        });
    if (!queued) {
      Send(server_.draining() ? ErrorFrame(id, SIGNET_RV_SHUTTING_DOWN, "daemon is shutting down")
                              : ErrorFrame(id, SIGNET_RV_BUSY, "work queue full; retry"));
    }
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

  // SendFromWorker writes `frame` straight to the socket when no other
  // write is queued or running. What the socket does not take at once is
  // queued, with writing_ held so nothing overtakes it, and the event loop
  // is asked to write it.
  void SendFromWorker(std::vector<std::uint8_t> frame) {
    std::lock_guard lock(write_mu_);
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
    asio::post(server_.io(), [self = this->shared_from_this()] {
      std::unique_lock loop_lock(self->write_mu_);
      if (!self->closed_) self->WriteNext(loop_lock);
    });
  }

  // WriteNext starts writing the first queued frame. Holds write_mu_.
  void WriteNext(std::unique_lock<std::mutex>& lock) {
    if (writes_.empty()) {
      writing_ = false;
      lock.unlock();
      if (close_after_flush_) {
        Close();
      } else {
        Read();  // may resume reading paused by backpressure
      }
      return;
    }
    writing_ = true;
    asio::async_write(stream_, asio::buffer(writes_.front()),
                      [self = this->shared_from_this()](const asio::error_code& ec, std::size_t) {
                        std::unique_lock done_lock(self->write_mu_);
                        if (self->closed_) return;  // Close ran meanwhile: the reply is dropped
                        self->pending_bytes_ -= self->writes_.front().size();
                        self->writes_.pop_front();
                        if (ec) {
                          self->writing_ = false;
                          done_lock.unlock();
                          self->Close();
                          return;
                        }
                        self->WriteNext(done_lock);
                      });
  }

  void Close() {
    {
      std::lock_guard lock(write_mu_);  // no worker is sending on the socket we close
      if (closed_) return;
      closed_ = true;
      asio::error_code ignored;
      LowestLayer().shutdown(asio::socket_base::shutdown_both, ignored);
      LowestLayer().close(ignored);
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

  Server& server_;
  Stream stream_;
  std::string peer_;
  FrameReader reader_;
  std::shared_ptr<core::ClientState> client_;
  std::mutex write_mu_;
  std::deque<std::vector<std::uint8_t>> writes_;  // guarded by write_mu_
  std::size_t pending_bytes_ = 0;                 // guarded by write_mu_
  bool writing_ = false;                          // guarded by write_mu_
  bool closed_ = false;                           // guarded by write_mu_
  // The last signature's execute time; unknown (so never inline) at first.
  std::atomic<std::uint64_t> last_sign_ns_{~std::uint64_t{0}};
  bool reading_ = false;
  bool draining_ = false;
  bool close_after_flush_ = false;
};

}  // namespace signet::rpc
