#include "bench/bench_commands.h"

#include <iostream>

#include "bench/app.h"
#include "bench/bench_operations.h"
#include "bench/keygen.h"
#include "bench/parallel.h"
#include "bench/profile.h"
#include "bench/seeds.h"
#include "bench/speed.h"

namespace signet::bench {
namespace {

using SharedHooks = std::shared_ptr<const BenchHooks>;

// Dispatch runs `job` now (a failure becomes CLI11's RuntimeError, which
// app.exit returns silently) or hands it to the caller's run_later.
void Dispatch(const BenchHooks& hooks, BenchJob job) {
  if (hooks.run_later) {
    hooks.run_later(std::move(job));
    return;
  }
  if (int code = job(); code != 0) throw CLI::RuntimeError(code);
}

void AddOutputOptions(CLI::App& cmd, std::string& csv, std::string& json) {
  cmd.add_option("--csv", csv,
                 "Also write the tables as CSV to this file, one file per table ('-': stdout)");
  cmd.add_option("--json", json, "Also write the tables as JSON to this file ('-': stdout)");
}

void AddChartOption(CLI::App& cmd, std::string& chart) {
  cmd.add_option("--chart", chart, "Also draw the tables as SVG bar charts in this file");
}

void AddSpeed(CLI::App& bench, SharedHooks hooks) {
  auto options = std::make_shared<SpeedOptions>();
  CLI::App* cmd = bench.add_subcommand(
      "speed", "Hash/cipher throughput (MiB/s, cycles/byte) and sign/verify cost (ms/op)");
  cmd->add_flag("--quick", options->quick, "Short measurements (rough numbers, for tests)");
  cmd->add_option("--algo", options->algorithms,
                  "Signature algorithms, e.g. rsa:2048,ec:p256,ed25519 (default: all)")
      ->delimiter(',');
  cmd->add_option("--sizes", options->sizes, "Buffer sizes in bytes (default: 64,1024,16384)")
      ->delimiter(',');
  cmd->add_flag("--no-bulk", options->skip_bulk, "Skip the hash and cipher table");
  cmd->add_flag("--no-sign", options->skip_sign, "Skip the sign and verify table");
  AddOutputOptions(*cmd, options->csv_path, options->json_path);
  AddChartOption(*cmd, options->chart_path);
  cmd->callback([options, hooks] {
    Dispatch(*hooks, [options] { return RunSpeed(*options, std::cout, std::cerr); });
  });
}

void AddKeygen(CLI::App& bench, SharedHooks hooks) {
  auto options = std::make_shared<KeygenOptions>();
  CLI::App* cmd =
      bench.add_subcommand("keygen", "Milliseconds per new key: best/mean/median/worst");
  cmd->add_option("--algo", options->algorithms, "Key types, e.g. rsa:2048,ec:p256 (default: all)")
      ->delimiter(',');
  cmd->add_option("--count", options->count,
                  "Keys per type (default: 10 for RSA <= 2048, 4 for 3072, 2 for 4096, "
                  "100 for EC/Ed25519)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--quick", options->quick, "Shorter cycle-counter calibration");
  AddOutputOptions(*cmd, options->csv_path, options->json_path);
  AddChartOption(*cmd, options->chart_path);
  cmd->callback([options, hooks] {
    Dispatch(*hooks, [options] { return RunKeygen(*options, std::cout, std::cerr); });
  });
}

// ParallelJob builds the daemon backend (if the caller can make one) when
// the job runs, not while parsing, then runs the table.
int ParallelJob(const ParallelOptions& options, const BenchHooks& hooks) {
  std::unique_ptr<SignerBackend> daemon;
  if (hooks.make_daemon_backend) {
    auto made = hooks.make_daemon_backend(options);
    if (!made.ok()) {
      std::cerr << "bench parallel: " << made.error().message << '\n';
      return 1;
    }
    daemon = std::move(*made);
  }
  return RunParallel(options, daemon.get(), std::cout, std::cerr);
}

void AddParallel(CLI::App& bench, SharedHooks hooks) {
  auto options = std::make_shared<ParallelOptions>();
  CLI::App* cmd = bench.add_subcommand(
      "parallel", "Signatures/sec for c concurrent clients (the parallel-signatures table)");
  std::string operations;
  for (const BenchOperation& op : AllBenchOperations()) {
    operations += (operations.empty() ? "" : ", ") + std::string(op.id);
  }
  cmd->add_option("--algo", options->algorithms,
                  "Signature algorithms, or other operations with --via pkcs11 or --raw (" +
                      operations + ") (default: rsa:1024,rsa:2048,rsa:4096)")
      ->delimiter(',');
  cmd->add_option("--clients", options->clients, "Client counts (default: 1,2,...,8)")
      ->delimiter(',');
  cmd->add_option("-n", options->n, "Operations per (algorithm, clients) run (default: 1000)")
      ->check(CLI::PositiveNumber);
  auto no_verify = std::make_shared<bool>(false);
  cmd->add_flag("--no-verify", *no_verify, "Do not verify each signature");
  cmd->add_flag("--raw", options->raw, "Also run the same load on crypto/ in-process");
  cmd->add_option("--chart", options->chart_path, "Write an SVG chart of sigs/sec to this file");
  cmd->add_option("--via", options->via,
                  "daemon (signetd, the default), pkcs11 (any module, with --module) or "
                  "cryptech (signetd's Cryptech listener; --socket is its socket)");
  cmd->add_option("--module", options->module_path, "PKCS#11 module to load with --via pkcs11");
  cmd->add_option("--token-label", options->token_label, "Token to use (default: the first)");
  cmd->add_option("--pipeline", options->pipeline,
                  "Daemon: K Sign requests in flight per client (default 1)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--batch", options->batch, "Daemon: K digests per SignBatch request (default 1)")
      ->check(CLI::PositiveNumber);
  AddOutputOptions(*cmd, options->csv_path, options->json_path);
  cmd->callback([options, no_verify, hooks] {
    options->verify = !*no_verify;
    Dispatch(*hooks, [options, hooks] { return ParallelJob(*options, *hooks); });
  });
}

// ProfileJob asks the caller's hook for a daemon backend and profiles it.
int ProfileJob(const ProfileOptions& options, const BenchHooks& hooks) {
  if (!hooks.make_daemon_backend) {
    std::cerr << "bench profile: no daemon backend in this build\n";
    return 2;
  }
  ParallelOptions parallel;  // via "daemon", one request at a time
  auto made = hooks.make_daemon_backend(parallel);
  if (!made.ok()) {
    std::cerr << "bench profile: " << made.error().message << '\n';
    return 1;
  }
  auto* daemon = dynamic_cast<DaemonBackend*>(made->get());
  if (daemon == nullptr) {
    std::cerr << "bench profile: the backend is not signetd\n";
    return 2;
  }
  return RunProfile(options, *daemon, std::cout, std::cerr);
}

void AddProfile(CLI::App& bench, SharedHooks hooks) {
  auto options = std::make_shared<ProfileOptions>();
  CLI::App* cmd = bench.add_subcommand(
      "profile", "Where a signature's time goes in signetd (per-phase counters over a run)");
  cmd->add_option("--algo", options->algorithm, "Algorithm (default: rsa:2048)");
  cmd->add_option("--clients", options->clients, "Concurrent clients (default: 2)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("-n", options->n, "Signatures (default: 1000)")->check(CLI::PositiveNumber);
  auto no_verify = std::make_shared<bool>(false);
  cmd->add_flag("--no-verify", *no_verify, "Do not verify each signature in the client");
  cmd->add_option("--format", options->format,
                  "table (phases, % of the whole) or callgraph (seed 001's gprof layout)");
  AddOutputOptions(*cmd, options->csv_path, options->json_path);
  AddChartOption(*cmd, options->chart_path);
  cmd->callback([options, no_verify, hooks] {
    options->verify = !*no_verify;
    Dispatch(*hooks, [options, hooks] { return ProfileJob(*options, *hooks); });
  });
}

void AddApp(CLI::App& bench, SharedHooks hooks) {
  auto options = std::make_shared<AppOptions>();
  CLI::App* cmd = bench.add_subcommand(
      "app", "Mutable-file create/upload/download ms per file, key pool on and off (seed 003)");
  cmd->add_option("--algo", options->algorithms,
                  "Key types (default: rsa:512,rsa:522,rsa:1024,rsa:2048,rsa:3072,rsa:4096,"
                  "ec:p256,ed25519; RSA under 1024 bits runs in-process)")
      ->delimiter(',');
  cmd->add_option("--pool", options->pool,
                  "on, off or both (default: both), or in-process: every type without a daemon");
  cmd->add_option("--trials", options->trials,
                  "Files per type and mode (default: 10; without pool 5 for RSA-3072, 3 for "
                  "RSA-4096)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--size", options->size, "Payload bytes per upload (default: 1024)");
  AddOutputOptions(*cmd, options->csv_path, options->json_path);
  AddChartOption(*cmd, options->chart_path);
  cmd->callback([options, hooks] {
    Dispatch(*hooks, [options, hooks] {
      ServiceAccess access = hooks->service_access ? hooks->service_access() : ServiceAccess{};
      return RunApp(*options, access, std::cout, std::cerr);
    });
  });
}

void AddSeeds(CLI::App& bench, SharedHooks hooks) {
  auto options = std::make_shared<SeedsOptions>();
  CLI::App* cmd = bench.add_subcommand(
      "seeds", "Every seed report's table, row for row, beside this machine's figures");
  cmd->add_flag("--full", options->full,
                "The seeds' own sizes (n 1000 per parallel line, ...): minutes, not seconds");
  AddOutputOptions(*cmd, options->csv_path, options->json_path);
  cmd->add_option("--chart", options->chart_path,
                  "Also draw one chart per seed table (seed against here) in this SVG file");
  cmd->add_option("--html", options->html_path,
                  "Also write an HTML report: per seed its source, tables and chart");
  cmd->callback([options, hooks] {
    Dispatch(*hooks, [options, hooks] {
      return RunSeeds(*options, {hooks->make_daemon_backend}, std::cout, std::cerr);
    });
  });
}

}  // namespace

void AddBenchCommands(CLI::App& app, BenchHooks hooks) {
  auto shared = std::make_shared<const BenchHooks>(std::move(hooks));
  CLI::App* bench = app.add_subcommand("bench", "Benchmarks reproducing the seed reports");
  bench->require_subcommand(1);
  AddSpeed(*bench, shared);
  AddKeygen(*bench, shared);
  AddParallel(*bench, shared);
  AddProfile(*bench, shared);
  AddApp(*bench, shared);
  AddSeeds(*bench, shared);
}

}  // namespace signet::bench
