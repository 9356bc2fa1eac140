// CryptechConnection: one client connection to a libhal RPC server (signetd's
// Cryptech listener, docs/CRYPTECH.md) over a blocking Unix stream socket,
// as `bench parallel --via cryptech` opens one per client. Call sends one
// SLIP-framed request in one write and reads the reply in bulk (unlike
// libhal's C client, which makes one system call per byte); like Cryptech's
// clients it skips reply frames for another opcode and keeps one request
// outstanding. The typed calls (Login, PkeyLoad, PkeySign, PkeyDelete)
// are cryptech_requests.h's requests and replies.
// Thread contract: one thread at a time per connection.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "base/secure_bytes.h"
#include "bench/cryptech_requests.h"
#include "proto/hal_xdr.h"
#include "proto/slip.h"
#include "signet/result.hpp"

namespace signet::bench {

class CryptechConnection {
 public:
  // kDefaultTimeout: how long Call waits for a reply before giving up; a
  // bound on failure (a server that never answers), not a delay.
  static constexpr std::chrono::seconds kDefaultTimeout{120};

  // Connect opens the socket at `path`. CKR_DEVICE_ERROR naming the path
  // when it cannot.
  [[nodiscard]] static Result<std::unique_ptr<CryptechConnection>> Connect(
      const std::string& path, std::chrono::milliseconds timeout = kDefaultTimeout);
  // Adopt takes an already connected stream socket (tests: a socketpair).
  static std::unique_ptr<CryptechConnection> Adopt(
      int fd, std::chrono::milliseconds timeout = kDefaultTimeout);
  ~CryptechConnection();
  CryptechConnection(const CryptechConnection&) = delete;
  CryptechConnection& operator=(const CryptechConnection&) = delete;

  // Call sends `request` (a packet from cryptech_requests.h: opcode word
  // first) and waits for the reply to that opcode. On HAL_OK it returns a
  // reader over the results, valid until the next Call. Errors:
  // cryptech::StatusError for another status; CKR_DEVICE_ERROR for a reply
  // too short or too long, for a timeout and for I/O errors;
  // CKR_DEVICE_REMOVED when the server closed the connection. Each message
  // names the opcode.
  [[nodiscard]] Result<proto::XdrReader> Call(ByteView request);

  // Login logs in as `user` with `pin`.
  [[nodiscard]] Status Login(proto::hal::User user, ByteView pin);
  // PkeyLoad loads a key (PKCS#8 or SubjectPublicKeyInfo DER).
  [[nodiscard]] Result<cryptech::LoadedKey> PkeyLoad(std::uint32_t session, ByteView der,
                                                     std::uint32_t flags);
  // PkeySign signs `input` as given (hash handle 0).
  [[nodiscard]] Result<Bytes> PkeySign(std::uint32_t pkey, ByteView input, std::uint32_t sig_max);
  // PkeyDelete deletes a key.
  [[nodiscard]] Status PkeyDelete(std::uint32_t pkey);

 private:
  CryptechConnection(int fd, std::chrono::milliseconds timeout);

  // Send frames `request` and writes it whole.
  Status Send(ByteView request, std::uint32_t opcode);
  // NextPacket waits for the next complete packet into decoder_.packet().
  Status NextPacket(std::uint32_t opcode);

  int fd_;
  SecureBytes frame_;  // the framed request being sent (LOGIN carries the PIN)
  proto::SlipDecoder decoder_{proto::hal::kMaxPacket};
  std::array<std::uint8_t, 4096> inbox_{};
  std::size_t inbox_pos_ = 0;  // bytes of inbox_ the decoder has taken
  std::size_t inbox_end_ = 0;  // bytes of inbox_ received
};

}  // namespace signet::bench
