#include "crypto/digest.h"

#include <array>
#include <utility>

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

namespace {

class DigestStream final : public MultiPart {
 public:
  DigestStream(EvpMdCtxPtr ctx, std::size_t size) : ctx_(std::move(ctx)), size_(size) {}

  Result<SecureBytes> Update(ByteView part) override {
    if (EVP_DigestUpdate(ctx_.get(), part.data(), part.size()) != 1) {
      return MakeError(CKR_FUNCTION_FAILED, "EVP_DigestUpdate failed");
    }
    return SecureBytes{};
  }

  Result<SecureBytes> Finish() override {
    SecureBytes out(size_);
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(ctx_.get(), out.data(), &len) != 1 || len != size_) {
      return MakeError(CKR_FUNCTION_FAILED, "EVP_DigestFinal_ex failed");
    }
    return out;
  }

 private:
  EvpMdCtxPtr ctx_;
  const std::size_t size_;
};

}  // namespace

Result<std::unique_ptr<MultiPart>> StartDigest(DigestAlg alg) {
  const EVP_MD* md = FetchedDigest(alg);
  if (md == nullptr) return MakeError(CKR_MECHANISM_INVALID, "digest algorithm unavailable");
  EvpMdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex2(ctx.get(), md, nullptr) != 1) {
    return MakeError(CKR_FUNCTION_FAILED, "EVP_DigestInit_ex2 failed");
  }
  return std::unique_ptr<MultiPart>(new DigestStream(std::move(ctx), DigestSize(alg)));
}

}  // namespace signet::crypto
