// `signet sign | verify`: signatures in the files openssl reads (raw for
// RSA and Ed25519, DER for ECDSA), made and checked by the daemon.
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/file_io.h"
#include "cli/key_objects.h"
#include "cli/mechanism_names.h"
#include "cli/sign_input.h"
#include "crypto/sign.h"

namespace signet::cli {
namespace {

struct SignOptions {
  std::string label;
  std::string mechanism;
  std::string in;
  std::string out;
  std::string signature;
};

Status RunSign(GlobalOptions& global, const SignOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(const MechanismRow* mechanism, ParseMechanismName(options.mechanism));
  SIGNET_ASSIGN_OR_RETURN(client::Bytes message, ReadFile(options.in));
  SIGNET_ASSIGN_OR_RETURN(SignInput input, PrepareSignInput(*mechanism, std::move(message)));
  SIGNET_ASSIGN_OR_RETURN(Connection connection, ConnectAndLogin(global));
  SIGNET_ASSIGN_OR_RETURN(client::Handle key,
                          FindKey(connection, options.label, CKO_PRIVATE_KEY));
  SIGNET_ASSIGN_OR_RETURN(client::Bytes signature,
                          connection.client->Sign(connection.session, key, input.mechanism,
                                                  input.data));
  if (WritesDerSignature(*mechanism)) {
    SIGNET_ASSIGN_OR_RETURN(signature, crypto::EcdsaRawToDer(signature));
  }
  return WriteFile(options.out, signature);
}

Status RunVerify(GlobalOptions& global, const SignOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(const MechanismRow* mechanism, ParseMechanismName(options.mechanism));
  SIGNET_ASSIGN_OR_RETURN(client::Bytes message, ReadFile(options.in));
  SIGNET_ASSIGN_OR_RETURN(SignInput input, PrepareSignInput(*mechanism, std::move(message)));
  SIGNET_ASSIGN_OR_RETURN(client::Bytes signature, ReadFile(options.signature));
  SIGNET_ASSIGN_OR_RETURN(Connection connection, Connect(global));
  SIGNET_ASSIGN_OR_RETURN(client::Handle key,
                          FindKey(connection, options.label, CKO_PUBLIC_KEY));
  if (WritesDerSignature(*mechanism)) {
    SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey public_key, ReadPublicKey(connection, key));
    SIGNET_ASSIGN_OR_RETURN(
        signature, crypto::EcdsaDerToRaw(signature, crypto::EcFieldBytes(public_key.spec().type)));
  }
  SIGNET_TRY(connection.client->Verify(connection.session, key, input.mechanism, input.data,
                                       signature));
  std::printf("Signature OK\n");
  return OkStatus();
}

}  // namespace

void AddSignCommands(CLI::App& app, GlobalOptions& global, CommandAction* selected) {
  auto options = std::make_shared<SignOptions>();
  std::string mechanism_help = "One of " + MechanismNames();

  CLI::App* sign = app.add_subcommand("sign", "Sign a file with a token key");
  sign->add_option("--label", options->label, "Key label")->required();
  sign->add_option("--mech", options->mechanism, mechanism_help)->required();
  sign->add_option("--in", options->in, "Message file ('-': stdin)")->required();
  sign->add_option("--out", options->out, "Signature file ('-': stdout)")->required();
  sign->callback([&global, options, selected] {
    *selected = [&global, options] { return RunSign(global, *options); };
  });

  CLI::App* verify = app.add_subcommand("verify", "Verify a signature with a token key");
  verify->add_option("--label", options->label, "Key label")->required();
  verify->add_option("--mech", options->mechanism, mechanism_help)->required();
  verify->add_option("--in", options->in, "Message file ('-': stdin)")->required();
  verify->add_option("--sig", options->signature, "Signature file")->required();
  verify->callback([&global, options, selected] {
    *selected = [&global, options] { return RunVerify(global, *options); };
  });
}

}  // namespace signet::cli
