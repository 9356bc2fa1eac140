// AddBenchCommands: registers `bench speed`, `bench keygen` and
// `bench parallel` on a CLI11 app, so the CLI's main needs one call.
//
// Each subcommand's callback runs the benchmark and, on failure, throws
// CLI::RuntimeError(exit_code); the CLI's usual
//   try { app.parse(argc, argv); } catch (const CLI::ParseError& e) { return app.exit(e); }
// (or CLI11_PARSE) turns that into the process exit status. Output goes to
// std::cout, errors and the progress bar to std::cerr.
// Thread contract: call from main's thread before parsing.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>

#include "bench/signer_backend.h"

namespace signet::bench {

struct ParallelOptions;

// BenchHooks: what the layers above bench may plug in.
struct BenchHooks {
  // make_daemon_backend builds the daemon backend for `bench parallel`
  // (start or reach a daemon, create the token key per algorithm). Unset:
  // only --raw runs are possible.
  std::function<Result<std::unique_ptr<SignerBackend>>(const ParallelOptions&)> make_daemon_backend;
};

// AddBenchCommands adds the "bench" subcommand (with its three
// subcommands) to `app`. The options live as long as the returned
// callbacks, i.e. as long as `app`.
void AddBenchCommands(CLI::App& app, BenchHooks hooks = {});

}  // namespace signet::bench
