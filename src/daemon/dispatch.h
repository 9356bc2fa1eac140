// Dispatch: turns one verified wire::Request into one framed wire::Response
// by calling the Hsm. The handler for each operation is found in a table
// indexed by the request's union type, so an unknown operation is a table
// miss (CKR_FUNCTION_NOT_SUPPORTED), never undefined behaviour.
//
// Runs on scheduler workers, and on the event loop for requests that need
// no worker (NeedsWorker) and short signatures run inline. Thread contract:
// Dispatch may be called concurrently; what it reads of the server
// (ServerView) is immutable or atomic.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/hsm.h"
#include "core/request_metrics.h"
#include "core/scheduler.h"
#include "proto/signet_generated.h"

namespace signet::daemon {

class AuditLog;

// ServerView: what GetStats reports besides the Hsm's own counters.
struct ServerView {
  const core::Scheduler* scheduler = nullptr;
  const std::atomic<std::size_t>* connections = nullptr;
  // Requests taken from shared-memory rings, and connections with a ring
  // now (null: not counted).
  std::atomic<std::uint64_t>* ring_requests = nullptr;
  std::atomic<std::size_t>* ring_connections = nullptr;
  // Each dispatched request is counted here once (null: not counted).
  core::RequestMetrics* requests = nullptr;
  // No reply frame is larger than this (ServerOptions::max_frame_size).
  std::size_t max_frame_size = 1u << 20;
  // Where audited requests are recorded (`--audit-log`, `--audit-syslog`);
  // nullptr: as text lines on stderr (daemon/audit.h).
  AuditLog* audit_log = nullptr;
};

// kMaxSignBatchInputs: the most inputs one SignBatch takes, so that its reply
// (up to 4096-bit RSA signatures, ~540 bytes each with framing) fits the
// default 1 MiB frame limit with room to spare.
inline constexpr std::size_t kMaxSignBatchInputs = 1024;

// Dispatch runs `request` (already verified) for `client` and returns the
// framed response (header + payload). A reply that would exceed
// view.max_frame_size is replaced by a CKR_DATA_LEN_RANGE error reply.
std::vector<std::uint8_t> Dispatch(core::Hsm& hsm, core::ClientState& client,
                                   const ServerView& view, const wire::Request& request);

// ErrorFrame builds a framed body-less response: for errors found before a
// request could be dispatched (malformed frame, version, busy).
std::vector<std::uint8_t> ErrorFrame(std::uint64_t id, CK_RV rv, std::string_view message);

// AttachRingFrame builds the framed AttachRingResponse for request `id`:
// the ring layout of proto/shm_ring.h (the memfd travels beside it).
std::vector<std::uint8_t> AttachRingFrame(std::uint64_t id);

// VerifyRequest checks `payload` with the FlatBuffers verifier; on success
// returns the request, otherwise nullptr.
const wire::Request* VerifyRequest(std::span<const std::uint8_t> payload);

// ReplySizeBound estimates the largest reply `request` can get (at most
// `max_frame_size`): what a connection counts against its bound on unread
// replies while the request is in flight.
std::size_t ReplySizeBound(const wire::Request& request, std::size_t max_frame_size);

// NeedsWorker: false for requests answered on the event loop without the
// worker pool because they do no crypto and no disk I/O: GetStats, and the
// error replies to an unknown version or operation.
bool NeedsWorker(const wire::Request& request);

// kInlineSignNs: a signature whose previous run on the same connection took
// less than this may run on the event loop (Route::kHereIfIdle).
inline constexpr std::uint64_t kInlineSignNs = 100'000;

// Route: where a connection runs a verified request (Connection::HandleFrame).
enum class Route {
  kEventLoop,   // answered on the event loop at once (NeedsWorker is false)
  kHereIfIdle,  // a fast signature: on the event loop if every worker is idle
                // (core::Scheduler::TryRunHere), else as kWorker
  kWorker,      // queued for the worker pool behind the connection's earlier requests
};

// RouteFor decides the Route of `request`: kEventLoop when !NeedsWorker;
// kHereIfIdle for a SignRequest when no other bytes are buffered on the
// connection (`buffered`) and its last signature took under kInlineSignNs
// (`last_sign_ns`; ~0 before the first), because waking a sleeping worker
// costs about as much as an ECDSA signature; kWorker otherwise. Pure.
Route RouteFor(const wire::Request& request, std::size_t buffered, std::uint64_t last_sign_ns);

}  // namespace signet::daemon
