#include "cli/cli_context.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <optional>

#include "cli/pin_input.h"
#include "signet/paths.hpp"

namespace signet::cli {
namespace {

// kDefaultSocketName: the daemon's socket inside its data directory, the
// same default signetd uses.
constexpr const char* kDefaultSocketName = "signetd.sock";

std::string FromEnv(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

// SlotNumber: `text` as a slot id when it is all digits (and fits).
std::optional<CK_SLOT_ID> SlotNumber(const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != text.npos) {
    return std::nullopt;
  }
  return static_cast<CK_SLOT_ID>(std::stoul(text));
}

// TokenField: what of a token a --token value is compared with.
enum class TokenField { kLabel, kSerial, kSlot };

// Matching: the slots with a token whose `field` is `value`.
std::vector<const client::SlotInfo*> Matching(const std::vector<client::SlotInfo>& slots,
                                              TokenField field, const std::string& value) {
  std::vector<const client::SlotInfo*> found;
  const std::optional<CK_SLOT_ID> number = SlotNumber(value);
  for (const client::SlotInfo& slot : slots) {
    if (!slot.token_present) continue;
    const bool match = field == TokenField::kLabel    ? TrimPadding(slot.label) == value
                       : field == TokenField::kSerial ? TrimPadding(slot.serial) == value
                                                      : number && slot.slot_id == *number;
    if (match) found.push_back(&slot);
  }
  return found;
}

}  // namespace

std::string TrimPadding(std::string text) {
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

Result<CK_SLOT_ID> ChooseToken(const std::vector<client::SlotInfo>& slots,
                               const std::string& selector) {
  if (selector.empty()) {
    for (const client::SlotInfo& slot : slots) {
      if (slot.token_present) return slot.slot_id;
    }
    return MakeError(CKR_TOKEN_NOT_PRESENT, "signetd has no token; create one with `signet init`");
  }
  struct Prefix {
    const char* text;
    TokenField field;
    const char* noun;
  };
  static constexpr Prefix kPrefixes[] = {{"label:", TokenField::kLabel, "labelled"},
                                         {"serial:", TokenField::kSerial, "with serial"},
                                         {"slot:", TokenField::kSlot, "in slot"}};
  std::vector<const client::SlotInfo*> found;
  std::string value = selector;
  std::string described = "labelled, with serial or in slot";
  bool by_label = true;
  const auto prefix = std::find_if(std::begin(kPrefixes), std::end(kPrefixes),
                                   [&](const Prefix& p) { return selector.starts_with(p.text); });
  if (prefix != std::end(kPrefixes)) {
    value = selector.substr(std::strlen(prefix->text));
    described = prefix->noun;
    by_label = prefix->field == TokenField::kLabel;
    if (prefix->field == TokenField::kSlot && !SlotNumber(value)) {
      return MakeError(CKR_ARGUMENTS_BAD, "--token " + selector + ": a slot id is a number");
    }
    found = Matching(slots, prefix->field, value);
  } else {
    for (TokenField field : {TokenField::kLabel, TokenField::kSerial, TokenField::kSlot}) {
      found = Matching(slots, field, value);
      by_label = field == TokenField::kLabel;
      if (!found.empty()) break;
    }
  }
  if (found.empty()) {
    return MakeError(CKR_TOKEN_NOT_PRESENT, "signetd has no token " + described + " '" + value +
                                                "' (`signet tokens` lists them)");
  }
  if (found.size() > 1 && by_label) {
    std::string candidates;
    for (const client::SlotInfo* slot : found) {
      candidates += (candidates.empty() ? "slot " : ", slot ") + std::to_string(slot->slot_id) +
                    " (serial " + TrimPadding(slot->serial) + ")";
    }
    return MakeError(CKR_ARGUMENTS_BAD, std::to_string(found.size()) + " tokens are labelled '" +
                                            value + "': " + candidates +
                                            "; choose one with --token serial:S or --token slot:N");
  }
  return found.front()->slot_id;
}

std::string ResolveDataDir(const GlobalOptions& options) {
  return options.data_dir.empty() ? FromEnv("SIGNET_DATA") : options.data_dir;
}

Result<std::string> ResolveDaemonAddress(const GlobalOptions& options) {
  if (!options.socket.empty()) return options.socket;
  if (std::string env = FromEnv("SIGNET_SOCKET"); !env.empty()) return env;
  if (std::string dir = ResolveDataDir(options); !dir.empty()) {
    return dir + "/" + kDefaultSocketName;
  }
  return std::string(kDefaultSocketPath);
}

Result<std::unique_ptr<client::Client>> ConnectClient(const GlobalOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(std::string address, ResolveDaemonAddress(options));
  client::ConnectOptions connect;
  connect.address = address;
  connect.tls_ca_file = options.tls_ca;
  connect.tls_cert_file = options.tls_cert;
  connect.tls_key_file = options.tls_key;
  Result<std::unique_ptr<client::Client>> client = client::Client::Connect(connect);
  if (!client.ok() && options.socket.empty() && FromEnv("SIGNET_SOCKET").empty() &&
      ResolveDataDir(options).empty()) {
    // The service's socket was only a guess: say where else a daemon is named.
    return MakeError(client.error().code,
                     client.error().message +
                         " (the service's socket; another daemon: --socket, SIGNET_SOCKET, "
                         "--data or SIGNET_DATA)");
  }
  return client;
}

Result<Connection> Connect(const GlobalOptions& options) {
  Connection connection;
  SIGNET_ASSIGN_OR_RETURN(connection.client, ConnectClient(options));
  SIGNET_ASSIGN_OR_RETURN(client::ServerInfo info, connection.client->GetInfo());
  SIGNET_ASSIGN_OR_RETURN(connection.slot, ChooseToken(info.slots, options.token_label));
  SIGNET_ASSIGN_OR_RETURN(connection.session, connection.client->OpenSession(connection.slot));
  return connection;
}

Result<Connection> ConnectAndLogin(GlobalOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(SecureBytes pin,
                          ReadSecret({&options.pin, "--pin", "SIGNET_PIN", "User PIN: "}));
  SIGNET_ASSIGN_OR_RETURN(Connection connection, Connect(options));
  Status login = connection.client->Login(connection.session, CKU_USER, pin);
  if (!login.ok()) return std::move(login).error();
  return connection;
}

}  // namespace signet::cli
