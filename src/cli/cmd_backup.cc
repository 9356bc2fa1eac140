// `signet backup` and `signet restore`: a token file's consistent online
// copy and its return (keystore/backup.h). Both work on the data directory's
// files, so they run on the daemon's machine as a user who may read them
// (the daemon's own user). backup runs while signetd serves the token;
// restore takes the data directory's lock, so it runs with signetd stopped
// (or into another directory), and a daemon started afterwards serves the
// restored token.
#include <cstdio>
#include <memory>

#include "base/printable.h"
#include "cli/commands.h"
#include "keystore/backup.h"
#include "keystore/data_dir.h"

namespace signet::cli {
namespace {

struct BackupOptions {
  std::string out;
  std::string in;
  bool replace = false;
};

Result<std::string> RequireDataDir(const GlobalOptions& global) {
  std::string dir = ResolveDataDir(global);
  if (dir.empty()) return MakeError(CKR_ARGUMENTS_BAD, "give --data DIR (or SIGNET_DATA)");
  return dir;
}

void PrintReport(const char* what, const keystore::TokenCopyReport& report,
                 const std::string& where) {
  std::printf(
      "%s token '%s' (serial %s): %lld objects, %lld pool entries, %llu bytes, %s\n"
      "checked: it opens as a token, SQLite's integrity_check passes, the counts match\n",
      what, PrintableText(report.label).c_str(), PrintableText(report.serial).c_str(),
      static_cast<long long>(report.objects), static_cast<long long>(report.pool_entries),
      static_cast<unsigned long long>(report.bytes), PrintableText(where).c_str());
}

Status RunBackup(const GlobalOptions& global, const BackupOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(std::string dir, RequireDataDir(global));
  SIGNET_ASSIGN_OR_RETURN(auto tokens, keystore::PeekDirectoryTokens(dir));
  std::vector<client::SlotInfo> slots;
  for (const auto& token : tokens) {
    slots.push_back({.slot_id = token.slot_id.value_or(slots.size()),
                     .token_present = true,
                     .label = token.label,
                     .serial = token.serial});
  }
  SIGNET_ASSIGN_OR_RETURN(CK_SLOT_ID chosen, ChooseToken(slots, global.token_label));
  std::string serial;
  for (const auto& slot : slots) {
    if (slot.slot_id == chosen) serial = slot.serial;
  }
  SIGNET_ASSIGN_OR_RETURN(auto report,
                          keystore::BackupToken(keystore::TokenFilePath(dir, serial), options.out));
  PrintReport("backed up", report, "to " + options.out);
  return OkStatus();
}

Status RunRestore(const GlobalOptions& global, const BackupOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(std::string dir, RequireDataDir(global));
  SIGNET_TRY(keystore::EnsureDataDirectory(dir));
  auto lock = keystore::LockDataDir(dir, "signet restore");
  if (!lock.ok()) {
    return MakeError(lock.error().code,
                     lock.error().message + "; stop signetd first, or restore into another --data");
  }
  SIGNET_ASSIGN_OR_RETURN(auto tokens, keystore::PeekDirectoryTokens(dir));
  SIGNET_ASSIGN_OR_RETURN(auto report,
                          keystore::RestoreToken(options.in, dir, options.replace, tokens));
  PrintReport("restored", report, "into " + dir);
  return OkStatus();
}

}  // namespace

void AddBackupCommands(CLI::App& app, GlobalOptions& global, CommandAction* selected) {
  auto options = std::make_shared<BackupOptions>();
  CLI::App* backup = app.add_subcommand(
      "backup", "Copy a token (--token) consistently while signetd serves it; checks the copy");
  backup->add_option("--out", options->out, "The backup file to write (must not exist)")
      ->required();
  backup->callback([&global, selected, options] {
    *selected = [&global, options] { return RunBackup(global, *options); };
  });
  CLI::App* restore = app.add_subcommand(
      "restore", "Put a backed-up token into the data directory (signetd stopped)");
  restore->add_option("--in", options->in, "The backup file")->required();
  restore->add_flag("--replace", options->replace, "Overwrite the token with the same serial");
  restore->callback([&global, selected, options] {
    *selected = [&global, options] { return RunRestore(global, *options); };
  });
}

}  // namespace signet::cli
