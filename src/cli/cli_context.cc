#include "cli/cli_context.h"

#include <cstdlib>

#include "cli/pin_input.h"

namespace signet::cli {
namespace {

// kDefaultSocketName: the daemon's socket inside its data directory, the
// same default signetd uses.
constexpr const char* kDefaultSocketName = "signetd.sock";

std::string FromEnv(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

// TrimmedLabel drops the blank padding PKCS#11 token labels may carry.
std::string TrimmedLabel(std::string label) {
  while (!label.empty() && label.back() == ' ') label.pop_back();
  return label;
}

Result<CK_SLOT_ID> ChooseSlot(client::Client& client, const std::string& label) {
  SIGNET_ASSIGN_OR_RETURN(client::ServerInfo info, client.GetInfo());
  for (const client::SlotInfo& slot : info.slots) {
    if (!slot.token_present) continue;
    if (label.empty() || TrimmedLabel(slot.label) == label) return slot.slot_id;
  }
  if (label.empty()) {
    return MakeError(CKR_TOKEN_NOT_PRESENT,
                     "signetd has no token; create one with `signet init`");
  }
  return MakeError(CKR_TOKEN_NOT_PRESENT, "signetd has no token labelled '" + label + "'");
}

}  // namespace

std::string ResolveDataDir(const GlobalOptions& options) {
  return options.data_dir.empty() ? FromEnv("SIGNET_DATA") : options.data_dir;
}

Result<std::string> ResolveDaemonAddress(const GlobalOptions& options) {
  if (!options.socket.empty()) return options.socket;
  if (std::string env = FromEnv("SIGNET_SOCKET"); !env.empty()) return env;
  if (std::string dir = ResolveDataDir(options); !dir.empty()) {
    return dir + "/" + kDefaultSocketName;
  }
  return MakeError(CKR_ARGUMENTS_BAD,
                   "where is signetd? give --socket, SIGNET_SOCKET, --data or SIGNET_DATA");
}

Result<std::unique_ptr<client::Client>> ConnectClient(const GlobalOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(std::string address, ResolveDaemonAddress(options));
  client::ConnectOptions connect;
  connect.address = address;
  connect.tls_ca_file = options.tls_ca;
  connect.tls_cert_file = options.tls_cert;
  connect.tls_key_file = options.tls_key;
  return client::Client::Connect(connect);
}

Result<Connection> Connect(const GlobalOptions& options) {
  Connection connection;
  SIGNET_ASSIGN_OR_RETURN(connection.client, ConnectClient(options));
  SIGNET_ASSIGN_OR_RETURN(connection.slot, ChooseSlot(*connection.client, options.token_label));
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
