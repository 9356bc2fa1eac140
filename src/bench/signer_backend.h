// SignerBackend: the seam between `bench parallel` and what actually signs
// (or encrypts, MACs, decrypts, derives: bench_operations.h).
// The raw backend (raw_backend.h) signs in-process with crypto/; the daemon
// backend (daemon_backend.h, on the client library), the PKCS#11 backend
// (pkcs11_backend.h) and the Cryptech backend (cryptech_backend.h, libhal's
// RPC) open one connection or session per client. RunParallel
// drives each through the same load generator, so their numbers compare
// directly.
// Thread contract: Prepare runs on the caller's thread; the WorkerFactory it
// returns is called once per client on that client's thread, concurrently.
#pragma once

#include <string>
#include <string_view>

#include "bench/bench_operations.h"
#include "bench/load_generator.h"
#include "bench/sign_algorithms.h"
#include "signet/result.hpp"

namespace signet::bench {

class SignerBackend {
 public:
  virtual ~SignerBackend() = default;

  // name: "raw", "daemon", "pkcs11" or "cryptech"; tags the rows of the report.
  virtual std::string_view name() const = 0;

  // Prepare readies one algorithm (creates its key) and returns the factory
  // making each client's Operation: sign one SHA-2 digest and, when
  // `verify`, check the signature before counting it. The factory (and
  // whatever it captures) stays valid until the next Prepare or until the
  // backend is destroyed.
  [[nodiscard]] virtual Result<WorkerFactory> Prepare(const SignAlgorithm& algo, bool verify) = 0;

  // PrepareOperation is Prepare for an operation other than signing: it
  // readies its key (and, for kDecrypt, a ciphertext; for kDerive, the
  // peer's public key) and returns the factory of each client's Operation.
  // CKR_FUNCTION_NOT_SUPPORTED from a backend that does not measure them.
  [[nodiscard]] virtual Result<WorkerFactory> PrepareOperation(const BenchOperation& op) {
    return MakeError(CKR_FUNCTION_NOT_SUPPORTED,
                     std::string(name()) + " does not measure " + std::string(op.id));
  }
};

}  // namespace signet::bench
