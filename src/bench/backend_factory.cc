#include "bench/backend_factory.h"

#include <cstdlib>

#include "bench/daemon_backend.h"
#include "bench/pkcs11_backend.h"

namespace signet::bench {
namespace {

std::string ResolvePin(const ServiceAccess& access) {
  if (access.pin) return *access.pin;
  const char* env = std::getenv("SIGNET_PIN");
  return env != nullptr ? env : "";
}

}  // namespace

Result<std::unique_ptr<SignerBackend>> MakeServiceBackend(const ParallelOptions& options,
                                                          const ServiceAccess& access) {
  const std::string token =
      options.token_label.empty() ? access.token_label : options.token_label;
  if (options.via == "daemon") {
    if (!options.module_path.empty()) {
      return MakeError(CKR_ARGUMENTS_BAD, "--module needs --via pkcs11");
    }
    SIGNET_ASSIGN_OR_RETURN(auto backend,
                            DaemonBackend::Create({access.socket, ResolvePin(access), token,
                                                   options.pipeline, options.batch}));
    return std::unique_ptr<SignerBackend>(std::move(backend));
  }
  if (options.via == "pkcs11") {
    if (options.pipeline != 1 || options.batch != 1) {
      return MakeError(CKR_ARGUMENTS_BAD, "--pipeline/--batch are daemon options");
    }
    return MakePkcs11Backend({options.module_path, token, ResolvePin(access)});
  }
  return MakeError(CKR_ARGUMENTS_BAD, "--via takes daemon or pkcs11, not '" + options.via + "'");
}

}  // namespace signet::bench
