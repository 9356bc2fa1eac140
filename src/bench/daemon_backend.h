// The daemon backend of `bench parallel` and `bench profile`: every client
// is its own connection to signetd with its own session and user login,
// signing with one token key per algorithm through the client library.
//
// Without a socket the backend starts its own signetd on a throw-away token
// (local_daemon.h) and stops it when destroyed. The key of each algorithm is
// found by label (token_mechanisms.h TokenKeyLabel) or generated once; its
// public key is read back (CKA_MODULUS/CKA_PUBLIC_EXPONENT or
// CKA_EC_PARAMS/CKA_EC_POINT) and every signature is checked with
// crypto::Verify in the client unless verification is off.
//
// The other operations of `bench parallel --algo` (AES, HMAC, RSA
// decryption, ECDH) run through daemon_operations.h, one request at a time.
//
// Request shapes per client: one blocking Sign at a time (default);
// `pipeline` K > 1 keeps K Sign requests in flight on the connection;
// `batch` K > 1 sends one SignBatch of K digests and hands its results out
// one per operation. With either, an operation's latency is the wait for
// its reply (amortised over the batch), not a full round trip.
// Thread contract: Prepare and Stats on the owner's thread; the factory's
// operations each on their own client thread.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "bench/local_daemon.h"
#include "bench/signer_backend.h"
#include "signet/client.hpp"

namespace signet::bench {

struct DaemonBackendOptions {
  std::string socket;       // empty: start a throw-away signetd
  std::string pin;          // user PIN (required with socket)
  std::string token_label;  // empty: the first token
  int pipeline = 1;         // Sign requests in flight per client
  int batch = 1;            // digests per SignBatch request
};

class DaemonBackend : public SignerBackend {
 public:
  // Create connects (starting signetd first when options.socket is empty)
  // and logs in on a control session used for key set-up and statistics.
  // CKR_ARGUMENTS_BAD for a socket without PIN or pipeline/batch < 1 or
  // both > 1; connection and login errors as the client library reports
  // them.
  [[nodiscard]] static Result<std::unique_ptr<DaemonBackend>> Create(DaemonBackendOptions options);
  ~DaemonBackend() override;

  std::string_view name() const override { return "daemon"; }
  Result<WorkerFactory> Prepare(const SignAlgorithm& algo, bool verify) override;
  // PrepareOperation: the operations besides signing (daemon_operations.h).
  Result<WorkerFactory> PrepareOperation(const BenchOperation& op) override;

  // Stats reads the daemon's counters over the control connection.
  Result<client::ServerStats> Stats();
  // DaemonCpuSeconds: the CPU time of the signetd this backend started
  // (-1 with --socket: another process's daemon).
  double DaemonCpuSeconds() const { return local_ ? local_->cpu_seconds() : -1; }

 private:
  struct Control;
  explicit DaemonBackend(DaemonBackendOptions options);

  DaemonBackendOptions options_;
  std::unique_ptr<LocalDaemon> local_;  // destroyed last: after every client
  std::unique_ptr<Control> control_;
};

}  // namespace signet::bench
