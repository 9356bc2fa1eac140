// The `signet` program: see program.h.
#include "cli/program.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "base/printable.h"
#include "base/rv_names.h"
#include "bench/backend_factory.h"
#include "bench/bench_commands.h"
#include "cli/commands.h"
#include "cli/secret_arguments.h"

namespace signet::cli {
namespace {

// UnknownCommand: when parsing stopped because a command wants a subcommand
// (`signet`, `signet admin`) and a word stands where it goes, the error
// that names the word: "signet admin: unknown command 'frobnicate'". CLI11
// itself only says that a subcommand is required. nullopt otherwise.
std::optional<std::string> UnknownCommand(const CLI::App& app) {
  const CLI::App* at = &app;
  std::string path = "signet";
  while (!at->get_subcommands().empty()) {
    at = at->get_subcommands().front();
    path += " " + at->get_name();
  }
  const std::vector<std::string> left = app.remaining(/*recurse=*/true);
  if (at->get_require_subcommand_min() == 0 || left.empty() || left.front().empty() ||
      left.front()[0] == '-') {
    return std::nullopt;
  }
  return path + ": unknown command '" + PrintableText(left.front()) + "' (" + path +
         " --help lists the commands)";
}

}  // namespace

int RunSignet(int argc, char** argv) {
  // First of all: take PINs out of /proc/PID/cmdline (cli/secret_arguments.h).
  ScrubbedArguments arguments(argc, argv);
  for (const std::string& flag : arguments.secret_flags()) {
    std::fprintf(stderr,
                 "signet: warning: %s on the command line is visible to other local users "
                 "(ps, /proc) until signet starts; the environment or the prompt is safer\n",
                 flag.c_str());
  }
  GlobalOptions global;
  CLI::App app{"signet: command-line client for the signet software HSM"};
  app.require_subcommand(1);
  app.fallthrough();  // global flags may follow the subcommand
  app.add_option("--data", global.data_dir, "Data directory (else SIGNET_DATA)");
  app.add_option("--socket", global.socket,
                 "signetd address: socket path or tcp://host:port (else SIGNET_SOCKET, "
                 "else DATA/signetd.sock)");
  app.add_option("--token", global.token_label, "Token label (default: the first token)");
  app.add_option("--pin", global.pin, "User PIN (else SIGNET_PIN, else a prompt)");
  app.add_option("--tls-ca", global.tls_ca, "CA file for a tcp:// daemon");
  app.add_option("--tls-cert", global.tls_cert, "Client certificate for a tcp:// daemon");
  app.add_option("--tls-key", global.tls_key, "Client key for a tcp:// daemon");

  CommandAction action;
  AddInitCommand(app, global, &action);
  AddKeyCommands(app, global, &action);
  AddPinCommands(app, global, &action);
  AddSignCommands(app, global, &action);
  AddInfoCommands(app, global, &action);
  AddAdminCommands(app, global, &action);
  // `signet bench ...`: the benchmark suite, run after parsing so the global
  // --socket/--pin/--token options are known.
  std::optional<bench::BenchJob> bench_job;
  bench::BenchHooks bench_hooks;
  bench_hooks.make_daemon_backend = [&global](const bench::ParallelOptions& options) {
    return bench::MakeServiceBackend(options, {global.socket, global.pin, global.token_label});
  };
  bench_hooks.service_access = [&global] {
    return bench::ServiceAccess{global.socket, global.pin, global.token_label};
  };
  bench_hooks.run_later = [&bench_job](bench::BenchJob job) { bench_job = std::move(job); };
  bench::AddBenchCommands(app, std::move(bench_hooks));

  try {
    app.parse(arguments.argc(), arguments.argv());
  } catch (const CLI::RequiredError& e) {
    if (std::optional<std::string> unknown = UnknownCommand(app)) {
      std::fprintf(stderr, "%s\n", unknown->c_str());
      return e.get_exit_code();
    }
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    if (bench_job) return (*bench_job)();
    Status status = action();
    if (!status.ok()) {
      std::string command = app.get_subcommands().front()->get_name();
      std::fprintf(stderr, "signet %s: %s\n", command.c_str(),
                   PrintableText(DescribeError(status.error())).c_str());
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "signet: internal error: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace signet::cli
