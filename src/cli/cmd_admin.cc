// `signet admin ...`: offline administration of a data directory, for
// someone with local access to the token files (who could edit them by
// hand anyway). The daemon must be stopped: each command takes the data
// directory's lock (keystore::LockDataDir), which a running signetd holds.
//
// unlock-so: clears the SO PIN's failure count of every token (or the one
// named by --token), so a SO PIN locked by guessing - by an attacker who
// could connect, say - works again. It does not reveal or change any PIN;
// the SO still needs the right one.
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "keystore/data_dir.h"

namespace signet::cli {
namespace {

Status RunUnlockSo(const GlobalOptions& global) {
  std::string dir = ResolveDataDir(global);
  if (dir.empty()) return MakeError(CKR_ARGUMENTS_BAD, "give --data DIR (or SIGNET_DATA)");
  auto lock = keystore::LockDataDir(dir, "signet admin");
  if (!lock.ok()) {
    return MakeError(lock.error().code, lock.error().message + "; stop signetd first");
  }
  SIGNET_ASSIGN_OR_RETURN(auto files, keystore::ListTokenFiles(dir));
  int unlocked = 0;
  for (const auto& file : files) {
    auto token = keystore::Token::Open(file, keystore::TokenOptions{});
    if (!token.ok()) {  // a damaged file must not keep the others locked
      std::fprintf(stderr, "signet admin unlock-so: skipping %s: %s\n", file.c_str(),
                   token.error().message.c_str());
      continue;
    }
    keystore::TokenInfo info = (*token)->Info();
    if (!global.token_label.empty() && info.label != global.token_label) continue;
    SIGNET_ASSIGN_OR_RETURN(int cleared, (*token)->ClearPinFailures(keystore::UserType::kSo));
    std::printf("token '%s' (serial %s): SO PIN %s (%d failed attempt%s cleared)\n",
                info.label.c_str(), info.serial.c_str(), info.so_pin_locked ? "unlocked" : "ok",
                cleared, cleared == 1 ? "" : "s");
    ++unlocked;
  }
  if (unlocked == 0) {
    return MakeError(CKR_TOKEN_NOT_PRESENT,
                     global.token_label.empty()
                         ? "no token in " + dir
                         : "no token labelled '" + global.token_label + "' in " + dir);
  }
  return OkStatus();
}

}  // namespace

void AddAdminCommands(CLI::App& app, GlobalOptions& global, CommandAction* selected) {
  CLI::App* admin =
      app.add_subcommand("admin", "Offline administration of the data directory (signetd stopped)");
  admin->require_subcommand(1);
  admin->fallthrough();  // global flags may follow `admin unlock-so`
  CLI::App* unlock = admin->add_subcommand(
      "unlock-so", "Clear the SO PIN's failure count (lockout) of every token, or of --token");
  unlock->fallthrough();
  unlock->callback([&global, selected] { *selected = [&global] { return RunUnlockSo(global); }; });
}

}  // namespace signet::cli
