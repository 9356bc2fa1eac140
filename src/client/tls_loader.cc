// ConnectTlsFd for the PKCS#11 module (signet_client_tls_loader): TLS comes
// from libsignet-tls.so, loaded from the directory the module itself was
// loaded from, on the first tcp:// connection (see tls_connect.h for why).
// Loaded once per process, RTLD_LOCAL so its OpenSSL symbols stay out of
// the host's namespace, and never unloaded (libcrypto cannot be unloaded).
#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#include <mutex>

#include "client/tls_connect.h"

namespace signet::client {
namespace {

struct Plugin {
  TlsPluginConnectFn connect = nullptr;
  std::string error;  // why connect is null
};

Plugin LoadPlugin() {
  Plugin plugin;
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&ConnectTlsFd), &self) == 0 || self.dli_fname == nullptr) {
    plugin.error = "cannot find the directory of the signet library";
    return plugin;
  }
  const std::string path =
      (std::filesystem::path(self.dli_fname).parent_path() / kTlsPluginFile).string();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    plugin.error = dlerror();
    return plugin;
  }
  plugin.connect = reinterpret_cast<TlsPluginConnectFn>(dlsym(handle, kTlsPluginSymbol));
  if (plugin.connect == nullptr) plugin.error = path + " has no " + kTlsPluginSymbol;
  return plugin;
}

}  // namespace

Result<std::unique_ptr<Stream>> ConnectTlsFd(int fd, std::chrono::milliseconds timeout,
                                             const TlsSettings& settings,
                                             const std::string& default_host) {
  static std::once_flag once;
  static Plugin* plugin = nullptr;  // leaked on purpose: the plugin is never unloaded
  std::call_once(once, [] { plugin = new Plugin(LoadPlugin()); });
  if (plugin->connect == nullptr) {
    ::close(fd);
    return MakeError(CKR_DEVICE_ERROR,
                     "TLS to signetd is unavailable: cannot load " + plugin->error);
  }
  Result<std::unique_ptr<Stream>> out = MakeError(CKR_GENERAL_ERROR, "TLS plugin gave no result");
  plugin->connect(fd, timeout.count(), &settings, &default_host, &out);
  return out;
}

}  // namespace signet::client
