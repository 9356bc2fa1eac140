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
#include "signet/version.hpp"

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

// kUsageExit: the exit status for a command line that cannot be parsed
// (program.h); CLI11's own codes (105-115) are not what shells expect.
constexpr int kUsageExit = 2;

// kGlobalGroup: the help section the global options appear under.
constexpr const char* kGlobalGroup = "Global options (before or after the command)";

// AddGlobalOptions declares the options every command shares on `app`,
// each bound to the same GlobalOptions field, so `signet init --help` lists
// them and `signet init --pin X` parses wherever they stand. A name the
// command declares itself stays the command's.
void AddGlobalOptions(CLI::App& app, GlobalOptions& global) {
  struct Row {
    const char* name;
    std::string* field;
    const char* help;
  };
  const Row rows[] = {
      {"--data", &global.data_dir, "Data directory (else SIGNET_DATA)"},
      {"--socket", &global.socket,
       "signetd address: socket path or tcp://host:port (else SIGNET_SOCKET, else "
       "DATA/signetd.sock, else the service's /run/signet/signetd.sock)"},
      {"--token", &global.token_label,
       "Token: its label, serial or slot id; label:L, serial:S or slot:N to say which "
       "(default: the first token)"},
      {"--tls-ca", &global.tls_ca, "CA file for a tcp:// daemon"},
      {"--tls-cert", &global.tls_cert, "Client certificate for a tcp:// daemon"},
      {"--tls-key", &global.tls_key, "Client key for a tcp:// daemon"},
  };
  for (const Row& row : rows) {
    if (app.get_option_no_throw(row.name) != nullptr) continue;
    app.add_option(row.name, *row.field, row.help)->group(kGlobalGroup);
  }
  if (app.get_option_no_throw("--pin") == nullptr) {
    app.add_option("--pin", global.pin, "User PIN (else SIGNET_PIN, else a prompt)")
        ->group(kGlobalGroup);
  }
}

// ShareGlobalOptions adds them to every command below `app`, at any depth.
void ShareGlobalOptions(CLI::App& app, GlobalOptions& global) {
  for (CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
    AddGlobalOptions(*command, global);
    ShareGlobalOptions(*command, global);
  }
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
  app.set_version_flag("--version", std::string("signet ") + kVersionString);
  AddGlobalOptions(app, global);

  CommandAction action;
  AddInitCommand(app, global, &action);
  AddKeyCommands(app, global, &action);
  AddPinCommands(app, global, &action);
  AddSignCommands(app, global, &action);
  AddInfoCommands(app, global, &action);
  AddTokenCommands(app, global, &action);
  AddAdminCommands(app, global, &action);
  AddAuditCommands(app, global, &action);
  AddBackupCommands(app, global, &action);
  AddMigrateCommands(app, global, &action);
  AddMigrateKeystoreCommand(app, global, &action);
  AddHealthCommand(app, global, &action);
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
  ShareGlobalOptions(app, global);

  try {
    app.parse(arguments.argc(), arguments.argv());
  } catch (const CLI::RequiredError& e) {
    if (std::optional<std::string> unknown = UnknownCommand(app)) {
      std::fprintf(stderr, "%s\n", unknown->c_str());
      return kUsageExit;
    }
    return app.exit(e) == 0 ? 0 : kUsageExit;
  } catch (const CLI::ParseError& e) {
    // --help and --version end parsing this way too, with status 0.
    return app.exit(e) == 0 ? 0 : kUsageExit;
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
