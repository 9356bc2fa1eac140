// `signet init`: creates a token. When the daemon serving the chosen
// tokens answers (see RunningDaemon) it creates the token on the daemon's
// free slot, usable at once; otherwise it writes the token file into the
// data directory itself, for a daemon started later. With --keystore it
// creates the token in a PostgreSQL keystore (making its schema when the
// database has none), for the signetd nodes started on it
// (docs/SCALING.md).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "base/printable.h"
#include "cli/cli_context.h"
#include "cli/commands.h"
#include "cli/pin_input.h"
#include "keystore/backup.h"
#include "keystore/data_dir.h"
#include "keystore/keystore.h"
#include "keystore/pin_policy.h"
#include "keystore/slot_ids.h"

namespace signet::cli {
namespace {

struct InitOptions {
  std::string label;
  std::optional<std::string> so_pin;
  std::uint64_t kdf_n = 0;  // hidden: scrypt N for fast tests; 0 = default
  std::string keystore;     // a PostgreSQL keystore's URI, or empty
};

// RunningDaemon: a client of the daemon that serves the chosen tokens, or
// nullptr when none answers and none had to. --socket must answer. An
// explicit --data means that directory: only its own DATA/signetd.sock is
// tried, whatever SIGNET_SOCKET says (so `make demo` never lands in a
// daemon the shell points at). Otherwise SIGNET_SOCKET must answer, and
// SIGNET_DATA's socket may.
Result<std::unique_ptr<client::Client>> RunningDaemon(const GlobalOptions& global) {
  GlobalOptions target = global;
  bool must_answer = !global.socket.empty();
  if (!must_answer && !global.data_dir.empty()) {
    target.socket = (std::filesystem::path(global.data_dir) / "signetd.sock").string();
  } else if (!must_answer) {
    const char* env = std::getenv("SIGNET_SOCKET");
    must_answer = env != nullptr && *env != '\0';
    if (!must_answer && ResolveDataDir(global).empty()) return std::unique_ptr<client::Client>();
  }
  Result<std::unique_ptr<client::Client>> client = ConnectClient(target);
  if (client.ok() || must_answer) return client;
  return std::unique_ptr<client::Client>();
}

Status InitThroughDaemon(client::Client& client, const InitOptions& options,
                         const SecureBytes& so_pin, const SecureBytes& user_pin) {
  SIGNET_ASSIGN_OR_RETURN(client::ServerInfo info, client.GetInfo());
  for (const client::SlotInfo& slot : info.slots) {
    if (slot.token_present) continue;
    SIGNET_ASSIGN_OR_RETURN(client::InitTokenResult made,
                            client.InitToken(slot.slot_id, so_pin, options.label, user_pin));
    std::printf("initialised token '%s' (serial %s) on slot %lu of the running signetd\n",
                PrintableText(options.label).c_str(),
                PrintableText(made.serial).c_str(), made.slot_id);
    return OkStatus();
  }
  return MakeError(CKR_DEVICE_ERROR, "signetd reports no free slot");
}

// TokenOptionsFor: the keystore's defaults, with --kdf-n when given.
Result<keystore::TokenOptions> TokenOptionsFor(const InitOptions& options) {
  keystore::TokenOptions token_options;
  if (options.kdf_n != 0) {
    if ((options.kdf_n & (options.kdf_n - 1)) != 0 || options.kdf_n < 2) {
      return MakeError(CKR_ARGUMENTS_BAD, "--kdf-n must be a power of two");
    }
    token_options.kdf.n = options.kdf_n;
  }
  return token_options;
}

// InitInPostgres creates the token in the PostgreSQL keystore at
// options.keystore; the database's UNIQUE constraints keep its label and
// slot id apart from every other token's, whichever node made them.
Status InitInPostgres(GlobalOptions& global, InitOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(keystore::TokenOptions token_options, TokenOptionsFor(options));
  SIGNET_ASSIGN_OR_RETURN(SecureBytes so_pin, ReadSecret({&options.so_pin, "--so-pin",
                                                          "SIGNET_SO_PIN", "SO PIN: ", true}));
  SIGNET_ASSIGN_OR_RETURN(SecureBytes user_pin,
                          ReadSecret({&global.pin, "--pin", "SIGNET_PIN", "User PIN: ", true}));
  SIGNET_TRY(keystore::CheckPinLength(so_pin, "SO PIN"));
  SIGNET_TRY(keystore::CheckPinLength(user_pin, "user PIN"));
  SIGNET_ASSIGN_OR_RETURN(auto store, keystore::OpenPostgresKeystore(options.keystore));
  SIGNET_ASSIGN_OR_RETURN(auto created,
                          store->CreateToken(options.label, so_pin, user_pin, token_options, {}));
  const keystore::TokenInfo info = created.second->Info();
  std::printf("initialised token '%s' (serial %s) in the %s\n", PrintableText(info.label).c_str(),
              PrintableText(info.serial).c_str(), PrintableText(store->Describe()).c_str());
  return OkStatus();
}

Status RunInit(GlobalOptions& global, InitOptions& options) {
  if (!options.keystore.empty()) return InitInPostgres(global, options);
  SIGNET_ASSIGN_OR_RETURN(std::unique_ptr<client::Client> daemon, RunningDaemon(global));
  std::string dir = ResolveDataDir(global);
  if (!daemon && dir.empty()) {
    return MakeError(CKR_ARGUMENTS_BAD, "give --data DIR (or SIGNET_DATA), or --socket");
  }
  if (daemon && options.kdf_n != 0) {
    return MakeError(CKR_ARGUMENTS_BAD, "--kdf-n applies only without a running signetd");
  }
  SIGNET_ASSIGN_OR_RETURN(
      SecureBytes so_pin,
      ReadSecret({&options.so_pin, "--so-pin", "SIGNET_SO_PIN", "SO PIN: ", true}));
  SIGNET_ASSIGN_OR_RETURN(SecureBytes user_pin,
                          ReadSecret({&global.pin, "--pin", "SIGNET_PIN", "User PIN: ", true}));
  if (daemon) return InitThroughDaemon(*daemon, options, so_pin, user_pin);
  SIGNET_ASSIGN_OR_RETURN(keystore::TokenOptions token_options, TokenOptionsFor(options));
  // The keystore enforces the PIN rules (keystore/pin_policy.h) on the PINs
  // it stores, so this path meets the same rules as signetd's InitToken.
  // They live in the keystore, which this command already links for this
  // very call, rather than in core/, which would bring the whole HSM into
  // the CLI.
  // As signetd does: under the data dir's lock (no daemon starts meanwhile),
  // a label no other token has, on a new slot id (keystore/slot_ids.h).
  SIGNET_TRY(keystore::CheckPinLength(so_pin, "SO PIN"));  // before anything is written
  SIGNET_TRY(keystore::CheckPinLength(user_pin, "user PIN"));
  SIGNET_TRY(keystore::EnsureDataDirectory(dir));
  SIGNET_ASSIGN_OR_RETURN(auto lock, keystore::LockDataDir(dir, "signet init"));
  SIGNET_ASSIGN_OR_RETURN(std::vector<keystore::TokenInfo> others,
                          keystore::PeekDirectoryTokens(dir));
  SIGNET_ASSIGN_OR_RETURN(
      auto token,
      keystore::CreateTokenOnNewSlot(dir, options.label, so_pin, user_pin, token_options, others));
  keystore::TokenInfo info = token->Info();
  std::printf("initialised token '%s' (serial %s) in %s\n",
              PrintableText(info.label).c_str(), PrintableText(info.serial).c_str(),
              PrintableText(dir).c_str());
  return OkStatus();
}

}  // namespace

void AddInitCommand(CLI::App& app, GlobalOptions& global, CommandAction* selected) {
  auto options = std::make_shared<InitOptions>();
  CLI::App* init = app.add_subcommand(
      "init", "Create a token (through a running signetd, else in the data directory)");
  init->add_option("--label", options->label, "Token label (up to 32 characters)")->required();
  init->add_option("--so-pin", options->so_pin,
                   "Security Officer PIN (else SIGNET_SO_PIN, else a prompt)");
  init->add_option("--keystore", options->keystore,
                   "Create the token in this PostgreSQL keystore (postgresql://...; "
                   "docs/SCALING.md), making its schema if needed");
  init->add_option("--kdf-n", options->kdf_n)->group("");  // hidden: tests only
  init->callback([&global, options, selected] {
    *selected = [&global, options] { return RunInit(global, *options); };
  });
}

}  // namespace signet::cli
