#include "daemon/cryptech_hash.h"

#include <openssl/core_names.h>
#include <openssl/params.h>

#include <string>

namespace signet::daemon {
namespace {

using proto::hal::Digest;

// DER algorithm identifiers: SEQUENCE { OID, NULL }. SHA-1 is 1.3.14.3.2.26;
// the SHA-2 family is 2.16.840.1.101.3.4.2.N (RFC 8017 appendix B.1).
constexpr std::uint8_t kSha1Id[] = {0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e,
                                    0x03, 0x02, 0x1a, 0x05, 0x00};
#define SIGNET_SHA2_ID(n) \
  { 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, n, 0x05, 0x00 }
constexpr std::uint8_t kSha256Id[] = SIGNET_SHA2_ID(0x01);
constexpr std::uint8_t kSha384Id[] = SIGNET_SHA2_ID(0x02);
constexpr std::uint8_t kSha512Id[] = SIGNET_SHA2_ID(0x03);
constexpr std::uint8_t kSha224Id[] = SIGNET_SHA2_ID(0x04);
constexpr std::uint8_t kSha512_224Id[] = SIGNET_SHA2_ID(0x05);
constexpr std::uint8_t kSha512_256Id[] = SIGNET_SHA2_ID(0x06);
#undef SIGNET_SHA2_ID

const CryptechDigest kDigests[] = {
    {Digest::kSha1, "SHA1", 20, kSha1Id},
    {Digest::kSha224, "SHA2-224", 28, kSha224Id},
    {Digest::kSha256, "SHA2-256", 32, kSha256Id},
    {Digest::kSha512_224, "SHA2-512/224", 28, kSha512_224Id},
    {Digest::kSha512_256, "SHA2-512/256", 32, kSha512_256Id},
    {Digest::kSha384, "SHA2-384", 48, kSha384Id},
    {Digest::kSha512, "SHA2-512", 64, kSha512Id},
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
    EVP_MD* md = EVP_MD_fetch(nullptr, digest.openssl_name, nullptr);
    bool ok =
        hash->md_ != nullptr && md != nullptr && EVP_DigestInit_ex(hash->md_, md, nullptr) == 1;
    EVP_MD_free(md);
    if (!ok) return OpensslFailed("digest init");
    return hash;
  }
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  hash->mac_ = mac != nullptr ? EVP_MAC_CTX_new(mac) : nullptr;
  EVP_MAC_free(mac);
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(
                             OSSL_MAC_PARAM_DIGEST, const_cast<char*>(digest.openssl_name), 0),
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
