// The per-file workload of `signet bench app`: seed 003's Tahoe-LAFS
// mutable-file life cycle, done through signetd by the client library.
//
//   create   = a new signing key pair (C_GenerateKeyPair, token objects:
//              the pool serves these when it holds the type) + SHA-256 of
//              the first version's root + a signature over it
//   upload   = AES-256-GCM encryption of the payload with the run's AES key
//              + SHA-256 of the ciphertext (the new root) + a signature
//   download = verification of that signature + SHA-256 of the ciphertext
//              checked against the root + decryption, checked against the
//              payload
//
// Every step is a daemon request. After the timed steps each file is also
// checked outside the timing: the upload signature is verified in the client
// with crypto::Verify against the public key read back from the token, so a
// wrong signature fails the run. The file's key pair is then destroyed.
// Thread contract: an AppSession belongs to one thread.
#pragma once

#include <memory>
#include <string>

#include "bench/sign_algorithms.h"
#include "bench/token_mechanisms.h"
#include "signet/client.hpp"

namespace signet::bench {

// FileTimes: milliseconds of each phase of one file.
struct FileTimes {
  double keygen_ms = 0;  // the GenerateKeyPair part of create
  double create_ms = 0;  // keygen + first-version hash + signature
  double upload_ms = 0;
  double download_ms = 0;
};

class AppSession {
 public:
  // Open connects to `socket`, logs in as user on the token labelled
  // `token_label` (empty: the first token) and makes the run's AES-256 key
  // (a session object). Connection, login and key errors as the client
  // library reports them; CKR_TOKEN_NOT_PRESENT without a matching token.
  [[nodiscard]] static Result<std::unique_ptr<AppSession>> Open(const std::string& socket,
                                                                const std::string& pin,
                                                                const std::string& token_label);
  ~AppSession();
  AppSession(const AppSession&) = delete;
  AppSession& operator=(const AppSession&) = delete;

  // RunFile runs one file's create/upload/download with a payload of
  // `payload_size` random bytes. Any daemon error fails it, as does a
  // signature the client-side check rejects or a decryption that does not
  // give the payload back (CKR_GENERAL_ERROR naming the step).
  [[nodiscard]] Result<FileTimes> RunFile(const SignAlgorithm& algo, std::size_t payload_size);

  // Stats reads the daemon's counters (pool sizes and takes).
  [[nodiscard]] Result<client::ServerStats> Stats();

 private:
  AppSession() = default;

  std::unique_ptr<client::Client> client_;
  client::Handle session_ = 0;
  client::Handle aes_key_ = 0;
  std::uint64_t files_ = 0;  // labels the files' keys
};

}  // namespace signet::bench
