#include "crypto/digest.h"

#include <array>

namespace signet::crypto {
namespace {

struct DigestEntry {
  DigestAlg alg;
  const char* openssl_name;
  std::string_view name;
  std::size_t size;
};

// One row per DigestAlg, in enum order.
constexpr std::array<DigestEntry, 6> kDigests = {{
    {DigestAlg::kNone, nullptr, "none", 0},
    {DigestAlg::kMd5, "MD5", "md5", 16},
    {DigestAlg::kSha1, "SHA1", "sha1", 20},
    {DigestAlg::kSha256, "SHA256", "sha256", 32},
    {DigestAlg::kSha384, "SHA384", "sha384", 48},
    {DigestAlg::kSha512, "SHA512", "sha512", 64},
}};

const DigestEntry& Entry(DigestAlg alg) { return kDigests[static_cast<std::size_t>(alg)]; }

// Fetched once: OpenSSL 3 pays a lock and a lookup for every implicit fetch.
struct FetchedDigests {
  std::array<EvpMdPtr, kDigests.size()> md;
  FetchedDigests() {
    for (const auto& entry : kDigests) {
      if (entry.openssl_name != nullptr) {
        md[static_cast<std::size_t>(entry.alg)].reset(
            EVP_MD_fetch(nullptr, entry.openssl_name, nullptr));
      }
    }
  }
};

}  // namespace

std::size_t DigestSize(DigestAlg alg) { return Entry(alg).size; }

std::string_view DigestName(DigestAlg alg) { return Entry(alg).name; }

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
