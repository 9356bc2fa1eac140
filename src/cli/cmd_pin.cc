// `signet set-pin` and `signet init-pin`: PIN management through signetd.
// set-pin changes the user's PIN (or, with --so, the SO's) given the
// current one; init-pin lets the SO set a new user PIN (after the user's
// was forgotten or locked, or after the token was re-initialised). PINs
// come from flags, environment variables or no-echo prompts; new PINs are
// prompted twice.
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/pin_input.h"

namespace signet::cli {
namespace {

struct PinOptions {
  bool so = false;
  std::optional<std::string> so_pin;
  std::optional<std::string> new_pin;
};

Status RunSetPin(GlobalOptions& global, PinOptions& options) {
  const bool so = options.so;
  SIGNET_ASSIGN_OR_RETURN(
      SecureBytes old_pin,
      so ? ReadSecret({&options.so_pin, "--so-pin", "SIGNET_SO_PIN", "Current SO PIN: "})
         : ReadSecret({&global.pin, "--pin", "SIGNET_PIN", "Current user PIN: "}));
  SIGNET_ASSIGN_OR_RETURN(
      SecureBytes new_pin,
      ReadSecret({&options.new_pin, "--new-pin", nullptr, so ? "New SO PIN: " : "New user PIN: ",
                  /*confirm=*/true}));
  SIGNET_ASSIGN_OR_RETURN(Connection connection, Connect(global));
  // C_SetPIN acts on the logged-in user (PKCS#11 §5.6): log in first.
  SIGNET_TRY(connection.client->Login(connection.session, so ? CKU_SO : CKU_USER, old_pin));
  SIGNET_TRY(connection.client->SetPin(connection.session, old_pin, new_pin));
  std::printf("%s PIN changed\n", so ? "SO" : "user");
  return OkStatus();
}

Status RunInitPin(GlobalOptions& global, PinOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(SecureBytes so_pin,
                          ReadSecret({&options.so_pin, "--so-pin", "SIGNET_SO_PIN", "SO PIN: "}));
  SIGNET_ASSIGN_OR_RETURN(
      SecureBytes user_pin,
      ReadSecret({&options.new_pin, "--new-pin", nullptr, "New user PIN: ", /*confirm=*/true}));
  SIGNET_ASSIGN_OR_RETURN(Connection connection, Connect(global));
  SIGNET_TRY(connection.client->Login(connection.session, CKU_SO, so_pin));
  SIGNET_TRY(connection.client->InitPin(connection.session, user_pin));
  std::printf("user PIN set\n");
  return OkStatus();
}

}  // namespace

void AddPinCommands(CLI::App& app, GlobalOptions& global, CommandAction* selected) {
  auto options = std::make_shared<PinOptions>();

  CLI::App* set_pin = app.add_subcommand("set-pin", "Change the user PIN (or the SO PIN)");
  set_pin->add_flag("--so", options->so, "Change the SO PIN (current one from --so-pin)");
  set_pin->add_option("--so-pin", options->so_pin,
                      "Current SO PIN (else SIGNET_SO_PIN, else a prompt)");
  set_pin->add_option("--new-pin", options->new_pin, "New PIN (else a prompt, twice)");
  set_pin->callback([&global, options, selected] {
    *selected = [&global, options] { return RunSetPin(global, *options); };
  });

  CLI::App* init_pin =
      app.add_subcommand("init-pin", "Set a new user PIN as the SO (forgotten or locked PIN)");
  init_pin->add_option("--so-pin", options->so_pin, "SO PIN (else SIGNET_SO_PIN, else a prompt)");
  init_pin->add_option("--new-pin", options->new_pin, "New user PIN (else a prompt, twice)");
  init_pin->callback([&global, options, selected] {
    *selected = [&global, options] { return RunInitPin(global, *options); };
  });
}

}  // namespace signet::cli
