#include "daemon/cryptech_hash.h"

#include <openssl/core_names.h>
#include <openssl/params.h>

#include <string>

#include "base/mechanism_table.h"

namespace signet::daemon {
namespace {

using proto::hal::Digest;

// FromTable: a digest base/mechanism_table.h already describes. Its
// algorithm identifier is the one inside the table's DigestInfo prefix
// (SEQUENCE { algorithm identifier, OCTET STRING header }: two bytes of
// SEQUENCE header before it, two of OCTET STRING header after it).
constexpr CryptechDigest FromTable(Digest id, DigestAlg alg) {
  const DigestFacts& facts = FactsOf(alg);
  const ByteView info = facts.digest_info();
  return {id, facts.openssl_name, facts.size, info.subspan(2, info.size() - 4)};
}

// SHA-512/224 and SHA-512/256, which the mechanism table does not offer:
// 2.16.840.1.101.3.4.2.5 and .6 with NULL parameters (RFC 8017 appendix B.1).
constexpr std::uint8_t kSha512_224Id[] = {0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
                                          0x65, 0x03, 0x04, 0x02, 0x05, 0x05, 0x00};
constexpr std::uint8_t kSha512_256Id[] = {0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
                                          0x65, 0x03, 0x04, 0x02, 0x06, 0x05, 0x00};

const CryptechDigest kDigests[] = {
    FromTable(Digest::kSha1, DigestAlg::kSha1),
    FromTable(Digest::kSha224, DigestAlg::kSha224),
    FromTable(Digest::kSha256, DigestAlg::kSha256),
    {Digest::kSha512_224, "SHA2-512/224", 28, kSha512_224Id},
    {Digest::kSha512_256, "SHA2-512/256", 32, kSha512_256Id},
    FromTable(Digest::kSha384, DigestAlg::kSha384),
    FromTable(Digest::kSha512, DigestAlg::kSha512),
};

Error OpensslFailed(const char* what) {
  return MakeError(CKR_FUNCTION_FAILED, std::string("OpenSSL: ") + what + " failed");
}

}  // namespace

const CryptechDigest* FindCryptechDigest(std::uint32_t id) {
  for (const CryptechDigest& d : kDigests) {
    if (static_cast<std::uint32_t>(d.id) == id) return &d;
  }
  return nullptr;
}

Result<std::unique_ptr<CryptechHash>> CryptechHash::Start(const CryptechDigest& digest,
                                                          ByteView hmac_key) {
  std::unique_ptr<CryptechHash> hash(new CryptechHash(digest));
  if (hmac_key.empty()) {
    hash->md_ = EVP_MD_CTX_new();
    EVP_MD* md = EVP_MD_fetch(nullptr, std::string(digest.openssl_name).c_str(), nullptr);
    bool ok =
        hash->md_ != nullptr && md != nullptr && EVP_DigestInit_ex(hash->md_, md, nullptr) == 1;
    EVP_MD_free(md);
    if (!ok) return OpensslFailed("digest init");
    return hash;
  }
  std::string openssl_name(digest.openssl_name);
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  hash->mac_ = mac != nullptr ? EVP_MAC_CTX_new(mac) : nullptr;
  EVP_MAC_free(mac);
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, openssl_name.data(), 0),
      OSSL_PARAM_construct_end()};
  if (hash->mac_ == nullptr ||
      EVP_MAC_init(hash->mac_, hmac_key.data(), hmac_key.size(), params) != 1) {
    return OpensslFailed("HMAC init");
  }
  return hash;
}

CryptechHash::~CryptechHash() {
  EVP_MD_CTX_free(md_);
  EVP_MAC_CTX_free(mac_);  // wipes the key OpenSSL copied
}

Status CryptechHash::Update(ByteView data) {
  if (data.empty()) return OkStatus();
  bool ok = md_ != nullptr ? EVP_DigestUpdate(md_, data.data(), data.size()) == 1
                           : EVP_MAC_update(mac_, data.data(), data.size()) == 1;
  return ok ? OkStatus() : OpensslFailed("hash update");
}

Result<SecureBytes> CryptechHash::Finish() {
  SecureBytes out(EVP_MAX_MD_SIZE);
  bool ok;
  if (md_ != nullptr) {
    unsigned int length = 0;
    ok = EVP_DigestFinal_ex(md_, out.data(), &length) == 1;
    out.resize(length);
  } else {
    std::size_t length = 0;
    ok = EVP_MAC_final(mac_, out.data(), &length, out.size()) == 1;
    out.resize(length);
  }
  if (!ok || out.size() != digest_.length) return OpensslFailed("hash final");
  return out;
}

}  // namespace signet::daemon
