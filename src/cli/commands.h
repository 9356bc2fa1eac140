// The signet CLI's subcommands. Each Add*Commands registers its
// subcommands on `app`; when one is chosen on the command line, its CLI11
// callback stores the action in `*selected`, and main() runs it after
// parsing, printing any Error with its CK_RV name. Single-threaded.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "cli/cli_context.h"

namespace signet::cli {

using CommandAction = std::function<Status()>;

// init: create a token on the running daemon when one serves the chosen
// tokens, else offline as a file in the data directory.
void AddInitCommand(CLI::App& app, GlobalOptions& global, CommandAction* selected);
// keygen, import, list, pubkey, delete.
void AddKeyCommands(CLI::App& app, GlobalOptions& global, CommandAction* selected);
// sign, verify.
void AddSignCommands(CLI::App& app, GlobalOptions& global, CommandAction* selected);
// set-pin, init-pin.
void AddPinCommands(CLI::App& app, GlobalOptions& global, CommandAction* selected);
// random, stats.
void AddInfoCommands(CLI::App& app, GlobalOptions& global, CommandAction* selected);
// tokens, info.
void AddTokenCommands(CLI::App& app, GlobalOptions& global, CommandAction* selected);
// backup (online), restore (offline): token files (keystore/backup.h).
void AddBackupCommands(CLI::App& app, GlobalOptions& global, CommandAction* selected);
// transport-key, trust-key, export-key, import-key: moving keys between tokens.
void AddMigrateCommands(CLI::App& app, GlobalOptions& global, CommandAction* selected);
// migrate-keystore: copy a token between a data directory and a PostgreSQL
// keystore (offline; keystore/token_migration.h).
void AddMigrateKeystoreCommand(CLI::App& app, GlobalOptions& global, CommandAction* selected);
// audit verify (offline, signetd's audit log files).
void AddAuditCommands(CLI::App& app, GlobalOptions& global, CommandAction* selected);
// admin unlock-so (offline, data directory).
void AddAdminCommands(CLI::App& app, GlobalOptions& global, CommandAction* selected);
// health: the daemon's readiness from its metrics endpoint.
void AddHealthCommand(CLI::App& app, GlobalOptions& global, CommandAction* selected);

}  // namespace signet::cli
