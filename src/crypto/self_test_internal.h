// Internal to crypto/ (and its tests): the vector shapes the start-up
// self-tests read and one check function per shape. Tests call the checks
// with deliberately corrupted vectors to prove a wrong answer is caught.
// All functions are stateless and safe from any thread.
#pragma once

#include <span>
#include <string_view>

#include "crypto/digest.h"
#include "crypto/sign.h"
#include "signet/result.hpp"

namespace signet::crypto::internal {

// Every *_hex field is lowercase or uppercase hex with no separators.

struct DigestVector {
  std::string_view name;
  DigestAlg alg;
  std::string_view message;  // ASCII text
  std::string_view digest_hex;
};

struct GcmVector {
  std::string_view name;
  std::string_view key_hex, iv_hex, aad_hex, plaintext_hex, ciphertext_hex, tag_hex;
};

struct KeyWrapVector {
  std::string_view name;
  std::string_view kek_hex, key_hex, wrapped_hex;
};

struct Ed25519Vector {
  std::string_view name;
  std::string_view seed_hex, public_hex, message_hex, signature_hex;
};

// SignatureVector: a signature made by an independent signer, checked with
// Verify only (no private key needed).
struct SignatureVector {
  std::string_view name;
  SignScheme scheme;
  DigestAlg digest;
  std::string_view spki_hex, message, signature_hex;  // message is ASCII text
};

// Check* run one known-answer test. Each returns OK when our code reproduces
// the vector (and, for signatures, rejects it after one bit is flipped);
// otherwise CKR_FUNCTION_FAILED with a message starting "self-test <name>".
Status CheckDigest(const DigestVector& v);
Status CheckGcm(const GcmVector& v);
Status CheckKeyWrap(const KeyWrapVector& v);
Status CheckEd25519(const Ed25519Vector& v);
Status CheckSignature(const SignatureVector& v);

// RunAllKnownAnswerTests runs every vector in self_test_vectors.h, without
// the run-once latch of RunSelfTests.
Status RunAllKnownAnswerTests();

}  // namespace signet::crypto::internal
