// The operations of bench_operations.h (AES-GCM / AES-CBC encryption,
// HMAC, RSA OAEP decryption, ECDH / X25519 derivation) through the client
// library against signetd: `bench parallel --via daemon --algo aes-gcm-1k`
// and the others. The keys are token objects labelled
// "signet-bench-<id>", made once and reused, the same shapes the PKCS#11
// backend makes (pkcs11_operations.cc), so the two measure the same work.
// Thread contract: PrepareDaemonOperation on the owner's thread; each
// Operation it hands out on its own client thread, with its own connection.
#pragma once

#include <string>

#include "bench/bench_operations.h"
#include "bench/daemon_session.h"
#include "bench/load_generator.h"

namespace signet::bench {

// DaemonAccess: how each client reaches and logs in to the daemon.
struct DaemonAccess {
  std::string socket, pin, token_label;
};

// PrepareDaemonOperation readies `op`'s key on the token through `control`
// (and, for kDecrypt, a ciphertext; for kDerive, a peer public key) and
// returns the factory of each client's Operation, which checks what it
// gets (plaintext length, MAC and ciphertext sizes). Errors: the daemon's.
Result<WorkerFactory> PrepareDaemonOperation(const DaemonAccess& access, UserSession& control,
                                             const BenchOperation& op);

}  // namespace signet::bench
