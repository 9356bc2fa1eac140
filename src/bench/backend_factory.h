// MakeServiceBackend: the non-raw backend `bench parallel` and `bench
// profile` measure, chosen by ParallelOptions::via: "daemon"
// (daemon_backend.h), "pkcs11" (pkcs11_backend.h) or "cryptech"
// (cryptech_backend.h, signetd's Cryptech listener). The CLI's main plugs
// it into BenchHooks::make_daemon_backend with the global options it
// parsed (socket, PIN, token).
// Thread contract: call from the thread that will run the benchmark.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "bench/parallel.h"
#include "bench/signer_backend.h"

namespace signet::bench {

// ServiceAccess: how to reach the service, from the CLI's global options.
struct ServiceAccess {
  // socket: --socket; empty: start a throw-away signetd. With via
  // "cryptech" it is the Cryptech listener's socket (else
  // SIGNET_CRYPTECH_SOCKET, else CRYPTECH_RPC_CLIENT_SOCKET_NAME).
  std::string socket;
  std::optional<std::string> pin;  // --pin; else SIGNET_PIN
  std::string token_label;         // --token (daemon); --token-label wins
};

// MakeServiceBackend builds the backend. CKR_ARGUMENTS_BAD for an unknown
// `via`, or for options that backend lacks; otherwise the backend's own
// errors (daemon_backend.h, pkcs11_backend.h).
[[nodiscard]] Result<std::unique_ptr<SignerBackend>> MakeServiceBackend(
    const ParallelOptions& options, const ServiceAccess& access);

}  // namespace signet::bench
