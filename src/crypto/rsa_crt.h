// RSA signatures split into their two CRT half-exponentiations, so a
// scheduler can run the halves on two idle cores and cut one signature's
// latency nearly in half: the software twin of the seeds' HSM, which gave each
// signature two ModExp cores.
//
// This is the one file that does raw big-number RSA work (docs/STYLE.md
// "OpenSSL and secrets"); it keeps blinding on (a random factor, squared
// after each use and redrawn every 32 uses, as OpenSSL's own RSA blinding
// does) and checks every signature with the public exponent before it is
// released, so a fault in either half can never leak a prime.
//
// Thread contract: an RsaCrtKey is shared by all threads (its only mutable
// part, the spare blinding factors, is behind a mutex). A
// SplitRsaSignature is driven by one scheduler: Start on any thread, the two
// ComputeHalf calls on any two threads (concurrently), Finish after both
// returned.
#pragma once

#include <memory>

#include "crypto/keys.h"
#include "crypto/sign.h"

namespace signet::crypto {

class RsaCrtKey;

class SplitRsaSignature {
 public:
  // Start encodes `input` per `params` (PKCS#1 v1.5 or PSS; RSA schemes only)
  // and blinds it. Errors as crypto::Sign.
  static Result<std::unique_ptr<SplitRsaSignature>> Start(std::shared_ptr<const RsaCrtKey> key,
                                                          const SignParams& params,
                                                          ByteView input);
  ~SplitRsaSignature();

  // ComputeHalf runs the exponentiation modulo p (half 0) or q (half 1).
  // REQUIRES: each half is computed exactly once, before Finish.
  void ComputeHalf(int half);

  // Finish recombines the halves, unblinds, checks the signature against the
  // public key and returns it. CKR_FUNCTION_FAILED when a half failed or the
  // check did not hold (the faulty result is discarded).
  Result<Bytes> Finish();

 private:
  struct State;
  explicit SplitRsaSignature(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

class RsaCrtKey {
 public:
  // Create extracts the CRT components of an RSA private key and prepares
  // Montgomery contexts once. CKR_KEY_TYPE_INCONSISTENT for non-RSA keys.
  static Result<std::shared_ptr<const RsaCrtKey>> Create(const PrivateKey& key);
  ~RsaCrtKey();

  struct Components;
  const Components& components() const { return *components_; }
  const PrivateKey& key() const { return key_; }

 private:
  RsaCrtKey(std::unique_ptr<Components> components, PrivateKey key);
  std::unique_ptr<Components> components_;
  PrivateKey key_;  // keeps the EVP_PKEY (used for PSS encoding) alive
};

}  // namespace signet::crypto
