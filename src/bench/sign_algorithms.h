// The signature algorithms the bench commands measure, declared once and
// read by speed, keygen, parallel, profile and app: the name users type
// (the KeySpec syntax of `signet keygen`: "rsa:2048", "ec:p256"), the
// labels the reports print, the key to generate, the signing parameters,
// and how many keys `bench keygen` makes by default. The fixed table is
// immutable; RSA of any other size is made on first use and kept for the
// process, under a lock: safe from any thread, pointers stay valid.
#pragma once

#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crypto/sign.h"
#include "signet/result.hpp"

namespace signet::bench {

struct SignAlgorithm {
  std::string id;             // "rsa2048": token key labels (TokenKeyLabel)
  std::string label;          // "rsa_2048": the parallel-signatures line
  std::string display;        // "RSA 2048": speed, keygen and app tables
  crypto::KeySpec spec;       // KeySpecName(spec), "rsa:2048", is its name
  crypto::SignParams params;  // RSA PKCS#1 v1.5 / ECDSA over a SHA-2 digest
  int keygen_count;           // default number of keys for `bench keygen`
};

// AllSignAlgorithms lists the fixed table, in table order (RSA 1024-4096,
// the ECDSA curves, Ed25519): what a bench runs when given no names.
std::span<const SignAlgorithm> AllSignAlgorithms();

// AlgorithmName is the name `algo` is typed as: KeySpecName of its spec.
std::string AlgorithmName(const SignAlgorithm& algo);

// FindSignAlgorithm accepts the KeySpec syntax ("rsa:2048", "rsa:2056",
// "ec:p256", "ec:p384", "ec:p521", "ec:secp256k1", "ec:secp192r1",
// "ed25519"; RSA of 512-4096 bits) and, any case, the bench's old
// spellings ("rsa2048", "rsa_2048", "ecp256", "ecdsa_p256" ...), for which
// it writes a one-line note with the new name to `notes` (when not null).
// CKR_ARGUMENTS_BAD naming the accepted names otherwise.
Result<const SignAlgorithm*> FindSignAlgorithm(std::string_view name,
                                               std::ostream* notes = nullptr);

// SplitNames splits each entry at commas and drops empty names
// ("rsa:2048,ec:p256" and "--algo rsa:2048 --algo ec:p256" select the same).
std::vector<std::string> SplitNames(const std::vector<std::string>& entries);

// SelectSignAlgorithms maps names (each may itself be comma-separated) to
// algorithms, notes as FindSignAlgorithm; an empty list selects the table.
Result<std::vector<const SignAlgorithm*>> SelectSignAlgorithms(
    const std::vector<std::string>& names, std::ostream* notes = nullptr);

// SignInputSize is the size of what Sign() receives for `algo`: the digest
// length when prehashed, else a 32-byte message.
std::size_t SignInputSize(const SignAlgorithm& algo);

// GenerateBenchKey makes a fresh key of `algo` in this process. RSA under
// 1024 bits is allowed here (benchmarks only: seed 003's 512- and 522-bit
// rows), never on a token.
Result<crypto::PrivateKey> GenerateBenchKey(const SignAlgorithm& algo);

}  // namespace signet::bench
