// Message digests (SHA-1, SHA-224/256/384/512, plus MD5 for benchmarks
// only). EVP_MD objects are fetched once per process; every function here is
// safe to call from any thread.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include "base/mechanism_table.h"
#include "base/secure_bytes.h"
#include "crypto/multi_part.h"
#include "crypto/ossl_ptr.h"
#include "signet/result.hpp"

namespace signet::crypto {

// DigestAlg and each hash's facts (size, names, DigestInfo prefix) are in
// base/mechanism_table.h; this binds them to OpenSSL.
using signet::DigestAlg;

// DigestSize returns the output length in bytes (0 for kNone).
std::size_t DigestSize(DigestAlg alg);

// DigestName returns "sha256" etc. ("none" for kNone).
std::string_view DigestName(DigestAlg alg);

// FetchedDigest returns the process-wide EVP_MD for `alg`, fetched once;
// nullptr for kNone. The pointer lives as long as the process.
const EVP_MD* FetchedDigest(DigestAlg alg);

// Digest hashes `data` in one call.
Result<Bytes> Digest(DigestAlg alg, ByteView data);

// StartDigest begins a multi-part Digest: Update releases nothing, Finish
// returns the digest.
Result<std::unique_ptr<MultiPart>> StartDigest(DigestAlg alg);

}  // namespace signet::crypto
