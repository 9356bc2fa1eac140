// The PKCS#11 backend's operations besides signing (bench_operations.h),
// through any module: the key is found by its label or generated on the
// token once ("signet-bench-<id>"), and every client thread opens its own
// session and runs the operation's C_* calls, one operation per load index:
//   kEncrypt  C_EncryptInit + C_Encrypt (AES-GCM with a 96-bit IV, AES-CBC
//             with a 16-byte IV; each holds the operation's index)
//   kMac      C_SignInit + C_Sign
//   kDecrypt  C_DecryptInit + C_Decrypt of one OAEP (SHA-1, MGF1-SHA-1) ciphertext
//             made once with the public key
//   kDerive   C_DeriveKey (CKD_NULL, a 32-byte generic secret session key)
//             + C_DestroyObject, against a second token key pair's point
// Thread contract: PrepareTokenOperation on the owner's thread; the
// operations on the client threads, each with its own session.
#pragma once

#include <memory>

#include "bench/bench_operations.h"
#include "bench/load_generator.h"
#include "bench/pkcs11_session.h"

namespace signet::bench {

// PrepareTokenOperation readies `op` on the module's token through the
// control session and returns the factory of each client's Operation.
[[nodiscard]] Result<WorkerFactory> PrepareTokenOperation(std::shared_ptr<const Module> module,
                                                          Session& control,
                                                          const BenchOperation& op);

}  // namespace signet::bench
