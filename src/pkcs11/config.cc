#include "pkcs11/config.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "signet/paths.hpp"

namespace signet::pkcs11 {
namespace {

std::string Trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

// KeyField maps a config key to its field; nullptr for unknown keys.
std::string* KeyField(const std::string& key, ModuleConfig& config) {
  struct Row {
    const char* key;
    std::string ModuleConfig::*field;
  };
  static constexpr Row kRows[] = {
      {"socket", &ModuleConfig::socket},
      {"tls_ca", &ModuleConfig::tls_ca},
      {"tls_cert", &ModuleConfig::tls_cert},
      {"tls_key", &ModuleConfig::tls_key},
      {"tls_server_name", &ModuleConfig::tls_server_name},
      {"timeout", &ModuleConfig::timeout},
      {"shared_memory", &ModuleConfig::shared_memory},
      {"failover", &ModuleConfig::failover},
  };
  for (const Row& row : kRows) {
    if (key == row.key) return &(config.*row.field);
  }
  return nullptr;
}

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return MakeError(CKR_DEVICE_ERROR, "cannot read config file " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

Status ParseConfigText(const std::string& text, ModuleConfig& config) {
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = Trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) {
      return MakeError(CKR_ARGUMENTS_BAD, "line " + std::to_string(number) + ": expected key = value");
    }
    const std::string key = Trim(line.substr(0, eq));
    std::string* field = KeyField(key, config);
    if (field == nullptr) {
      return MakeError(CKR_ARGUMENTS_BAD, "line " + std::to_string(number) + ": unknown key '" + key + "'");
    }
    *field = Trim(line.substr(eq + 1));
  }
  return OkStatus();
}

Result<ModuleConfig> LoadModuleConfig() {
  ModuleConfig config;
  const char* conf_env = std::getenv("SIGNET_CONF");
  std::string conf_path = conf_env != nullptr ? conf_env : "";
  if (conf_path.empty() && std::ifstream(kModuleConfigPath).good()) conf_path = kModuleConfigPath;
  if (!conf_path.empty()) {
    SIGNET_ASSIGN_OR_RETURN(std::string text, ReadFile(conf_path));
    Status parsed = ParseConfigText(text, config);
    if (!parsed.ok()) {
      return MakeError(CKR_DEVICE_ERROR, conf_path + ": " + parsed.error().message);
    }
  }
  if (const char* socket = std::getenv("SIGNET_SOCKET"); socket != nullptr && *socket != '\0') {
    config.socket = socket;
  }
  if (const char* shm = std::getenv("SIGNET_SHARED_MEMORY"); shm != nullptr && *shm != '\0') {
    config.shared_memory = shm;
  }
  if (config.shared_memory != "yes" && config.shared_memory != "no") {
    return MakeError(CKR_DEVICE_ERROR, "shared_memory must be yes or no");
  }
  if (config.failover != "yes" && config.failover != "no") {
    return MakeError(CKR_DEVICE_ERROR, "failover must be yes or no");
  }
  if (config.timeout.empty() ||
      config.timeout.find_first_not_of("0123456789") != std::string::npos ||
      config.timeout.size() > 6) {
    return MakeError(CKR_DEVICE_ERROR, "timeout must be a number of seconds");
  }
  if (config.socket.empty()) {
    return MakeError(CKR_DEVICE_ERROR,
                     "empty signetd address: set SIGNET_SOCKET, or 'socket = PATH' in the config "
                     "file (or leave both unset for " +
                         std::string(kDefaultSocketPath) + ")");
  }
  return config;
}

}  // namespace signet::pkcs11
