// SignerBackend: the seam between `bench parallel` and what actually signs.
// The raw backend (raw_backend.h) signs in-process with crypto/; the daemon
// backend (daemon_backend.h, on the client library) and the PKCS#11 backend
// (pkcs11_backend.h) open one connection or session per client. RunParallel
// drives each through the same load generator, so their numbers compare
// directly.
// Thread contract: Prepare runs on the caller's thread; the WorkerFactory it
// returns is called once per client on that client's thread, concurrently.
#pragma once

#include <string_view>

#include "bench/load_generator.h"
#include "bench/sign_algorithms.h"
#include "signet/result.hpp"

namespace signet::bench {

class SignerBackend {
 public:
  virtual ~SignerBackend() = default;

  // name: "raw" or "daemon"; tags the rows of the report.
  virtual std::string_view name() const = 0;

  // Prepare readies one algorithm (creates its key) and returns the factory
  // making each client's Operation: sign one SHA-2 digest and, when
  // `verify`, check the signature before counting it. The factory (and
  // whatever it captures) stays valid until the next Prepare or until the
  // backend is destroyed.
  [[nodiscard]] virtual Result<WorkerFactory> Prepare(const SignAlgorithm& algo, bool verify) = 0;
};

}  // namespace signet::bench
