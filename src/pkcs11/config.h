// ModuleConfig: where the PKCS#11 module finds signetd. Read once per
// C_Initialize from the environment:
//   SIGNET_SOCKET  the daemon's address (a Unix socket path, "unix:PATH" or
//                  "tcp://host:port"), or several comma-separated for the
//                  nodes of one shared keystore; wins over the file.
//   SIGNET_CONF    a config file of `key = value` lines ('#' starts a
//                  comment): socket, tls_ca, tls_cert, tls_key, tls_server_name,
//                  timeout (seconds one wait for the daemon may take; default
//                  120, 0 = forever), shared_memory (yes or no: use
//                  the shared-memory ring on a Unix socket; default yes),
//                  failover (yes or no: with several addresses, move a
//                  session to another node when its node dies and repeat
//                  the requests that are safe to repeat, docs/SCALING.md;
//                  default yes).
//   SIGNET_SHARED_MEMORY  yes or no; wins over the file (for comparisons
//                  of the two local transports).
// Without either, /etc/signet/pkcs11.conf (signet/paths.hpp
// kModuleConfigPath) is read when it exists. When none of them names a
// socket, the address is the installed service's, /run/signet/signetd.sock
// (kDefaultSocketPath). Plain values; no synchronisation needed.
#pragma once

#include <string>

#include "signet/paths.hpp"
#include "signet/result.hpp"

namespace signet::pkcs11 {

struct ModuleConfig {
  std::string socket = kDefaultSocketPath;  // daemon address, never empty in a loaded config
  std::string tls_ca;
  std::string tls_cert;
  std::string tls_key;
  std::string tls_server_name;
  std::string timeout = "120";  // seconds, validated by LoadModuleConfig
  std::string shared_memory = "yes";  // "yes" or "no", validated by LoadModuleConfig
  std::string failover = "yes";       // "yes" or "no", validated by LoadModuleConfig
};

// ParseConfigText reads `key = value` lines into `config`, leaving keys the
// text does not mention unchanged. CKR_ARGUMENTS_BAD names the first line it
// cannot read or an unknown key.
[[nodiscard]] Status ParseConfigText(const std::string& text, ModuleConfig& config);

// LoadModuleConfig applies the rules above. CKR_DEVICE_ERROR with a message
// for a person when the file sets an empty socket or the file named by
// SIGNET_CONF cannot be read or parsed, its timeout is not a number, or
// shared_memory or failover is neither yes nor no.
[[nodiscard]] Result<ModuleConfig> LoadModuleConfig();

}  // namespace signet::pkcs11
