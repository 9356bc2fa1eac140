// The signature algorithms the bench commands measure, declared once and
// read by speed, keygen and parallel: names in each of the three spellings
// users meet, the key to generate, the signing parameters, and how many keys
// `bench keygen` makes by default. Immutable after static initialisation:
// safe from any thread.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crypto/sign.h"
#include "signet/result.hpp"

namespace signet::bench {

struct SignAlgorithm {
  std::string_view id;        // "rsa2048": `bench parallel --algo`
  std::string_view label;     // "rsa_2048": the parallel-signatures line
  std::string_view display;   // "RSA 2048": speed and keygen tables
  crypto::KeySpec spec;       // its KeySpecName ("rsa:2048") is accepted too
  crypto::SignParams params;  // RSA PKCS#1 v1.5 / ECDSA over a SHA-2 digest
  int keygen_count;           // default number of keys for `bench keygen`
};

// AllSignAlgorithms lists every algorithm, in table order (RSA by size,
// ECDSA curves, Ed25519).
std::span<const SignAlgorithm> AllSignAlgorithms();

// FindSignAlgorithm accepts "rsa2048", "rsa_2048" or "rsa:2048" (any case);
// CKR_ARGUMENTS_BAD naming the accepted ids otherwise.
Result<const SignAlgorithm*> FindSignAlgorithm(std::string_view name);

// SplitNames splits each entry at commas and drops empty names
// ("rsa2048,ecp256" and "--algo rsa2048 --algo ecp256" select the same).
std::vector<std::string> SplitNames(const std::vector<std::string>& entries);

// SelectSignAlgorithms maps names (each may itself be comma-separated) to
// algorithms; an empty list selects all of them.
Result<std::vector<const SignAlgorithm*>> SelectSignAlgorithms(
    const std::vector<std::string>& names);

// SignInputSize is the size of what Sign() receives for `algo`: the digest
// length when prehashed, else a 32-byte message.
std::size_t SignInputSize(const SignAlgorithm& algo);

}  // namespace signet::bench
