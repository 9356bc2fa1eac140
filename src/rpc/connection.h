// Connection<Stream>: one client connection over a Unix socket, or TCP with
// TLS. It owns the socket, the FrameReader, the queue of replies to write,
// and the core::ClientState (sessions, logins, handles) that dies with it.
//
// Thread contract: every member function runs on the event loop. Workers
// hold a shared_ptr to the connection only to post a reply back; a reply
// for a connection already closed is dropped.
#pragma once

#include <asio.hpp>
#include <asio/ssl.hpp>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "rpc/log.h"
#include "rpc/server.h"

namespace signet::rpc {

using TlsStream = asio::ssl::stream<asio::ip::tcp::socket>;
using UnixSocket = asio::local::stream_protocol::socket;

template <typename Stream>
class Connection : public ConnectionBase, public std::enable_shared_from_this<Connection<Stream>> {
 public:
  Connection(Server& server, Stream stream, std::string peer)
      : server_(server),
        stream_(std::move(stream)),
        peer_(std::move(peer)),
        reader_(server.options().max_frame_size),
        client_(server.hsm().NewClient()) {}

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
    if (!writing_) Close();
  }

  // Send queues a framed reply (dropped when closed).
  void Send(std::vector<std::uint8_t> frame) {
    if (closed_) return;
    pending_bytes_ += frame.size();
    writes_.push_back(std::move(frame));
    if (!writing_) WriteNext();
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
    if (closed_ || draining_ || reading_) return;
    if (pending_bytes_ > server_.options().max_pending_write_bytes) return;  // resumed by a write
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
    // The payload lives in the reader's buffer: the worker gets its own copy.
    auto copy = std::make_shared<std::vector<std::uint8_t>>(payload.begin(), payload.end());
    std::uint64_t id = request->id();
    bool queued =
        server_.scheduler().Submit(client_->id(), [self = this->shared_from_this(), copy] {
          core::ScopedPhase execute(self->server_.hsm().counters(), core::Phase::kExecute);
          auto* req = flatbuffers::GetRoot<wire::Request>(copy->data());
          auto frame = Dispatch(self->server_.hsm(), *self->client_, self->server_.view(), *req);
          asio::post(self->server_.io(),
                     [self, frame = std::move(frame)]() mutable { self->Send(std::move(frame)); });
        });
    if (!queued) {
      Send(server_.draining() ? ErrorFrame(id, SIGNET_RV_SHUTTING_DOWN, "daemon is shutting down")
                              : ErrorFrame(id, SIGNET_RV_BUSY, "work queue full; retry"));
    }
  }

  void WriteNext() {
    if (writes_.empty()) {
      writing_ = false;
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
                        if (self->closed_) return;  // Close ran meanwhile: the reply is dropped
                        self->pending_bytes_ -= self->writes_.front().size();
                        self->writes_.pop_front();
                        if (ec) {
                          self->writing_ = false;
                          self->Close();
                          return;
                        }
                        self->WriteNext();
                      });
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    asio::error_code ignored;
    LowestLayer().shutdown(asio::socket_base::shutdown_both, ignored);
    LowestLayer().close(ignored);
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
  std::deque<std::vector<std::uint8_t>> writes_;
  std::size_t pending_bytes_ = 0;
  bool reading_ = false;
  bool writing_ = false;
  bool draining_ = false;
  bool close_after_flush_ = false;
  bool closed_ = false;
};

}  // namespace signet::rpc
