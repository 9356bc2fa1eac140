// `signet bench speed`: the pycryptopp tables of seed 002 for this machine.
//
//  - hashes and ciphers (MD5, SHA-1, SHA-256, SHA-512, AES-128-CTR,
//    AES-256-GCM, ChaCha20, and Salsa20/12 through libsodium) in MiB/s and
//    cycles/byte, per buffer size; each buffer is one message (a fresh
//    digest, or a fresh IV and for GCM a tag);
//  - sign and verify per algorithm (sign_algorithms.h) in ms/op and
//    megacycles/op, single-threaded, keys generated in-process, four rows
//    each (seed 002's "Sig", "Sig/pre", "Ver", "Ver/pre"):
//      "<algo> Sign"        the private key is read from its PKCS#8 DER into a
//                           fresh key object for every signature, so no
//                           per-key state survives between operations (RSA:
//                           Montgomery contexts and the blinding factor;
//                           EC: the group and key set-up; Ed25519: the
//                           public half derived from the private);
//      "<algo> Sign/pre"    one key object signs every time: that work is
//                           done once and reused, as a token's cached key
//                           does (docs/PERFORMANCE.md, seed 002 rows);
//      "<algo> Verify", "<algo> Verify/pre"  the same for the public key
//                           (a fresh parse of the SubjectPublicKeyInfo, or
//                           one object).
//    secp256k1, which crypto/ signs through libsecp256k1, has the same four
//    rows again through OpenSSL's generic code, "<algo> (OpenSSL) Sign" and
//    so on (crypto::SignEngine).
//    A progress bar runs on stderr when it is a terminal.
// Cycles are time-stamp-counter ticks (cycle_clock.h); the report's notes
// say so and give the counter's rate measured against steady_clock.
// Thread contract: runs on the calling thread.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "bench/report.h"
#include "signet/result.hpp"

namespace signet::bench {

struct SpeedOptions {
  // quick: a few milliseconds per measurement (tests, smoke runs); the
  // numbers are then rough.
  bool quick = false;
  // algorithms: sign/verify algorithms by name (see FindSignAlgorithm);
  // empty means all. Names may be comma-separated.
  std::vector<std::string> algorithms;
  // sizes: buffer sizes in bytes for hashes and ciphers; empty means
  // 64, 1024 and 16384.
  std::vector<std::size_t> sizes;
  bool skip_bulk = false;  // only the sign/verify table
  bool skip_sign = false;  // only the hash/cipher table
  bool progress = true;    // progress bar on stderr (only on a TTY anyway)
  std::string csv_path;    // also write CSV here ("-" = stdout instead of text)
  std::string json_path;   // also write JSON here ("-" = stdout instead of text)
  std::string chart_path;  // also draw the tables' bar charts here (SVG)
};

// MeasureSpeed runs the measurements and returns the report (notes, then
// the "hashes and ciphers" and "sign and verify" tables). Errors: an
// unknown algorithm name (CKR_ARGUMENTS_BAD) or a failing primitive.
[[nodiscard]] Result<Report> MeasureSpeed(const SpeedOptions& options);

// RunSpeed measures, prints the text tables to `out` (and CSV/JSON to the
// paths given) and returns a process exit code: 0 on success, 1 on a
// measurement or write error (reported on `err`).
int RunSpeed(const SpeedOptions& options, std::ostream& out, std::ostream& err);

}  // namespace signet::bench
