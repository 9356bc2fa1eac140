// AddBenchCommands: registers `bench speed`, `bench keygen`,
// `bench parallel`, `bench profile`, `bench app` and `bench seeds` on a
// CLI11 app, so the CLI's main needs one call.
//
// When a bench subcommand is selected, its CLI11 callback either runs the
// benchmark at once (hooks.run_later unset: a non-zero exit code is thrown
// as CLI::RuntimeError(code), which app.exit(e) returns without printing)
// or hands it to hooks.run_later (for a main that runs the selected command
// after parsing). Output goes to std::cout, errors and the progress bar to
// std::cerr; a failing benchmark has already printed why.
// Thread contract: call from main's thread before parsing.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>

#include "bench/backend_factory.h"
#include "bench/signer_backend.h"

namespace signet::bench {

struct ParallelOptions;

// BenchJob: a parsed bench command ready to run; returns the exit code
// (0 success, 1 failure, 2 unusable options).
using BenchJob = std::function<int()>;

// BenchHooks: what the layers above bench may plug in.
struct BenchHooks {
  // make_daemon_backend builds the daemon backend for `bench parallel`
  // (start or reach a daemon, create the token key per algorithm), using
  // whatever global options (socket, PIN) the caller captured. Unset: only
  // --raw runs are possible.
  std::function<Result<std::unique_ptr<SignerBackend>>(const ParallelOptions&)> make_daemon_backend;
  // run_later, when set, receives the selected command's job during parsing
  // instead of the job running inside the parse.
  std::function<void(BenchJob)> run_later;
  // service_access returns the caller's global --socket/--pin/--token for
  // `bench app` (a non-empty socket: measure that daemon). Unset: `bench
  // app` starts its own daemons.
  std::function<ServiceAccess()> service_access;
};

// AddBenchCommands adds the "bench" subcommand (with its
// subcommands) to `app`. Parsed options are owned by the callbacks, which
// live as long as `app`; a job handed to run_later owns them too.
void AddBenchCommands(CLI::App& app, BenchHooks hooks = {});

}  // namespace signet::bench
