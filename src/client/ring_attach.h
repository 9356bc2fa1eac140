// AttachRing: the client's side of the shared-memory ring's set-up
// (docs/PROTOCOL.md "The shared-memory ring"). On a freshly connected Unix
// socket, before anything else is sent, it sends AttachRingRequest, reads
// the reply frame with recvmsg to take the memfd riding on it, and maps the
// ring. A daemon that refuses (--no-shared-memory, or one that predates the
// ring) leaves the connection usable over the socket alone.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "proto/shm_ring.h"
#include "signet/result.hpp"

namespace signet::client {

// AttachRing runs the exchange on connected socket `fd` with request id
// `id`, each wait bounded by `timeout` (zero: none). A ClientRing, or
// nullptr when the daemon refused (the socket is then still in step);
// an error when the exchange itself failed (the connection is then not
// usable).
Result<std::unique_ptr<proto::ring::ClientRing>> AttachRing(int fd, std::uint64_t id,
                                                            std::chrono::milliseconds timeout);

}  // namespace signet::client
