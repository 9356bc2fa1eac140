// module_config_fuzz: the PKCS#11 module's configuration (src/pkcs11/
// config.h), the only configuration file signet parses (signetd takes
// flags only): ParseConfigText on arbitrary text, the daemon address it
// yields through client::ParseEndpoint (src/client/stream.h), and
// LoadModuleConfig on the same text as the file SIGNET_CONF names.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "client/stream.h"
#include "fuzz_target.h"
#include "pkcs11/config.h"

namespace {

std::string g_conf_path;

void RemoveConf() { std::filesystem::remove(g_conf_path); }

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                     "/signet-config-fuzz-XXXXXX";
  int fd = mkstemp(tmpl.data());
  if (fd < 0) std::abort();
  close(fd);
  g_conf_path = tmpl;
  std::atexit(RemoveConf);
  setenv("SIGNET_CONF", g_conf_path.c_str(), 1);
  unsetenv("SIGNET_SOCKET");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  signet::pkcs11::ModuleConfig config;
  if (signet::pkcs11::ParseConfigText(text, config).ok()) {
    auto endpoint = signet::client::ParseEndpoint(config.socket);
    (void)endpoint;
  }
  {
    std::ofstream out(g_conf_path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  auto loaded = signet::pkcs11::LoadModuleConfig();
  if (loaded.ok()) {
    FUZZ_CHECK(!loaded->socket.empty());
    FUZZ_CHECK(!loaded->timeout.empty() && loaded->timeout.size() <= 6);
  }
  return 0;
}
