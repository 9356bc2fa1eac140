// `signet keygen | import | list | pubkey | delete`: key pair management by
// label.
#include <string.h>

#include <cstdio>
#include <memory>

#include "base/hex.h"
#include "base/printable.h"
#include "cli/commands.h"
#include "cli/file_io.h"
#include "cli/key_objects.h"
#include "cli/output.h"

namespace signet::cli {
namespace {

struct KeyOptions {
  std::string type;
  std::string label;
  std::string in;           // import: the private key file
  bool json = false;        // list --json
  bool exportable = false;  // keygen: may move to another token (export-key)
};

Status RunKeygen(GlobalOptions& global, const KeyOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(crypto::KeySpec spec, crypto::ParseKeySpec(options.type));
  SIGNET_ASSIGN_OR_RETURN(Connection connection, ConnectAndLogin(global));
  KeygenRequest request = MakeKeygenRequest(spec, options.label, options.exportable);
  // unique_label: the daemon checks the label and stores both halves in one
  // transaction, so concurrent keygens with one label make one pair.
  SIGNET_ASSIGN_OR_RETURN(client::KeyPair pair,
                          connection.client->GenerateKeyPair(
                              connection.session, request.mechanism, request.public_template,
                              request.private_template, /*unique_label=*/true));
  (void)pair;
  std::printf("generated %s key pair '%s'\n", crypto::KeySpecName(spec).c_str(),
              PrintableText(options.label).c_str());
  return OkStatus();
}

// RunImport puts an existing private key file on the token as a key pair:
// the key travels to the daemon once, inside the request, and every copy
// this process made of it is wiped.
Status RunImport(GlobalOptions& global, const KeyOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(client::Bytes file, ReadFile(options.in));
  SecureBytes encoded(file.begin(), file.end());
  if (!file.empty()) explicit_bzero(file.data(), file.size());  // never NULL (defect 15)
  Result<crypto::PrivateKey> key = crypto::PrivateKey::FromEncoded(encoded);
  if (!key.ok()) {
    return MakeError(key.error().code, options.in + ": " + key.error().message);
  }
  SIGNET_ASSIGN_OR_RETURN(SecureBytes pkcs8, key->ToPkcs8Der());
  SIGNET_ASSIGN_OR_RETURN(ImportRequest request, MakeImportRequest(*key, pkcs8, options.label));
  SIGNET_ASSIGN_OR_RETURN(Connection connection, ConnectAndLogin(global));
  // Both halves in one request and one daemon transaction (a crash leaves
  // both or neither), created only if no key has the label yet.
  std::vector<client::Template> templates = {std::move(request.private_template),
                                             std::move(request.public_template)};
  Result<std::vector<client::Handle>> made =
      connection.client->CreateObjects(connection.session, templates, /*unique_label=*/true);
  for (client::Template& object : templates) {
    for (client::Attribute& attribute : object) {
      if (!attribute.value.empty()) explicit_bzero(attribute.value.data(), attribute.value.size());
    }
  }
  if (!made.ok()) return made.error();
  std::printf("imported %s key pair '%s' from %s\n", crypto::KeySpecName(key->spec()).c_str(),
              PrintableText(options.label).c_str(), PrintableText(options.in).c_str());
  return OkStatus();
}

// Protection: a key's sensitivity and extractability in words ("-" for a
// public key, which has neither).
std::string Protection(const KeyListing& key) {
  std::vector<std::string> words;
  if (key.sensitive) words.push_back(*key.sensitive ? "sensitive" : "not-sensitive");
  if (key.extractable) words.push_back(*key.extractable ? "extractable" : "non-extractable");
  return JoinNames(words);
}

Json KeyJson(const KeyListing& key) {
  Json entry = {{"label", key.label},   {"id", ToHex(key.id)}, {"class", key.object_class},
                {"type", key.key_type}, {"bits", key.bits},    {"usage", key.usage}};
  const std::pair<const char*, const std::optional<bool>*> flags[] = {
      {"sensitive", &key.sensitive},
      {"extractable", &key.extractable},
      {"always_sensitive", &key.always_sensitive},
      {"never_extractable", &key.never_extractable}};
  for (const auto& [name, value] : flags) {
    if (value->has_value()) entry[name] = **value;
  }
  return entry;
}

Status RunList(GlobalOptions& global, const KeyOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(Connection connection, ConnectAndLogin(global));
  SIGNET_ASSIGN_OR_RETURN(std::vector<KeyListing> keys, ListKeys(connection));
  if (options.json) {
    Json listed = Json::array();
    for (const KeyListing& key : keys) listed.push_back(KeyJson(key));
    PrintJson({{"slot", connection.slot}, {"keys", std::move(listed)}});
    return OkStatus();
  }
  std::printf("%-8s %-13s %-16s %-22s %-26s %s\n", "class", "type", "id", "usage", "protection",
              "label");
  for (const KeyListing& key : keys) {
    std::printf("%-8s %-13s %-16s %-22s %-26s %s\n", key.object_class.c_str(), key.key_type.c_str(),
                key.id.empty() ? "-" : ToHex(key.id).c_str(), JoinNames(key.usage).c_str(),
                Protection(key).c_str(), PrintableText(key.label).c_str());
  }
  return OkStatus();
}

Status RunPubkey(GlobalOptions& global, const KeyOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(Connection connection, Connect(global));
  SIGNET_ASSIGN_OR_RETURN(client::Handle handle,
                          FindKey(connection, options.label, CKO_PUBLIC_KEY));
  SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey key, ReadPublicKey(connection, handle));
  SIGNET_ASSIGN_OR_RETURN(std::string pem, key.ToPem());
  std::fwrite(pem.data(), 1, pem.size(), stdout);
  return OkStatus();
}

Status RunDelete(GlobalOptions& global, const KeyOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(Connection connection, ConnectAndLogin(global));
  SIGNET_ASSIGN_OR_RETURN(auto objects, FindKeysByLabel(connection, options.label));
  if (objects.empty()) {
    return MakeError(CKR_OBJECT_HANDLE_INVALID, "no key labelled '" + options.label + "'");
  }
  // Every object in one request and one daemon transaction: all or none.
  SIGNET_TRY(connection.client->DestroyObjects(connection.session, objects));
  std::printf("deleted %zu object(s) labelled '%s'\n", objects.size(),
              PrintableText(options.label).c_str());
  return OkStatus();
}

}  // namespace

void AddKeyCommands(CLI::App& app, GlobalOptions& global, CommandAction* selected) {
  auto options = std::make_shared<KeyOptions>();

  CLI::App* keygen = app.add_subcommand("keygen", "Generate a token key pair");
  keygen->add_option("--type", options->type,
                     "rsa:2048|rsa:3072|rsa:4096|ec:p256|ec:p384|ec:p521|ec:secp256k1|ed25519")
      ->required();
  keygen->add_option("--label", options->label, "Label of the new key pair")->required();
  keygen->add_flag("--exportable", options->exportable,
                   "The key may move to another token, wrapped for a trusted transport key "
                   "(export-key); never anywhere else");
  keygen->callback([&global, options, selected] {
    *selected = [&global, options] { return RunKeygen(global, *options); };
  });

  CLI::App* import = app.add_subcommand(
      "import", "Put an existing private key (PEM or DER, PKCS#8 or RSA/EC) on the token");
  import->add_option("--in", options->in, "Private key file (unencrypted)")->required();
  import->add_option("--label", options->label, "Label of the new key pair")->required();
  import->callback([&global, options, selected] {
    *selected = [&global, options] { return RunImport(global, *options); };
  });

  CLI::App* list = app.add_subcommand(
      "list", "List the token's keys: class, type and size, CKA_ID, usage, protection, label");
  list->add_flag("--json", options->json, "Print JSON");
  list->callback([&global, options, selected] {
    *selected = [&global, options] { return RunList(global, *options); };
  });

  CLI::App* pubkey = app.add_subcommand("pubkey", "Print a public key as PEM");
  pubkey->add_option("--label", options->label, "Key label")->required();
  pubkey->callback([&global, options, selected] {
    *selected = [&global, options] { return RunPubkey(global, *options); };
  });

  CLI::App* remove = app.add_subcommand("delete", "Delete every object with a label");
  remove->add_option("--label", options->label, "Key label")->required();
  remove->callback([&global, options, selected] {
    *selected = [&global, options] { return RunDelete(global, *options); };
  });
}

}  // namespace signet::cli
