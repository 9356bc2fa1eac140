// RunLoad: the engine of `bench parallel`. It runs c client threads that
// together perform exactly n operations, timing each one, and reports the
// wall-clock window [t0, t1] of the whole load as a ParallelRun.
//
// Each client thread first builds its own Operation with the WorkerFactory
// (open a connection and session, or just capture a key), so set-up cost
// stays outside [t0, t1]; then all clients start together and take the next
// operation index from a shared counter until n are done. The daemon mode
// and the raw mode differ only in the factory they pass.
// Thread contract: RunLoad blocks its caller; the factory and every
// Operation run on the client threads (one Operation per thread, never
// shared), the progress callback on the caller's thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "bench/parallel_line.h"
#include "signet/result.hpp"

namespace signet::bench {

// Operation: one timed unit of work (sign, and verify unless disabled).
// `op_index` is unique in [0, n). A failure stops the whole load.
using Operation = std::function<Status(std::uint64_t op_index)>;

// WorkerFactory builds client `client_index`'s Operation, on that client's
// thread. A failure aborts the load before it starts.
using WorkerFactory = std::function<Result<Operation>(int client_index)>;

// ProgressFn receives the number of completed operations, on the caller's
// thread, about ten times a second.
using ProgressFn = std::function<void(std::uint64_t done)>;

struct LoadSpec {
  std::string algo;         // copied into the ParallelRun, e.g. "rsa_2048"
  int clients = 1;          // c >= 1
  std::uint64_t total = 0;  // n >= 1
};

// RunLoad runs the load. On success the ParallelRun holds n latencies and
// t0/t1; on failure it returns the first Error any client hit (with the
// client index in the message). CKR_ARGUMENTS_BAD when c < 1 or n < 1.
[[nodiscard]] Result<ParallelRun> RunLoad(const LoadSpec& spec, const WorkerFactory& factory,
                                          const ProgressFn& progress = {});

}  // namespace signet::bench
