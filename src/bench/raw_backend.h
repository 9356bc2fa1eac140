// MakeRawBackend: `bench parallel --raw`. Each client thread calls
// crypto::Sign directly with one key generated in-process per algorithm,
// and verifies every signature with crypto::Verify unless told not to.
// It is the baseline the daemon's throughput is compared against, and it
// signs with OpenSSL's own code (crypto::SignEngine::kOpenssl): for
// secp256k1, which the daemon signs through libsecp256k1, the daemon/raw
// ratio compares the two libraries.
#pragma once

#include <memory>

#include "bench/signer_backend.h"

namespace signet::bench {

// MakeRawBackend returns a new raw backend; the caller owns it.
std::unique_ptr<SignerBackend> MakeRawBackend();

}  // namespace signet::bench
