// `signet transport-key | trust-key | export-key | import-key`: moving a key
// pair to another token, on this daemon or another, without its private key
// ever existing unwrapped outside a daemon (issue 14; docs/SECURITY.md "Key
// migration"):
//   1. target:  transport-key --label T > T.pem   (an RSA-3072 pair whose
//               private half only unwraps, never leaves the target)
//   2. source:  trust-key --in T.pem --label T    (the source's SO stores it
//               as CKA_TRUSTED: only an SO may)
//   3. source:  export-key --label K --to T --out K.json
//   4. target:  import-key --in K.json --with T
// export-key wraps with CKM_RSA_AES_KEY_WRAP (OAEP SHA-256, AES-256 KWP of
// the key's PKCS#8), which the daemon allows for a sensitive key only under
// a trusted key (docs/PKCS11.md "Key-management policy"), and only for a
// key made for it (CKA_EXTRACTABLE, `keygen --exportable`) - and export-key
// asks CKA_WRAP_WITH_TRUSTED too, so no untrusted key can ever take it. The
// export file (JSON) holds the wrapped key, its public key and its label, id
// and usage, which import-key gives the unwrapped key.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/hex.h"
#include "base/printable.h"
#include "cli/commands.h"
#include "cli/file_io.h"
#include "cli/key_objects.h"
#include "cli/pin_input.h"

namespace signet::cli {
namespace {

using client::BoolAttribute;
using client::BytesAttribute;
using client::StringAttribute;
using client::UlongAttribute;

constexpr const char* kExportFormat = "signet-key-export-1";
constexpr int kTransportKeyBits = 3072;

// The usage attributes an exported key carries over, by their name in the
// export file.
struct Usage {
  CK_ATTRIBUTE_TYPE type;
  const char* name;
};
constexpr Usage kUsage[] = {
    {CKA_SIGN, "sign"}, {CKA_DECRYPT, "decrypt"}, {CKA_UNWRAP, "unwrap"}, {CKA_DERIVE, "derive"}};

struct MigrateOptions {
  std::string label;
  std::string transport;  // --to / --with: the transport key's label
  std::string in;
  std::string out;
  std::optional<std::string> so_pin;
};

client::Mechanism TransportMechanism() {
  client::Mechanism mechanism{CKM_RSA_AES_KEY_WRAP};
  mechanism.rsa_aes = RsaAesWrapParams{256, OaepParams{CKM_SHA256, CKG_MGF1_SHA256}};
  return mechanism;
}

Status WriteOutput(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return OkStatus();
  }
  return WriteFile(path, AsBytes(text));
}

Status RunTransportKey(GlobalOptions& global, const MigrateOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(Connection connection, ConnectAndLogin(global));
  const client::Bytes id(options.label.begin(), options.label.end());
  client::Template public_template = {
      BoolAttribute(CKA_TOKEN, true),   StringAttribute(CKA_LABEL, options.label),
      BytesAttribute(CKA_ID, id),       UlongAttribute(CKA_MODULUS_BITS, kTransportKeyBits),
      BoolAttribute(CKA_WRAP, true),    BoolAttribute(CKA_ENCRYPT, false),
      BoolAttribute(CKA_VERIFY, false), BoolAttribute(CKA_PRIVATE, false)};
  client::Template private_template = {
      BoolAttribute(CKA_TOKEN, true),       StringAttribute(CKA_LABEL, options.label),
      BytesAttribute(CKA_ID, id),           BoolAttribute(CKA_UNWRAP, true),
      BoolAttribute(CKA_DECRYPT, false),    BoolAttribute(CKA_SIGN, false),
      BoolAttribute(CKA_PRIVATE, true),     BoolAttribute(CKA_SENSITIVE, true),
      BoolAttribute(CKA_EXTRACTABLE, false)};
  SIGNET_ASSIGN_OR_RETURN(client::KeyPair pair,
                          connection.client->GenerateKeyPair(
                              connection.session, client::Mechanism{CKM_RSA_PKCS_KEY_PAIR_GEN},
                              public_template, private_template,
                              /*unique_label=*/true));
  SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey key, ReadPublicKey(connection, pair.public_key));
  SIGNET_ASSIGN_OR_RETURN(std::string pem, key.ToPem());
  return WriteOutput(options.out, pem);
}

Status RunTrustKey(GlobalOptions& global, MigrateOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(client::Bytes file, ReadFile(options.in));
  SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey key,
                          crypto::PublicKey::FromPem(std::string(file.begin(), file.end())));
  if (key.spec().type != crypto::KeyType::kRsa) {
    return MakeError(CKR_KEY_TYPE_INCONSISTENT, "a transport key is an RSA key (transport-key)");
  }
  SIGNET_ASSIGN_OR_RETURN(SecureBytes so_pin,
                          ReadSecret({&options.so_pin, "--so-pin", "SIGNET_SO_PIN", "SO PIN: "}));
  SIGNET_ASSIGN_OR_RETURN(Connection connection, Connect(global));
  SIGNET_TRY(connection.client->Login(connection.session, CKU_SO, so_pin));
  SIGNET_ASSIGN_OR_RETURN(client::Bytes modulus, key.RsaModulus());
  SIGNET_ASSIGN_OR_RETURN(client::Bytes exponent, key.RsaPublicExponent());
  const client::Bytes id(options.label.begin(), options.label.end());
  client::Template object = {UlongAttribute(CKA_CLASS, CKO_PUBLIC_KEY),
                             UlongAttribute(CKA_KEY_TYPE, CKK_RSA),
                             BoolAttribute(CKA_TOKEN, true),
                             StringAttribute(CKA_LABEL, options.label),
                             BytesAttribute(CKA_ID, id),
                             BytesAttribute(CKA_MODULUS, modulus),
                             BytesAttribute(CKA_PUBLIC_EXPONENT, exponent),
                             BoolAttribute(CKA_TRUSTED, true),
                             BoolAttribute(CKA_WRAP, true),
                             BoolAttribute(CKA_ENCRYPT, false),
                             BoolAttribute(CKA_VERIFY, false)};
  SIGNET_ASSIGN_OR_RETURN(auto made, connection.client->CreateObjects(connection.session, {object},
                                                                      /*unique_label=*/true));
  (void)made;
  std::printf("trusted transport key '%s' for export-key --to\n",
              PrintableText(options.label).c_str());
  return OkStatus();
}

// BoolOf: a CK_BBOOL attribute value (false when absent or unreadable).
bool BoolOf(const client::AttributeValue& value) {
  return value.rv == CKR_OK && value.value.size() == 1 && value.value[0] != 0;
}

Status RunExportKey(GlobalOptions& global, const MigrateOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(Connection connection, ConnectAndLogin(global));
  SIGNET_ASSIGN_OR_RETURN(client::Handle key, FindKey(connection, options.label, CKO_PRIVATE_KEY));
  SIGNET_ASSIGN_OR_RETURN(client::Handle public_key,
                          FindKey(connection, options.label, CKO_PUBLIC_KEY));
  SIGNET_ASSIGN_OR_RETURN(client::Handle transport,
                          FindKey(connection, options.transport, CKO_PUBLIC_KEY));
  const CK_ATTRIBUTE_TYPE asked[] = {CKA_EXTRACTABLE, CKA_WRAP_WITH_TRUSTED, CKA_ID,
                                     CKA_SIGN,        CKA_DECRYPT,           CKA_UNWRAP,
                                     CKA_DERIVE};
  SIGNET_ASSIGN_OR_RETURN(auto values,
                          connection.client->GetAttributeValue(connection.session, key, asked));
  // A key that is not extractable at all the daemon refuses below, with
  // CKR_KEY_UNEXTRACTABLE; an extractable one must also be bound to
  // trusted keys, or it could be wrapped for any key, not only a token's.
  if (BoolOf(values[0]) && !BoolOf(values[1])) {
    return MakeError(
        CKR_KEY_NOT_WRAPPABLE,
        "key '" + options.label +
            "' is not made to move (CKA_WRAP_WITH_TRUSTED false; keygen --exportable)");
  }
  SIGNET_ASSIGN_OR_RETURN(
      client::Bytes wrapped,
      connection.client->WrapKey(connection.session, TransportMechanism(), transport, key));
  SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey pub, ReadPublicKey(connection, public_key));
  SIGNET_ASSIGN_OR_RETURN(std::string pem, pub.ToPem());
  nlohmann::json usage;
  for (std::size_t i = 0; i < std::size(kUsage); ++i) usage[kUsage[i].name] = BoolOf(values[3 + i]);
  nlohmann::json exported = {
      {"format", kExportFormat}, {"label", options.label}, {"id", ToHex(values[2].value)},
      {"usage", usage},          {"public_key", pem},      {"wrapped", ToHex(wrapped)}};
  SIGNET_TRY(WriteOutput(options.out, exported.dump(2) + "\n"));
  std::fprintf(stderr, "exported '%s', wrapped for transport key '%s'\n",
               PrintableText(options.label).c_str(), PrintableText(options.transport).c_str());
  return OkStatus();
}

Status RunImportKey(GlobalOptions& global, const MigrateOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(client::Bytes file, ReadFile(options.in));
  nlohmann::json exported = nlohmann::json::parse(file.begin(), file.end(), nullptr, false);
  if (!exported.is_object() || exported.value("format", "") != kExportFormat) {
    return MakeError(CKR_ARGUMENTS_BAD, options.in + " is not a signet key export");
  }
  const std::string label = exported.value("label", "");
  auto id = FromHex(exported.value("id", ""));
  auto wrapped = FromHex(exported.value("wrapped", ""));
  auto pub = crypto::PublicKey::FromPem(exported.value("public_key", ""));
  if (label.empty() || !id || !wrapped || wrapped->empty() || !pub.ok() ||
      !exported["usage"].is_object()) {
    return MakeError(CKR_ARGUMENTS_BAD, options.in + " is not a complete key export");
  }
  SIGNET_ASSIGN_OR_RETURN(Connection connection, ConnectAndLogin(global));
  SIGNET_ASSIGN_OR_RETURN(client::Handle transport,
                          FindKey(connection, options.transport, CKO_PRIVATE_KEY));
  client::Template key_template = {
      UlongAttribute(CKA_CLASS, CKO_PRIVATE_KEY), BoolAttribute(CKA_TOKEN, true),
      StringAttribute(CKA_LABEL, label),          BytesAttribute(CKA_ID, *id),
      BoolAttribute(CKA_PRIVATE, true),           BoolAttribute(CKA_SENSITIVE, true),
      BoolAttribute(CKA_EXTRACTABLE, true),       BoolAttribute(CKA_WRAP_WITH_TRUSTED, true)};
  for (const Usage& usage : kUsage) {
    key_template.push_back(BoolAttribute(usage.type, exported["usage"].value(usage.name, false)));
  }
  SIGNET_ASSIGN_OR_RETURN(client::Template public_object, PublicKeyObject(*pub, label));
  SIGNET_ASSIGN_OR_RETURN(client::Handle key,
                          connection.client->UnwrapKey(connection.session, TransportMechanism(),
                                                       transport, *wrapped, key_template));
  auto made = connection.client->CreateObject(connection.session, public_object);
  if (!made.ok()) {
    const client::Handle unwrapped[] = {key};
    (void)connection.client->DestroyObjects(connection.session, unwrapped);  // both or neither
    return made.error();
  }
  std::printf("imported '%s' (unwrapped with transport key '%s')\n", PrintableText(label).c_str(),
              PrintableText(options.transport).c_str());
  return OkStatus();
}

}  // namespace

void AddMigrateCommands(CLI::App& app, GlobalOptions& global, CommandAction* selected) {
  auto options = std::make_shared<MigrateOptions>();
  CLI::App* transport = app.add_subcommand(
      "transport-key", "Make this token's transport key pair (to receive keys); print its PEM");
  transport->add_option("--label", options->label, "Label of the transport key")->required();
  transport->add_option("--out", options->out, "PEM file to write (default: stdout)");
  transport->callback([&global, options, selected] {
    *selected = [&global, options] { return RunTransportKey(global, *options); };
  });

  CLI::App* trust = app.add_subcommand(
      "trust-key", "As the SO: store another token's transport key (PEM) as trusted");
  trust->add_option("--in", options->in, "The transport key's PEM")->required();
  trust->add_option("--label", options->label, "Label to store it under")->required();
  trust->add_option("--so-pin", options->so_pin, "SO PIN (else SIGNET_SO_PIN, else a prompt)");
  trust->callback([&global, options, selected] {
    *selected = [&global, options] { return RunTrustKey(global, *options); };
  });

  CLI::App* exporter = app.add_subcommand(
      "export-key", "Wrap a key pair made with --exportable for a trusted transport key");
  exporter->add_option("--label", options->label, "The key pair's label")->required();
  exporter->add_option("--to", options->transport, "The trusted transport key's label")->required();
  exporter->add_option("--out", options->out, "Export file (JSON; default: stdout)");
  exporter->callback([&global, options, selected] {
    *selected = [&global, options] { return RunExportKey(global, *options); };
  });

  CLI::App* importer = app.add_subcommand(
      "import-key", "Unwrap an exported key pair with this token's transport key");
  importer->add_option("--in", options->in, "The export file")->required();
  importer->add_option("--with", options->transport, "The transport key's label")->required();
  importer->callback([&global, options, selected] {
    *selected = [&global, options] { return RunImportKey(global, *options); };
  });
}

}  // namespace signet::cli
