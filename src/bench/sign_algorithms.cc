#include "bench/sign_algorithms.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <deque>
#include <mutex>

namespace signet::bench {
namespace {

using crypto::DigestAlg;
using crypto::KeyType;
using crypto::SignScheme;

constexpr crypto::SignParams Prehashed(SignScheme scheme, DigestAlg digest) {
  crypto::SignParams p;
  p.scheme = scheme;
  p.digest = digest;
  p.prehashed = true;
  return p;
}

constexpr crypto::SignParams kRsa = Prehashed(SignScheme::kRsaPkcs1, DigestAlg::kSha256);
constexpr crypto::SignParams kEcdsa256 = Prehashed(SignScheme::kEcdsa, DigestAlg::kSha256);
constexpr crypto::SignParams kEcdsa384 = Prehashed(SignScheme::kEcdsa, DigestAlg::kSha384);
constexpr crypto::SignParams kEcdsa512 = Prehashed(SignScheme::kEcdsa, DigestAlg::kSha512);
constexpr crypto::SignParams kEd = {SignScheme::kEddsa, DigestAlg::kNone};

// The RSA sizes a bench generates in-process (PrivateKey::Generate with
// allow_weak_rsa); tokens take 1024 and up.
constexpr int kMinRsaBits = 512;
constexpr int kMaxRsaBits = 4096;

// RsaKeygenCount: key generation for large RSA keys takes seconds each;
// fewer keys keep the default run short while still giving a spread.
int RsaKeygenCount(int bits) { return bits <= 2048 ? 10 : bits <= 3072 ? 4 : 2; }

SignAlgorithm Rsa(int bits) {
  const std::string n = std::to_string(bits);
  return {"rsa" + n, "rsa_" + n, "RSA " + n, {KeyType::kRsa, bits}, kRsa, RsaKeygenCount(bits)};
}

// The ids ("ecp256") and labels ("ecdsa_p256") were the bench's names before
// the KeySpec syntax; they stay accepted (with a note) and the labels stay
// in the parallel line, whose format the seeds fix.
const std::array<SignAlgorithm, 10> kAlgorithms = {{
    Rsa(1024),
    Rsa(2048),
    Rsa(3072),
    Rsa(4096),
    {"ecp256", "ecdsa_p256", "ECDSA P-256", {KeyType::kEcP256, 0}, kEcdsa256, 100},
    {"ecp384", "ecdsa_p384", "ECDSA P-384", {KeyType::kEcP384, 0}, kEcdsa384, 100},
    {"ecp521", "ecdsa_p521", "ECDSA P-521", {KeyType::kEcP521, 0}, kEcdsa512, 100},
    {"secp256k1", "ecdsa_secp256k1", "ECDSA secp256k1", {KeyType::kEcSecp256k1, 0}, kEcdsa256, 100},
    {"secp192r1", "ecdsa_secp192r1", "ECDSA secp192r1", {KeyType::kEcP192, 0}, kEcdsa256, 100},
    {"ed25519", "ed25519", "Ed25519", {KeyType::kEd25519, 0}, kEd, 100},
}};

// rsa_of_other_sizes: the RSA algorithms made on demand ("rsa:2056"); a deque
// so the pointers handed out stay valid as it grows.
std::mutex rsa_mutex;
std::deque<SignAlgorithm> rsa_of_other_sizes;

const SignAlgorithm* RsaAlgorithm(int bits) {
  for (const auto& algo : kAlgorithms) {
    if (algo.spec.type == KeyType::kRsa && algo.spec.rsa_bits == bits) return &algo;
  }
  std::lock_guard<std::mutex> lock(rsa_mutex);
  for (const auto& algo : rsa_of_other_sizes) {
    if (algo.spec.rsa_bits == bits) return &algo;
  }
  return &rsa_of_other_sizes.emplace_back(Rsa(bits));
}

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// OldRsaBits reads the old RSA spellings "rsa2056" and "rsa_2056"; 0 if
// `name` is neither.
int OldRsaBits(std::string_view name) {
  if (!name.starts_with("rsa")) return 0;
  name.remove_prefix(3);
  if (name.starts_with("_")) name.remove_prefix(1);
  int bits = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), bits);
  return ec == std::errc() && end == name.data() + name.size() && !name.empty() ? bits : 0;
}

Error Unknown(std::string_view name, const std::string& why) {
  std::string known;
  for (const auto& algo : kAlgorithms) known += (known.empty() ? "" : ", ") + AlgorithmName(algo);
  return MakeError(CKR_ARGUMENTS_BAD, "unknown algorithm '" + std::string(name) + "'" + why +
                                          " (known: " + known + ", rsa:BITS for " +
                                          std::to_string(kMinRsaBits) + "-" +
                                          std::to_string(kMaxRsaBits) + ")");
}

// FromSpec returns the algorithm of a parsed KeySpec.
Result<const SignAlgorithm*> FromSpec(std::string_view name, const crypto::KeySpec& spec) {
  if (spec.type == KeyType::kRsa) {
    if (spec.rsa_bits < kMinRsaBits || spec.rsa_bits > kMaxRsaBits) {
      return Unknown(name, ": RSA sizes are " + std::to_string(kMinRsaBits) + "-" +
                               std::to_string(kMaxRsaBits) + " bits");
    }
    return RsaAlgorithm(spec.rsa_bits);
  }
  for (const auto& algo : kAlgorithms) {
    if (algo.spec.type == spec.type) return &algo;
  }
  return Unknown(name, ": not a signature algorithm the benches measure");
}

}  // namespace

std::span<const SignAlgorithm> AllSignAlgorithms() { return kAlgorithms; }

std::string AlgorithmName(const SignAlgorithm& algo) { return crypto::KeySpecName(algo.spec); }

Result<const SignAlgorithm*> FindSignAlgorithm(std::string_view name, std::ostream* notes) {
  const std::string wanted = Lower(name);
  if (Result<crypto::KeySpec> spec = crypto::ParseKeySpec(wanted); spec.ok()) {
    return FromSpec(name, *spec);
  }
  const SignAlgorithm* found = nullptr;
  if (const int bits = OldRsaBits(wanted); bits > 0) {
    SIGNET_ASSIGN_OR_RETURN(found, FromSpec(name, {KeyType::kRsa, bits}));
  }
  for (const auto& algo : kAlgorithms) {
    if (found == nullptr && (wanted == algo.id || wanted == algo.label)) found = &algo;
  }
  if (found == nullptr) return Unknown(name, "");
  if (notes != nullptr) {
    *notes << "note: algorithm '" << name << "' is now spelled '" << AlgorithmName(*found) << "'\n";
  }
  return found;
}

std::vector<std::string> SplitNames(const std::vector<std::string>& entries) {
  std::vector<std::string> names;
  for (const auto& entry : entries) {
    std::size_t start = 0;
    while (start <= entry.size()) {
      const std::size_t comma = std::min(entry.find(',', start), entry.size());
      if (comma > start) names.push_back(entry.substr(start, comma - start));
      start = comma + 1;
    }
  }
  return names;
}

Result<std::vector<const SignAlgorithm*>> SelectSignAlgorithms(
    const std::vector<std::string>& names, std::ostream* notes) {
  std::vector<const SignAlgorithm*> out;
  for (const std::string& name : SplitNames(names)) {
    SIGNET_ASSIGN_OR_RETURN(const SignAlgorithm* algo, FindSignAlgorithm(name, notes));
    out.push_back(algo);
  }
  if (names.empty()) {
    for (const auto& algo : kAlgorithms) out.push_back(&algo);
  }
  return out;
}

std::size_t SignInputSize(const SignAlgorithm& algo) {
  return algo.params.prehashed ? crypto::DigestSize(algo.params.digest) : 32;
}

Result<crypto::PrivateKey> GenerateBenchKey(const SignAlgorithm& algo) {
  crypto::GenerateOptions options;
  options.allow_weak_rsa = algo.spec.type == KeyType::kRsa && algo.spec.rsa_bits < 1024;
  return crypto::PrivateKey::Generate(algo.spec, options);
}

}  // namespace signet::bench
