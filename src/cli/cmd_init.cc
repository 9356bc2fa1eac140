// `signet init`: creates a token in the data directory without a daemon, by
// calling the keystore directly. A running signetd finds the new token when
// it next starts.
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/pin_input.h"
#include "keystore/data_dir.h"

namespace signet::cli {
namespace {

struct InitOptions {
  std::string label;
  std::optional<std::string> so_pin;
  std::optional<std::string> pin;
  std::uint64_t kdf_n = 0;  // hidden: scrypt N for fast tests; 0 = default
};

Status RunInit(GlobalOptions& global, InitOptions& options) {
  std::string dir = ResolveDataDir(global);
  if (dir.empty()) return MakeError(CKR_ARGUMENTS_BAD, "give --data DIR or SIGNET_DATA");
  SIGNET_ASSIGN_OR_RETURN(
      crypto::SecureBytes so_pin,
      ReadSecret({&options.so_pin, "--so-pin", "SIGNET_SO_PIN", "SO PIN: ", true}));
  SIGNET_ASSIGN_OR_RETURN(crypto::SecureBytes user_pin,
                          ReadSecret({&global.pin, "--pin", "SIGNET_PIN", "User PIN: ", true}));
  keystore::TokenOptions token_options;
  if (options.kdf_n != 0) {
    if ((options.kdf_n & (options.kdf_n - 1)) != 0 || options.kdf_n < 2) {
      return MakeError(CKR_ARGUMENTS_BAD, "--kdf-n must be a power of two");
    }
    token_options.kdf.n = options.kdf_n;
  }
  SIGNET_ASSIGN_OR_RETURN(auto token, keystore::CreateInDirectory(dir, options.label, so_pin,
                                                                  user_pin, token_options));
  keystore::TokenInfo info = token->Info();
  std::printf("initialised token '%s' (serial %s) in %s\n", info.label.c_str(),
              info.serial.c_str(), dir.c_str());
  return OkStatus();
}

}  // namespace

void AddInitCommand(CLI::App& app, GlobalOptions& global, CommandAction* selected) {
  auto options = std::make_shared<InitOptions>();
  CLI::App* init = app.add_subcommand("init", "Create a token in the data directory (offline)");
  init->add_option("--label", options->label, "Token label (up to 32 characters)")->required();
  init->add_option("--so-pin", options->so_pin,
                   "Security Officer PIN (else SIGNET_SO_PIN, else a prompt)");
  init->add_option("--kdf-n", options->kdf_n)->group("");  // hidden: tests only
  init->callback([&global, options, selected] {
    *selected = [&global, options] { return RunInit(global, *options); };
  });
}

}  // namespace signet::cli
