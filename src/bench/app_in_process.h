// The per-file workload of `signet bench app` done in the bench's own
// process, for the sizes no token holds: RSA under 1024 bits, which seed 003
// measured (512 and 522 bits) to see how much of a file's creation is not
// key generation. The steps are app_workload.h's, one for one, with crypto/
// in place of each daemon request:
//
//   create   = PrivateKey::Generate (RSA below 1024 bits allowed here) +
//              SHA-256 of the first version's root + a signature over it
//   upload   = AES-256-GCM encryption of the payload + SHA-256 of the
//              ciphertext + a signature
//   download = verification + SHA-256 of the ciphertext checked against the
//              root + decryption checked against the payload
//
// The signature is the token's (token_mechanisms.h: the same mechanism and
// parameters), so only the round trips and the daemon's bookkeeping are
// missing; a row of this kind is labelled "in-process" and compares with
// another in-process row, not with a daemon row.
// Thread contract: an InProcessFiles belongs to one thread.
#pragma once

#include "base/secure_bytes.h"
#include "bench/app_workload.h"

namespace signet::bench {

class InProcessFiles {
 public:
  // Create makes the run's AES-256 key (the daemon rows' session key).
  [[nodiscard]] static Result<InProcessFiles> Create();

  // RunFile runs one file's create/upload/download with `payload_size`
  // random bytes. A signature that does not verify or a decryption that
  // does not give the payload back fails it (CKR_GENERAL_ERROR naming the
  // step), like AppSession::RunFile.
  [[nodiscard]] Result<FileTimes> RunFile(const SignAlgorithm& algo, std::size_t payload_size);

 private:
  explicit InProcessFiles(SecureBytes aes_key) : aes_key_(std::move(aes_key)) {}
  SecureBytes aes_key_;
};

}  // namespace signet::bench
