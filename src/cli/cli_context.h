// The state every signet CLI command shares: global options (where the
// daemon is, which token, PIN sources, TLS files) and the steps most
// commands start with: connect, pick the token's slot, open a session, log
// in. Single-threaded, like the CLI.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "signet/client.hpp"

namespace signet::cli {

// GlobalOptions: filled by CLI11 from flags; environment fallbacks are read
// by the functions below, not here.
struct GlobalOptions {
  std::string data_dir;               // --data (else SIGNET_DATA)
  std::string socket;                 // --socket (else SIGNET_SOCKET)
  std::string token_label;            // --token: label, serial or slot id (ChooseToken)
  std::optional<std::string> pin;     // --pin (else SIGNET_PIN, else prompt)
  std::string tls_ca;                 // --tls-ca
  std::string tls_cert;               // --tls-cert
  std::string tls_key;                // --tls-key
};

// ResolveDataDir: --data, else SIGNET_DATA; empty when neither is set.
std::string ResolveDataDir(const GlobalOptions& options);

// ResolveDaemonAddress: --socket, else SIGNET_SOCKET, else
// <data dir>/signetd.sock, else the installed service's socket
// (/run/signet/signetd.sock, signet/paths.hpp), as the PKCS#11 module.
Result<std::string> ResolveDaemonAddress(const GlobalOptions& options);

// ConnectClient connects to the daemon ResolveDaemonAddress names, with the
// TLS files when given. When the service's socket was only the default and
// does not answer, the error also names the ways to name another daemon.
Result<std::unique_ptr<client::Client>> ConnectClient(const GlobalOptions& options);

// TrimPadding drops the blank padding of CK_TOKEN_INFO's fixed-width text
// (labels, serials, manufacturer, model).
std::string TrimPadding(std::string text);

// ChooseToken picks the slot whose token `selector` (--token) names among
// GetInfo's `slots`; only slots holding a token count:
//   ""           the first token
//   label:L      the token labelled L
//   serial:S     the token with serial S
//   slot:N       the token in slot N
//   X            a token labelled X, else the token with serial X, else, when
//                X is a number, the token in slot X (label first: --token
//                always took a label, and labels are what people type)
// CKR_TOKEN_NOT_PRESENT when no token matches; CKR_ARGUMENTS_BAD naming
// every candidate's slot and serial when several carry the label, or when
// `slot:` is not followed by a number.
Result<CK_SLOT_ID> ChooseToken(const std::vector<client::SlotInfo>& slots,
                               const std::string& selector);

// Connection: a connected client with one open session on the chosen token.
struct Connection {
  std::unique_ptr<client::Client> client;
  client::Handle session = 0;
  CK_SLOT_ID slot = 0;
};

// Connect connects, chooses the token (ChooseToken on --token) and opens a
// read-write session. ChooseToken's errors when the daemon has no (such)
// token.
Result<Connection> Connect(const GlobalOptions& options);

// ConnectAndLogin is Connect plus a user login with the PIN from --pin,
// SIGNET_PIN or a prompt.
Result<Connection> ConnectAndLogin(GlobalOptions& options);

}  // namespace signet::cli
