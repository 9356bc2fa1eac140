#include "bench/sign_algorithms.h"

#include <algorithm>
#include <array>
#include <cctype>

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
constexpr crypto::SignParams kEd = {SignScheme::kEddsa, DigestAlg::kNone};

// Key generation for large RSA keys takes seconds each; fewer keys keep the
// default run short while still giving a spread.
const std::array<SignAlgorithm, 8> kAlgorithms = {{
    {"rsa1024", "rsa_1024", "RSA 1024", {KeyType::kRsa, 1024}, kRsa, 10},
    {"rsa2048", "rsa_2048", "RSA 2048", {KeyType::kRsa, 2048}, kRsa, 10},
    {"rsa3072", "rsa_3072", "RSA 3072", {KeyType::kRsa, 3072}, kRsa, 4},
    {"rsa4096", "rsa_4096", "RSA 4096", {KeyType::kRsa, 4096}, kRsa, 2},
    {"ecp256", "ecdsa_p256", "ECDSA P-256", {KeyType::kEcP256, 0}, kEcdsa256, 100},
    {"ecp384", "ecdsa_p384", "ECDSA P-384", {KeyType::kEcP384, 0}, kEcdsa384, 100},
    {"secp256k1", "ecdsa_secp256k1", "ECDSA secp256k1", {KeyType::kEcSecp256k1, 0}, kEcdsa256, 100},
    {"ed25519", "ed25519", "Ed25519", {KeyType::kEd25519, 0}, kEd, 100},
}};

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::span<const SignAlgorithm> AllSignAlgorithms() { return kAlgorithms; }

Result<const SignAlgorithm*> FindSignAlgorithm(std::string_view name) {
  const std::string wanted = Lower(name);
  for (const auto& algo : kAlgorithms) {
    if (wanted == algo.id || wanted == algo.label || wanted == crypto::KeySpecName(algo.spec)) {
      return &algo;
    }
  }
  std::string known;
  for (const auto& algo : kAlgorithms) known += (known.empty() ? "" : ", ") + std::string(algo.id);
  return MakeError(CKR_ARGUMENTS_BAD,
                   "unknown algorithm '" + std::string(name) + "' (known: " + known + ")");
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
    const std::vector<std::string>& names) {
  std::vector<const SignAlgorithm*> out;
  for (const std::string& name : SplitNames(names)) {
    SIGNET_ASSIGN_OR_RETURN(const SignAlgorithm* algo, FindSignAlgorithm(name));
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

}  // namespace signet::bench
