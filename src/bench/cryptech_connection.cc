#include "bench/cryptech_connection.h"

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace signet::bench {
namespace {

using proto::hal::Opcode;

std::string Named(std::uint32_t opcode) {
  return std::string(proto::hal::OpcodeName(opcode)) + " (" + std::to_string(opcode) + ")";
}

Error IoError(const std::string& what, std::uint32_t opcode, int err) {
  return MakeError(CKR_DEVICE_ERROR, what + " during " + Named(opcode) + ": " + std::strerror(err));
}

// OpcodeOf: the first word of a request packet (0 when there is none).
std::uint32_t OpcodeOf(ByteView request) {
  std::uint32_t opcode = 0;
  proto::XdrReader(request).PeekU32(opcode);
  return opcode;
}

}  // namespace

CryptechConnection::CryptechConnection(int fd, std::chrono::milliseconds timeout) : fd_(fd) {
  // The socket blocks; the receive timeout bounds a wait for a reply that
  // never comes.
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>(timeout.count() % 1000 * 1000);
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

CryptechConnection::~CryptechConnection() { close(fd_); }

Result<std::unique_ptr<CryptechConnection>> CryptechConnection::Connect(
    const std::string& path, std::chrono::milliseconds timeout) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(addr.sun_path)) {
    return MakeError(CKR_DEVICE_ERROR, "'" + path + "' cannot be a Unix socket path");
  }
  std::memcpy(addr.sun_path, path.data(), path.size());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return MakeError(CKR_DEVICE_ERROR, std::string("socket: ") + std::strerror(errno));
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    const int err = errno;
    close(fd);
    return MakeError(CKR_DEVICE_ERROR,
                     "cannot connect to the Cryptech socket " + path + ": " + std::strerror(err));
  }
  return Adopt(fd, timeout);
}

std::unique_ptr<CryptechConnection> CryptechConnection::Adopt(int fd,
                                                              std::chrono::milliseconds timeout) {
  return std::unique_ptr<CryptechConnection>(new CryptechConnection(fd, timeout));
}

Status CryptechConnection::Send(ByteView request, std::uint32_t opcode) {
  frame_.clear();
  proto::SlipEncode(request, frame_);
  std::size_t done = 0;
  while (done < frame_.size()) {
    const ssize_t n = ::send(fd_, frame_.data() + done, frame_.size() - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
      return MakeError(CKR_DEVICE_REMOVED,
                       "the Cryptech listener closed the connection during " + Named(opcode));
    } else {
      return IoError("send", opcode, n < 0 ? errno : EIO);
    }
  }
  return OkStatus();
}

Status CryptechConnection::NextPacket(std::uint32_t opcode) {
  for (;;) {
    while (inbox_pos_ < inbox_end_) {
      if (decoder_.Push(inbox_[inbox_pos_++])) {
        if (decoder_.oversized()) {
          return MakeError(CKR_DEVICE_ERROR, "the Cryptech listener's reply to " + Named(opcode) +
                                                 " exceeds 16,384 bytes");
        }
        return OkStatus();
      }
    }
    const ssize_t n = ::recv(fd_, inbox_.data(), inbox_.size(), 0);
    if (n > 0) {
      inbox_pos_ = 0;
      inbox_end_ = static_cast<std::size_t>(n);
    } else if (n == 0 || (n < 0 && errno == ECONNRESET)) {
      return MakeError(CKR_DEVICE_REMOVED,
                       "the Cryptech listener closed the connection during " + Named(opcode));
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      return MakeError(CKR_DEVICE_ERROR, "no reply to " + Named(opcode) + " in time");
    } else {
      return IoError("recv", opcode, errno);
    }
  }
}

Result<proto::XdrReader> CryptechConnection::Call(ByteView request) {
  const std::uint32_t opcode = OpcodeOf(request);
  SIGNET_TRY(Send(request, opcode));
  for (;;) {
    SIGNET_TRY(NextPacket(opcode));
    proto::XdrReader reply(decoder_.packet());
    cryptech::ReplyHeader header;
    if (!cryptech::ReadReplyHeader(reply, header)) {
      return MakeError(CKR_DEVICE_ERROR,
                       "the Cryptech listener's reply to " + Named(opcode) + " is cut short");
    }
    // Cryptech's clients skip replies to other opcodes (libhal's
    // read_matching_packet); so does this one.
    if (header.opcode != opcode) continue;
    if (header.status != static_cast<std::uint32_t>(proto::hal::Error::kOk)) {
      return cryptech::StatusError(opcode, header.status);
    }
    return reply;
  }
}

Status CryptechConnection::Login(proto::hal::User user, ByteView pin) {
  SIGNET_TRY(Call(cryptech::LoginRequest(user, pin)));
  return OkStatus();
}

Result<cryptech::LoadedKey> CryptechConnection::PkeyLoad(std::uint32_t session, ByteView der,
                                                         std::uint32_t flags) {
  SIGNET_ASSIGN_OR_RETURN(proto::XdrReader results,
                          Call(cryptech::PkeyLoadRequest(session, der, flags)));
  return cryptech::ReadLoadedKey(results);
}

Result<Bytes> CryptechConnection::PkeySign(std::uint32_t pkey, ByteView input,
                                           std::uint32_t sig_max) {
  SIGNET_ASSIGN_OR_RETURN(proto::XdrReader results,
                          Call(cryptech::PkeySignRequest(pkey, 0, input, sig_max)));
  return cryptech::ReadSignature(results);
}

Status CryptechConnection::PkeyDelete(std::uint32_t pkey) {
  SIGNET_TRY(Call(cryptech::PkeyDeleteRequest(pkey)));
  return OkStatus();
}

}  // namespace signet::bench
