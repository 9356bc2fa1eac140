// Known-answer self-tests run once at start-up, before a process serves or
// stores anything: RFC 8032 (Ed25519), RFC 5649 (AES-KWP), NIST vectors for
// SHA, AES-GCM, and ECDSA/RSA signature verification. Vectors live in
// crypto/self_test_vectors.h. Thread-safe; runs its checks only once.
#pragma once

#include "signet/result.hpp"

namespace signet::crypto {

// RunSelfTests returns OK when every known answer matches, otherwise an error
// (CKR_FUNCTION_FAILED) naming the first failing test. Callers refuse to start.
Status RunSelfTests();

}  // namespace signet::crypto
