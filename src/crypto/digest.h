// Message digests (SHA-1/SHA-256/SHA-384/SHA-512, plus MD5 for benchmarks
// only). EVP_MD objects are fetched once per process; every function here is
// safe to call from any thread.
#pragma once

#include <cstddef>
#include <string_view>

#include "crypto/ossl_ptr.h"
#include "base/secure_bytes.h"
#include "signet/result.hpp"

namespace signet::crypto {

enum class DigestAlg { kNone, kMd5, kSha1, kSha256, kSha384, kSha512 };

// DigestSize returns the output length in bytes (0 for kNone).
std::size_t DigestSize(DigestAlg alg);

// DigestName returns "sha256" etc. ("none" for kNone).
std::string_view DigestName(DigestAlg alg);

// FetchedDigest returns the process-wide EVP_MD for `alg`, fetched once;
// nullptr for kNone. The pointer lives as long as the process.
const EVP_MD* FetchedDigest(DigestAlg alg);

// Digest hashes `data` in one call.
Result<Bytes> Digest(DigestAlg alg, ByteView data);

}  // namespace signet::crypto
