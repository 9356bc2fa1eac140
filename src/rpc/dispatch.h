// Dispatch: turns one verified wire::Request into one framed wire::Response
// by calling the Hsm. The handler for each operation is found in a table
// indexed by the request's union type, so an unknown operation is a table
// miss (CKR_FUNCTION_NOT_SUPPORTED), never undefined behaviour.
//
// Runs on scheduler workers. Thread contract: Dispatch may be called
// concurrently; the ServerCounters are atomics.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/hsm.h"
#include "core/scheduler.h"
#include "signet_generated.h"

namespace signet::rpc {

// ServerView: what GetStats reports besides the Hsm's own counters.
struct ServerView {
  const core::Scheduler* scheduler = nullptr;
  const std::atomic<std::size_t>* connections = nullptr;
};

// Dispatch runs `request` (already verified) for `client` and returns the
// framed response (header + payload).
std::vector<std::uint8_t> Dispatch(core::Hsm& hsm, core::ClientState& client,
                                   const ServerView& view, const wire::Request& request);

// ErrorFrame builds a framed body-less response: for errors found before a
// request could be dispatched (malformed frame, version, busy).
std::vector<std::uint8_t> ErrorFrame(std::uint64_t id, CK_RV rv, std::string_view message);

// VerifyRequest checks `payload` with the FlatBuffers verifier; on success
// returns the request, otherwise nullptr.
const wire::Request* VerifyRequest(std::span<const std::uint8_t> payload);

// NeedsWorker: false for requests answered on the event loop without the
// worker pool because they do no crypto and no disk I/O: GetStats, and the
// error replies to an unknown version or operation.
bool NeedsWorker(const wire::Request& request);

}  // namespace signet::rpc
