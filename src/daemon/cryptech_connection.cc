#include "daemon/cryptech_connection.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>

#include "daemon/dispatch.h"
#include "daemon/log.h"

namespace signet::daemon {
namespace {

// kReadChunk: bytes asked of the socket per read.
constexpr std::size_t kReadChunk = 64 * 1024;
// kMaxWaiting: packets queued behind the one being served before the
// connection stops reading (a client that does not wait for its replies
// cannot grow memory).
constexpr std::size_t kMaxWaiting = 8;

bool IsSign(const auto& packet) {
  std::uint32_t opcode = 0;
  return proto::XdrReader(packet.bytes).PeekU32(opcode) &&
         opcode == static_cast<std::uint32_t>(proto::hal::Opcode::kPkeySign);
}

}  // namespace

CryptechConnection::CryptechConnection(Server& server, UnixSocket socket, const PeerInfo& peer,
                                       CK_SLOT_ID slot)
    : ConnectionBase(peer.identity, /*tls=*/false),
      server_(server),
      socket_(std::move(socket)),
      peer_(peer.description),
      session_(std::make_shared<CryptechSession>(server.hsm(), slot, peer.description,
                                                 peer.identity, peer.admin)),
      decoder_(proto::hal::kMaxPacket),
      buffer_(kReadChunk),
      timer_(server.io()) {}

void CryptechConnection::Start() {
  ArmTimer();
  Read();
}

void CryptechConnection::Read() {
  reading_ = true;
  socket_.async_read_some(asio::buffer(buffer_),
                          [self = shared_from_this()](const asio::error_code& ec, std::size_t n) {
                            self->reading_ = false;
                            if (ec) {
                              if (ec != asio::error::operation_aborted) self->Close();
                              return;
                            }
                            self->OnRead(n);
                          });
}

void CryptechConnection::OnRead(std::size_t length) {
  read_activity_ = true;
  std::optional<Packet> start;
  bool nothing_behind = false;
  bool read_more;
  {
    base::MutexLock lock(&write_mu_);
    if (closed_) return;
    for (std::size_t i = 0; i < length; ++i) {
      if (!decoder_.Push(buffer_[i])) continue;
      // Shorter than opcode and client: no reply is due (libhal).
      if (decoder_.packet().size() < proto::hal::kRequestHeader) continue;
      waiting_.push_back({decoder_.packet(), decoder_.oversized()});
    }
    if (!serving_ && !waiting_.empty()) {
      serving_ = true;
      start = std::move(waiting_.front());
      waiting_.pop_front();
      nothing_behind = waiting_.empty();
    }
    read_more = !draining_ && waiting_.size() < kMaxWaiting;
  }
  if (start) StartServing(std::move(*start), /*on_loop=*/nothing_behind);
  if (read_more) Read();
}

bool CryptechConnection::IsShortSign(const Packet& packet) const {
  return !packet.oversized && IsSign(packet) &&
         last_sign_ns_.load(std::memory_order_relaxed) < kInlineSignNs;
}

void CryptechConnection::StartServing(Packet packet, bool on_loop) {
  // A signature that took under kInlineSignNs last time runs right here
  // when every worker is idle, as on signetd's own protocol
  // (Connection::HandleFrame): waking a worker costs as much as it.
  if (on_loop && IsShortSign(packet) &&
      server_.scheduler().TryRunHere([&] { Serve(std::move(packet), /*on_loop=*/true); })) {
    return;
  }
  auto shared = std::make_shared<Packet>(std::move(packet));
  bool queued = server_.scheduler().Submit(
      session_->client_id(),
      [self = shared_from_this(), shared] { self->Serve(std::move(*shared), false); });
  if (!queued) {
    // The work queue is full, or the daemon is stopping: CORE_BUSY, and
    // the client may retry. Packets behind it wait for its next read.
    base::MutexLock lock(&write_mu_);
    SendLocked(CryptechSession::ErrorReply(shared->bytes, proto::hal::Error::kCoreBusy));
    serving_ = false;
  }
}

void CryptechConnection::Serve(Packet packet, bool on_loop) {
  for (;;) {
    std::optional<SecureBytes> reply;
    if (packet.oversized) {
      reply = CryptechSession::ErrorReply(packet.bytes, proto::hal::Error::kRpcPacketOverflow);
    } else {
      const bool sign = IsSign(packet);
      const auto start = std::chrono::steady_clock::now();
      reply = session_->Handle(packet.bytes);
      if (sign) {
        last_sign_ns_.store(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::steady_clock::now() - start)
                                .count(),
                            std::memory_order_relaxed);
      }
    }
    bool more = false;
    bool resume_reading = false;
    bool close = false;
    {
      base::MutexLock lock(&write_mu_);
      if (reply && !SendLocked(*reply)) {
        serving_ = false;
        close = true;
      } else if (waiting_.empty()) {
        serving_ = false;
        close = close_when_flushed_;
      } else {
        resume_reading = waiting_.size() == kMaxWaiting && !draining_;
        packet = std::move(waiting_.front());
        waiting_.pop_front();
        more = true;
      }
    }
    if (resume_reading || close) {
      asio::post(server_.io(), [self = shared_from_this(), close] {
        if (close) {
          self->Close();
        } else if (!self->reading_) {
          self->Read();
        }
      });
    }
    if (!more) return;
    if (on_loop) {
      // The event loop ran one short signature; the rest go to a worker.
      StartServing(std::move(packet), /*on_loop=*/false);
      return;
    }
  }
}

bool CryptechConnection::SendLocked(const SecureBytes& reply) {
  if (closed_) return false;
  SecureBytes frame;
  proto::SlipEncode(reply, frame);
  // Written by the caller's thread: the client waits for this reply, so
  // its socket buffer has room. A client that stops reading gets 5 s.
  const int fd = socket_.native_handle();
  std::size_t sent = 0;
  for (int waits = 0; sent < frame.size();) {
    ssize_t n = ::send(fd, frame.data() + sent, frame.size() - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && waits++ < 50) {
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, 100);
      continue;
    }
    return false;
  }
  return true;
}

void CryptechConnection::ArmTimer() {
  const auto after = server_.options().idle_timeout;
  if (after.count() <= 0) return;
  read_activity_ = false;
  timer_.expires_after(after);
  timer_.async_wait([self = shared_from_this()](const asio::error_code& ec) {
    if (!ec) self->OnTimer();
  });
}

void CryptechConnection::OnTimer() {
  bool busy;
  {
    base::MutexLock lock(&write_mu_);
    busy = serving_ || !waiting_.empty();
  }
  // Idle: no request for a whole period, none in hand, and nothing the
  // client would lose (a login, an open handle).
  if (!read_activity_ && !busy && session_->idle()) {
    Log("cryptech: closing idle connection peer=" + peer_);
    Close();
    return;
  }
  ArmTimer();
}

void CryptechConnection::Drain() {
  base::MutexLock lock(&write_mu_);
  draining_ = true;
}

void CryptechConnection::CloseWhenFlushed() {
  bool idle;
  {
    base::MutexLock lock(&write_mu_);
    close_when_flushed_ = true;
    idle = !serving_;
  }
  if (idle) Close();
}

void CryptechConnection::Close() {
  {
    base::MutexLock lock(&write_mu_);  // no worker is writing to the socket we close
    if (closed_) return;
    closed_ = true;
    waiting_.clear();
    asio::error_code ignored;
    socket_.shutdown(asio::socket_base::shutdown_both, ignored);
    socket_.close(ignored);
  }
  timer_.cancel();
  server_.scheduler().Cancel(session_->client_id());
  // The connection's logins and session keys end with it, behind any
  // request of it still running (as cryptech_muxd's LOGOUT on close).
  server_.scheduler().SubmitControl(session_->client_id(),
                                    [session = session_] { session->Disconnect(); });
  Log("cryptech: disconnect peer=" + peer_);
  server_.Unregister(this);
}

}  // namespace signet::daemon
