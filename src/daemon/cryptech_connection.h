// CryptechConnection: one connection to the Cryptech listener (signetd
// --cryptech-socket, docs/CRYPTECH.md). It reads the byte stream in bulk,
// cuts it into SLIP packets, and hands them one at a time, in order, to its
// CryptechSession on the scheduler's workers; the worker writes the reply
// and goes on with the next packet if one is already waiting. Closing the
// connection logs its client out and deletes its session keys, as
// cryptech_muxd does.
//
// Thread contract: Start, Close, Drain, CloseWhenFlushed and the read and
// timer handlers run on the event loop; Serve runs on a worker (or, for a
// short signature while every worker is idle, on the event loop). The state
// both touch is under write_mu_.
#pragma once

#include <asio.hpp>
#include <atomic>
#include <deque>
#include <memory>

#include "base/mutex.h"
#include "daemon/cryptech_session.h"
#include "daemon/server.h"
#include "proto/slip.h"

namespace signet::daemon {

class CryptechConnection : public ConnectionBase,
                           public std::enable_shared_from_this<CryptechConnection> {
 public:
  using UnixSocket = asio::local::stream_protocol::socket;

  CryptechConnection(Server& server, UnixSocket socket, const PeerInfo& peer, CK_SLOT_ID slot);

  void Start();
  void Close() override EXCLUDES(write_mu_);
  void Drain() override EXCLUDES(write_mu_);
  void CloseWhenFlushed() override EXCLUDES(write_mu_);

 private:
  struct Packet {
    SecureBytes bytes;
    bool oversized = false;
  };

  void Read();
  void OnRead(std::size_t length) EXCLUDES(write_mu_);
  // StartServing hands `packet` to a worker, or with `on_loop` (the event
  // loop, nothing queued behind it) runs a short signature right here.
  void StartServing(Packet packet, bool on_loop) EXCLUDES(write_mu_);
  bool IsShortSign(const Packet& packet) const;
  // Serve answers `packet` and every packet queued behind it (a worker), or
  // only `packet` when `on_loop`.
  void Serve(Packet packet, bool on_loop) EXCLUDES(write_mu_);
  // Send writes `reply` whole; false when the connection is gone.
  bool SendLocked(const SecureBytes& reply) REQUIRES(write_mu_);
  void ArmTimer();
  void OnTimer() EXCLUDES(write_mu_);

  Server& server_;
  UnixSocket socket_;
  const std::string peer_;
  const std::shared_ptr<CryptechSession> session_;
  proto::SlipDecoder decoder_;
  std::vector<std::uint8_t> buffer_;
  asio::steady_timer timer_;
  // last_sign_ns_: how long this connection's last pkey_sign took; a
  // connection's first signature counts as long.
  std::atomic<std::uint64_t> last_sign_ns_{UINT64_MAX};
  bool reading_ = false;        // event loop only
  bool read_activity_ = false;  // event loop only: a read since the timer was armed
  base::Mutex write_mu_;
  std::deque<Packet> waiting_ GUARDED_BY(write_mu_);
  bool serving_ GUARDED_BY(write_mu_) = false;
  bool closed_ GUARDED_BY(write_mu_) = false;
  bool draining_ GUARDED_BY(write_mu_) = false;
  bool close_when_flushed_ GUARDED_BY(write_mu_) = false;
};

}  // namespace signet::daemon
