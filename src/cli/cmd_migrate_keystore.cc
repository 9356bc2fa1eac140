// `signet migrate-keystore`: copies one token from a data directory (token
// files) into a PostgreSQL keystore, or back, or between any two of them
// (issue 18; docs/SCALING.md "Running it"). keystore/token_migration.h
// says what is copied as stored (label, serial, PIN records, attributes),
// what is rewrapped (each secret, bound to its new handle: this is why the
// command needs a PIN, the SO's or the user's) and what is left (the key
// pool, which refills). The copy is all or nothing in the destination;
// the source is only read.
//
// No signetd may serve a data directory on either side: the command takes
// each directory's lock (keystore::LockDataDir), which a running signetd
// holds, and refuses when it cannot. Nodes of a PostgreSQL source may keep
// running (the token is read in one snapshot) but should be stopped, or
// keys they make after it are not copied; nodes on a PostgreSQL
// destination serve the new token after their next start.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "base/printable.h"
#include "cli/commands.h"
#include "cli/pin_input.h"
#include "keystore/keystore.h"
#include "keystore/token_migration.h"

namespace signet::cli {
namespace {

struct MigrateKeystoreOptions {
  std::string from;
  std::string to;
  std::string label;
  std::optional<std::string> so_pin;
  bool as_so = false;  // --so
};

constexpr const char* kLockHolder = "signet migrate-keystore";

// IsPostgresUri: whether `place` names a PostgreSQL keystore rather than a
// data directory.
bool IsPostgresUri(const std::string& place) {
  return place.starts_with("postgresql://") || place.starts_with("postgres://");
}

// OpenKeystore opens the keystore `place` names; a data directory must
// exist unless `create` (the destination), and no signetd may hold it.
Result<std::unique_ptr<keystore::Keystore>> OpenKeystore(const std::string& place, bool create) {
  if (IsPostgresUri(place)) return keystore::OpenPostgresKeystore(place);
  std::error_code ec;
  if (!create && !std::filesystem::is_directory(place, ec)) {
    return MakeError(CKR_ARGUMENTS_BAD, "no data directory " + place);
  }
  auto store = keystore::OpenDirectoryKeystore(place, kLockHolder);
  if (!store.ok() && store.error().code == CKR_FUNCTION_FAILED) {
    return MakeError(CKR_FUNCTION_FAILED, store.error().message + "; stop signetd first");
  }
  return store;
}

Status RunMigrateKeystore(GlobalOptions& global, MigrateKeystoreOptions& options) {
  if (options.from == options.to) {
    return MakeError(CKR_ARGUMENTS_BAD, "--from and --to name the same keystore");
  }
  // The SO PIN when asked for, else the user's: both open the same KEK.
  const bool as_so = options.as_so || options.so_pin.has_value();
  SIGNET_ASSIGN_OR_RETURN(
      SecureBytes pin,
      as_so ? ReadSecret({&options.so_pin, "--so-pin", "SIGNET_SO_PIN", "SO PIN: ", false})
            : ReadSecret({&global.pin, "--pin", "SIGNET_PIN", "User PIN: ", false}));
  SIGNET_ASSIGN_OR_RETURN(auto from, OpenKeystore(options.from, /*create=*/false));
  // The destination is opened only once the PIN was right: a wrong one
  // leaves it as it was.
  SIGNET_ASSIGN_OR_RETURN(
      keystore::UnlockedToken token,
      keystore::ReadUnlockedToken(
          *from, options.label, as_so ? keystore::UserType::kSo : keystore::UserType::kUser, pin));
  SIGNET_ASSIGN_OR_RETURN(auto to, OpenKeystore(options.to, /*create=*/true));
  SIGNET_ASSIGN_OR_RETURN(keystore::MigrationReport report,
                          keystore::WriteUnlockedToken(*to, token));
  std::printf(
      "copied token '%s' (serial %s) from the %s to the %s: %zu objects, %zu secrets "
      "rewrapped; its key pool starts empty\n",
      PrintableText(token.records.label).c_str(), PrintableText(token.records.serial).c_str(),
      PrintableText(from->Describe()).c_str(), PrintableText(to->Describe()).c_str(),
      report.objects, report.secrets);
  return OkStatus();
}

}  // namespace

void AddMigrateKeystoreCommand(CLI::App& app, GlobalOptions& global, CommandAction* selected) {
  auto options = std::make_shared<MigrateKeystoreOptions>();
  CLI::App* command = app.add_subcommand(
      "migrate-keystore",
      "Copy a token between keystores: a data directory (token files) and a PostgreSQL "
      "keystore (postgresql://...), either way. Stop the signetd serving either data "
      "directory first (the command refuses while one runs), and the nodes of a PostgreSQL "
      "source (keys they make during the copy are not copied). Needs the token's user PIN "
      "(--pin, SIGNET_PIN, a prompt) or, with --so, its SO PIN (--so-pin, SIGNET_SO_PIN, a "
      "prompt); both PINs work on the copy. The source is not changed; the copy's key pool starts "
      "empty");
  command->add_option("--from", options->from, "Source: a data directory or postgresql://...")
      ->required();
  command->add_option("--to", options->to, "Destination: a data directory or postgresql://...")
      ->required();
  command->add_option("--label", options->label, "Label of the token to copy")->required();
  command->add_flag("--so", options->as_so, "Open the token with its SO PIN, not the user PIN");
  command->add_option("--so-pin", options->so_pin,
                      "Security Officer PIN (implies --so; else SIGNET_SO_PIN, else a prompt)");
  command->callback([&global, options, selected] {
    *selected = [&global, options] { return RunMigrateKeystore(global, *options); };
  });
}

}  // namespace signet::cli
