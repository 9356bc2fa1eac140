// The Cryptech backend of `bench parallel` (--via cryptech): seeds 000 and
// 001's measurement through the seeds' own interface, libhal's RPC, which
// signetd answers on its Cryptech listener (docs/CRYPTECH.md). Per client it
// does what Cryptech's parallel-signatures.py does per connection
// (cryptech_requests.h): its own connection, LOGIN as the user, PKEY_LOAD of
// the algorithm's key as a session key (PKCS#8, flags DIGITALSIGNATURE
// only), then one PKEY_SIGN at a time of the DER DigestInfo of
// SHA-256("Hamsters'R'Us"), sig_max 1024, and PKEY_DELETE when the client is
// done. The key is made in this process with crypto/ (as the script carries
// fixed keys); every signature is checked against its public key with
// crypto::Verify unless verification is off.
//
// Algorithms: RSA of any size the token takes, and ECDSA on P-256, P-384 and
// P-521 (libhal's curves), whose input is the raw digest (SHA-256, -384,
// -512 by curve) and whose signatures are raw r||s.
//
// Without a socket the backend starts its own signetd with its Cryptech
// listener on a throw-away token (local_daemon.h).
// Thread contract: Prepare on the owner's thread; the factory's operations
// each on their own client thread.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "bench/local_daemon.h"
#include "bench/signer_backend.h"

namespace signet::bench {

// CryptechSignInput: what a client signs for `algo`: `input` is what
// PKEY_SIGN carries (the DER DigestInfo of the digest for RSA, the digest
// itself for ECDSA) and `digest` the hash of "Hamsters'R'Us" under the
// algorithm's hash (SHA-256 for RSA), which crypto::Verify checks.
struct CryptechSignInput {
  Bytes input;
  Bytes digest;
};
[[nodiscard]] Result<CryptechSignInput> MakeCryptechSignInput(const SignAlgorithm& algo);

struct CryptechBackendOptions {
  std::string socket;  // the Cryptech listener's socket; empty: start a signetd
  std::string pin;     // user PIN (required with socket)
  // warnings: where a failed PKEY_DELETE is reported (it happens after the
  // load, when no error can stop it any more); nullptr: nowhere.
  std::ostream* warnings = nullptr;
};

class CryptechBackend : public SignerBackend {
 public:
  // Create starts signetd when options.socket is empty, then connects and
  // logs in once, so a wrong socket or PIN fails before any key is made.
  // CKR_ARGUMENTS_BAD for a socket without PIN; otherwise
  // CryptechConnection's errors.
  [[nodiscard]] static Result<std::unique_ptr<CryptechBackend>> Create(
      CryptechBackendOptions options);
  ~CryptechBackend() override;

  std::string_view name() const override { return "cryptech"; }
  // Prepare makes the key of `algo`. CKR_MECHANISM_INVALID for an
  // algorithm libhal's RPC cannot sign with (Ed25519, other curves).
  Result<WorkerFactory> Prepare(const SignAlgorithm& algo, bool verify) override;

 private:
  explicit CryptechBackend(CryptechBackendOptions options);

  CryptechBackendOptions options_;
  std::unique_ptr<LocalDaemon> local_;
};

}  // namespace signet::bench
