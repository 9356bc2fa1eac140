#include "bench/backend_factory.h"

#include <cstdlib>
#include <iostream>

#include "bench/cryptech_backend.h"
#include "bench/daemon_backend.h"
#include "bench/local_daemon.h"
#include "bench/pkcs11_backend.h"

namespace signet::bench {
namespace {

// WithOwnDaemon: a PKCS#11 backend over signet's module plus the throw-away
// signetd it talks to; the backend goes first, then the daemon.
class WithOwnDaemon : public SignerBackend {
 public:
  WithOwnDaemon(std::unique_ptr<LocalDaemon> daemon, std::unique_ptr<SignerBackend> inner)
      : daemon_(std::move(daemon)), inner_(std::move(inner)) {}
  std::string_view name() const override { return inner_->name(); }
  Result<WorkerFactory> Prepare(const SignAlgorithm& algo, bool verify) override {
    return inner_->Prepare(algo, verify);
  }
  Result<WorkerFactory> PrepareOperation(const BenchOperation& op) override {
    return inner_->PrepareOperation(op);
  }

 private:
  std::unique_ptr<LocalDaemon> daemon_;
  std::unique_ptr<SignerBackend> inner_;
};

// NeedsOwnDaemon: signet's own module with no daemon named anywhere gets a
// throw-away signetd, as the daemon mode does.
bool NeedsOwnDaemon(const ParallelOptions& options, const ServiceAccess& access) {
  const std::string file = options.module_path.substr(options.module_path.rfind('/') + 1);
  return file.find("signet") != std::string::npos && access.socket.empty() &&
         std::getenv("SIGNET_SOCKET") == nullptr && std::getenv("SIGNET_CONF") == nullptr;
}

Result<std::unique_ptr<SignerBackend>> MakePkcs11(const ParallelOptions& options,
                                                  const ServiceAccess& access,
                                                  const std::string& token,
                                                  const std::string& pin) {
  if (!access.socket.empty()) setenv("SIGNET_SOCKET", access.socket.c_str(), 1);
  if (!NeedsOwnDaemon(options, access)) return MakePkcs11Backend({options.module_path, token, pin});
  SIGNET_ASSIGN_OR_RETURN(auto daemon, LocalDaemon::Start());
  // The module reads SIGNET_SOCKET when C_Initialize runs (single-threaded here).
  setenv("SIGNET_SOCKET", daemon->socket().c_str(), 1);
  SIGNET_ASSIGN_OR_RETURN(
      auto inner, MakePkcs11Backend({options.module_path, daemon->token_label(), daemon->pin()}));
  return std::unique_ptr<SignerBackend>(new WithOwnDaemon(std::move(daemon), std::move(inner)));
}

std::string ResolvePin(const ServiceAccess& access) {
  if (access.pin) return *access.pin;
  const char* env = std::getenv("SIGNET_PIN");
  return env != nullptr ? env : "";
}

// CryptechSocket: --socket, else SIGNET_CRYPTECH_SOCKET, else libhal's own
// CRYPTECH_RPC_CLIENT_SOCKET_NAME (docs/CRYPTECH.md); empty: none named.
std::string CryptechSocket(const ServiceAccess& access) {
  if (!access.socket.empty()) return access.socket;
  for (const char* name : {"SIGNET_CRYPTECH_SOCKET", "CRYPTECH_RPC_CLIENT_SOCKET_NAME"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return value;
  }
  return {};
}

Result<std::unique_ptr<SignerBackend>> MakeCryptech(const ParallelOptions& options,
                                                    const ServiceAccess& access,
                                                    const std::string& token) {
  if (options.pipeline != 1 || options.batch != 1) {
    return MakeError(CKR_ARGUMENTS_BAD, "--pipeline/--batch are daemon options");
  }
  if (!token.empty()) {
    return MakeError(CKR_ARGUMENTS_BAD,
                     "--via cryptech serves the token signetd's --cryptech-token names; "
                     "--token/--token-label do not apply");
  }
  SIGNET_ASSIGN_OR_RETURN(auto backend, CryptechBackend::Create({CryptechSocket(access),
                                                                 ResolvePin(access), &std::cerr}));
  return std::unique_ptr<SignerBackend>(std::move(backend));
}

}  // namespace

Result<std::unique_ptr<SignerBackend>> MakeServiceBackend(const ParallelOptions& options,
                                                          const ServiceAccess& access) {
  const std::string token = options.token_label.empty() ? access.token_label : options.token_label;
  if (options.via != "pkcs11" && !options.module_path.empty()) {
    return MakeError(CKR_ARGUMENTS_BAD, "--module needs --via pkcs11");
  }
  if (options.via == "daemon") {
    SIGNET_ASSIGN_OR_RETURN(auto backend,
                            DaemonBackend::Create({access.socket, ResolvePin(access), token,
                                                   options.pipeline, options.batch}));
    return std::unique_ptr<SignerBackend>(std::move(backend));
  }
  if (options.via == "pkcs11") {
    if (options.pipeline != 1 || options.batch != 1) {
      return MakeError(CKR_ARGUMENTS_BAD, "--pipeline/--batch are daemon options");
    }
    return MakePkcs11(options, access, token, ResolvePin(access));
  }
  if (options.via == "cryptech") return MakeCryptech(options, access, token);
  return MakeError(CKR_ARGUMENTS_BAD,
                   "--via takes daemon, pkcs11 or cryptech, not '" + options.via + "'");
}

}  // namespace signet::bench
