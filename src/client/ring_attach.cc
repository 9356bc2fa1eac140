#include "client/ring_attach.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "client/reply_frame.h"
#include "proto/framing.h"
#include "proto/signet_generated.h"

namespace signet::client {
namespace {

Error IoError(const char* what, int err) {
  return MakeError(CKR_DEVICE_ERROR,
                   std::string("shared-memory ring set-up: ") + what + ": " + std::strerror(err));
}

// Descriptor: closes the memfd on every path that does not map it.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) close(fd);
  }
};

Status WaitFor(int fd, short events, std::chrono::milliseconds timeout) {
  const int ms = timeout.count() > 0 ? static_cast<int>(timeout.count()) : -1;
  for (;;) {
    pollfd pfd{fd, events, 0};
    int n = poll(&pfd, 1, ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError("poll", errno);
    if (n == 0) return MakeError(CKR_DEVICE_ERROR, "shared-memory ring set-up: timed out");
    return OkStatus();
  }
}

Status SendAll(int fd, std::span<const std::uint8_t> data, std::chrono::milliseconds timeout) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = send(fd, data.data() + done, data.size() - done, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      SIGNET_TRY(WaitFor(fd, POLLOUT, timeout));
    } else {
      return IoError("send", errno);
    }
  }
  return OkStatus();
}

// ReceiveExactly reads exactly out.size() bytes; a descriptor passed with
// them lands in *passed (further ones are closed).
Status ReceiveExactly(int fd, std::span<std::uint8_t> out, Descriptor* passed,
                      std::chrono::milliseconds timeout) {
  std::size_t done = 0;
  while (done < out.size()) {
    iovec data{out.data() + done, out.size() - done};
    alignas(cmsghdr) char control[CMSG_SPACE(4 * sizeof(int))];
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    ssize_t n = recvmsg(fd, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      SIGNET_TRY(WaitFor(fd, POLLIN, timeout));
      continue;
    }
    if (n < 0) return IoError("recvmsg", errno);
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < count; ++i) {
        int received;
        std::memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        if (passed->fd < 0) {
          passed->fd = received;
        } else {
          close(received);
        }
      }
    }
    if (n == 0) return MakeError(CKR_DEVICE_REMOVED, "connection closed by signetd");
    done += static_cast<std::size_t>(n);
  }
  return OkStatus();
}

}  // namespace

Result<std::unique_ptr<proto::ring::ClientRing>> AttachRing(int fd, std::uint64_t id,
                                                            std::chrono::milliseconds timeout) {
  namespace ring = proto::ring;
  flatbuffers::FlatBufferBuilder fbb(64);
  fbb.Finish(wire::CreateRequest(fbb, id, proto::kProtocolVersion,
                                 wire::RequestBody::AttachRingRequest,
                                 wire::CreateAttachRingRequest(fbb).Union()));
  auto header = proto::EncodeFrameHeader(fbb.GetSize());
  std::vector<std::uint8_t> frame(header.begin(), header.end());
  frame.insert(frame.end(), fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  SIGNET_TRY(SendAll(fd, frame, timeout));

  Descriptor memfd;
  std::array<std::uint8_t, proto::kFrameHeaderSize> reply_header{};
  SIGNET_TRY(ReceiveExactly(fd, reply_header, &memfd, timeout));
  const std::uint32_t length = proto::DecodeFrameHeader(reply_header);
  if (length > proto::kDefaultMaxFrameSize) {
    return MakeError(CKR_DEVICE_ERROR, "signetd sent a frame over the size limit");
  }
  std::vector<std::uint8_t> payload(length);
  SIGNET_TRY(ReceiveExactly(fd, payload, &memfd, timeout));
  if (!VerifyReply(payload)) return MakeError(CKR_DEVICE_ERROR, "signetd sent a malformed reply");
  const wire::Response& response = *flatbuffers::GetRoot<wire::Response>(payload.data());
  if (response.id() == 0 && response.rv() != CKR_OK) {
    // A refusal of the connection itself (a connection limit), which the
    // daemon sends before any request: the caller sees it as it is.
    return MakeError(response.rv(), response.message() ? response.message()->str()
                                                       : "signetd refused the connection");
  }
  if (response.id() != id) {
    return MakeError(CKR_DEVICE_ERROR, "signetd answered another request than AttachRing");
  }
  if (response.rv() != CKR_OK) return std::unique_ptr<ring::ClientRing>();  // refused
  const wire::AttachRingResponse* body = response.body_as_AttachRingResponse();
  if (body == nullptr || memfd.fd < 0 || body->version() != ring::kVersion ||
      body->slot_count() != ring::kSlotCount || body->slot_size() != ring::kSlotSize ||
      body->region_size() != ring::kRegionSize) {
    return MakeError(CKR_DEVICE_ERROR,
                     "signetd offered a shared-memory ring this client cannot use");
  }
  SIGNET_ASSIGN_OR_RETURN(ring::Region region, ring::Region::Map(memfd.fd));
  return ring::ClientRing::Attach(std::move(region));
}

}  // namespace signet::client
