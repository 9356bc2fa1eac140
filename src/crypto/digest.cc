#include "crypto/digest.h"

#include <array>

namespace signet::crypto {
namespace {

// Fetched once: OpenSSL 3 pays a lock and a lookup for every implicit fetch.
struct FetchedDigests {
  std::array<EvpMdPtr, std::size(kDigestTable)> md;
  FetchedDigests() {
    for (const DigestFacts& facts : kDigestTable) {
      if (!facts.openssl_name.empty()) {
        // openssl_name views a string literal: NUL-terminated.
        md[static_cast<std::size_t>(facts.alg)].reset(
            EVP_MD_fetch(nullptr, facts.openssl_name.data(), nullptr));
      }
    }
  }
};

}  // namespace

std::size_t DigestSize(DigestAlg alg) { return FactsOf(alg).size; }

std::string_view DigestName(DigestAlg alg) { return FactsOf(alg).name; }

const EVP_MD* FetchedDigest(DigestAlg alg) {
  static const FetchedDigests fetched;
  return fetched.md[static_cast<std::size_t>(alg)].get();
}

Result<Bytes> Digest(DigestAlg alg, ByteView data) {
  const EVP_MD* md = FetchedDigest(alg);
  if (md == nullptr) return MakeError(CKR_MECHANISM_INVALID, "digest algorithm unavailable");
  Bytes out(DigestSize(alg));
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), out.data(), &len, md, nullptr) != 1 ||
      len != out.size()) {
    return MakeError(CKR_FUNCTION_FAILED, "EVP_Digest failed");
  }
  return out;
}

}  // namespace signet::crypto
