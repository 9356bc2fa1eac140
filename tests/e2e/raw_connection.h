// RawConnection: a client socket speaking raw frames, for requests the
// client library never sends (garbage, pipelined floods, half-closes) and for
// watching how the daemon ends a connection. Unix socket or plain TCP (no
// TLS). Belongs to one test thread.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "process.h"
#include "proto/framing.h"
#include "proto/signet_generated.h"

namespace signet::e2e {

// Framed returns header || payload, a frame as the client writes it.
inline std::vector<std::uint8_t> Framed(std::span<const std::uint8_t> payload) {
  auto header = proto::EncodeFrameHeader(static_cast<std::uint32_t>(payload.size()));
  std::vector<std::uint8_t> frame(header.begin(), header.end());
  frame.insert(frame.end(), payload.begin(), payload.end());
  return frame;
}

class RawConnection {
 public:
  // RawConnection connects to the Unix socket at `path`.
  explicit RawConnection(const std::string& path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  // RawConnection connects to 127.0.0.1:`port` (plain TCP, no TLS).
  explicit RawConnection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~RawConnection() { Close(); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return connected_; }
  int fd() const { return fd_; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  void ShutdownWrite() { ::shutdown(fd_, SHUT_WR); }

  // Send writes all of `bytes` (MSG_NOSIGNAL: a closed peer is an error).
  bool Send(std::span<const std::uint8_t> bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes = bytes.subspan(static_cast<std::size_t>(n));
    }
    return true;
  }
  bool SendFrame(std::span<const std::uint8_t> payload) { return Send(Framed(payload)); }

  // ReadFrame returns the next reply payload, or nullopt when the daemon
  // closed the connection. Waits at most `timeout_ms` (a hang fails the
  // test); a reply over the frame limit fails the test too.
  std::optional<std::vector<std::uint8_t>> ReadFrame(int timeout_ms = 20000) {
    std::span<const std::uint8_t> payload;
    for (;;) {
      proto::FrameReader::State state = reader_.Next(&payload);
      if (state == proto::FrameReader::State::kFrame) break;
      if (state == proto::FrameReader::State::kTooLarge) {
        ADD_FAILURE() << "reply of " << reader_.declared_length()
                      << " bytes exceeds the frame limit";
        return std::nullopt;
      }
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, timeout_ms) != 1) {
        ADD_FAILURE() << "no reply within " << timeout_ms << " ms";
        return std::nullopt;
      }
      std::uint8_t buf[16384];
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return std::nullopt;
      reader_.Feed(std::span<const std::uint8_t>(buf, static_cast<std::size_t>(n)));
    }
    return std::vector<std::uint8_t>(payload.begin(), payload.end());
  }

  // ExpectClosed: the daemon closes the connection (EOF) without more replies.
  void ExpectClosed(int timeout_ms = 20000) {
    auto frame = ReadFrame(timeout_ms);
    EXPECT_FALSE(frame.has_value()) << "expected the daemon to close the connection";
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  proto::FrameReader reader_;
};

// ParseResponse verifies `payload` as a Response; nullptr when it is not one.
inline const wire::Response* ParseResponse(const std::vector<std::uint8_t>& payload) {
  flatbuffers::Verifier verifier(payload.data(), payload.size());
  if (!verifier.VerifyBuffer<wire::Response>(nullptr)) return nullptr;
  return flatbuffers::GetRoot<wire::Response>(payload.data());
}

// FrameOf returns header || the finished buffer of `fbb`.
inline std::vector<std::uint8_t> FrameOf(const flatbuffers::FlatBufferBuilder& fbb) {
  return Framed({fbb.GetBufferPointer(), fbb.GetSize()});
}

// GetInfoFrame / OpenSessionFrame / GenerateRandomFrame / GetStatsFrame:
// framed requests with id `id`.
inline std::vector<std::uint8_t> GetInfoFrame(std::uint64_t id) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(wire::CreateRequest(fbb, id, proto::kProtocolVersion,
                                 wire::RequestBody::GetInfoRequest,
                                 wire::CreateGetInfoRequest(fbb).Union()));
  return FrameOf(fbb);
}
inline std::vector<std::uint8_t> OpenSessionFrame(std::uint64_t id) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(wire::CreateRequest(fbb, id, proto::kProtocolVersion,
                                 wire::RequestBody::OpenSessionRequest,
                                 wire::CreateOpenSessionRequest(fbb, 0, CKF_SERIAL_SESSION).Union()));
  return FrameOf(fbb);
}
inline std::vector<std::uint8_t> GenerateRandomFrame(std::uint64_t id, std::uint64_t session,
                                                     std::uint64_t length) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(wire::CreateRequest(
      fbb, id, proto::kProtocolVersion, wire::RequestBody::GenerateRandomRequest,
      wire::CreateGenerateRandomRequest(fbb, session, length).Union()));
  return FrameOf(fbb);
}
inline std::vector<std::uint8_t> GetStatsFrame(std::uint64_t id) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(wire::CreateRequest(fbb, id, proto::kProtocolVersion,
                                 wire::RequestBody::GetStatsRequest,
                                 wire::CreateGetStatsRequest(fbb).Union()));
  return FrameOf(fbb);
}

// OpenRawSession opens a session on slot 0 over `conn`; 0 on failure (with
// a test failure).
inline std::uint64_t OpenRawSession(RawConnection& conn) {
  if (!conn.Send(OpenSessionFrame(1))) {
    ADD_FAILURE() << "cannot send OpenSession";
    return 0;
  }
  auto reply = conn.ReadFrame();
  const wire::Response* response = reply ? ParseResponse(*reply) : nullptr;
  if (response == nullptr || response->rv() != CKR_OK ||
      response->body_as_SessionResponse() == nullptr) {
    ADD_FAILURE() << "OpenSession failed";
    return 0;
  }
  return response->body_as_SessionResponse()->session();
}

// LogEventually: `needle` shows in the daemon's log within 10 s (the log
// reaches the test through a pipe, so a line written before a reply may be
// read after it).
inline bool LogEventually(const Daemon& daemon, const std::string& needle) {
  return daemon.WaitForLog(
      [&](const std::string& log) { return log.find(needle) != std::string::npos; },
      std::chrono::seconds(10));
}

}  // namespace signet::e2e
