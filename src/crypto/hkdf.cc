#include "crypto/hkdf.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>

#include <string>

#include "crypto/ossl_error.h"
#include "crypto/ossl_ptr.h"

namespace signet::crypto {
namespace {

using internal::OsslError;

// FetchedHkdf: the KDF, fetched once per process (docs/DESIGN.md "Crypto").
const EVP_KDF* FetchedHkdf() {
  static const EvpKdfPtr kdf{EVP_KDF_fetch(nullptr, "HKDF", nullptr)};
  return kdf.get();
}

int ModeOf(HkdfStep step) {
  switch (step) {
    case HkdfStep::kExtract:
      return EVP_KDF_HKDF_MODE_EXTRACT_ONLY;
    case HkdfStep::kExpand:
      return EVP_KDF_HKDF_MODE_EXPAND_ONLY;
    case HkdfStep::kExtractAndExpand:
      break;
  }
  return EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND;
}

}  // namespace

Result<SecureBytes> Hkdf(HkdfStep step, DigestAlg digest, ByteView key, ByteView salt,
                         ByteView info, std::size_t length) {
  if (digest == DigestAlg::kNone || digest == DigestAlg::kMd5) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "HKDF needs a SHA hash");
  }
  const std::size_t hash_len = FactsOf(digest).size;
  if (step == HkdfStep::kExtract) {
    length = hash_len;
  } else if (length == 0 || length > 255 * hash_len) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID,
                     "HKDF output is 1 to 255 * " + std::to_string(hash_len) + " bytes");
  }
  if (info.size() > kMaxHkdfInfoBytes) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "HKDF info is at most 1024 bytes");
  }
  EvpKdfCtxPtr ctx(EVP_KDF_CTX_new(const_cast<EVP_KDF*>(FetchedHkdf())));
  if (!ctx) return MakeError(CKR_HOST_MEMORY, "EVP_KDF_CTX_new failed");
  std::string md(FactsOf(digest).openssl_name);
  int mode = ModeOf(step);
  OSSL_PARAM params[6];
  std::size_t n = 0;
  params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, md.data(), 0);
  params[n++] = OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode);
  params[n++] = OSSL_PARAM_construct_octet_string(
      OSSL_KDF_PARAM_KEY, const_cast<std::uint8_t*>(key.data()), key.size());
  // An absent salt and an empty one are the same: as many zero bytes as the hash is long.
  if (!salt.empty()) {
    params[n++] = OSSL_PARAM_construct_octet_string(
        OSSL_KDF_PARAM_SALT, const_cast<std::uint8_t*>(salt.data()), salt.size());
  }
  if (!info.empty()) {
    params[n++] = OSSL_PARAM_construct_octet_string(
        OSSL_KDF_PARAM_INFO, const_cast<std::uint8_t*>(info.data()), info.size());
  }
  params[n] = OSSL_PARAM_construct_end();
  SecureBytes out(length);
  if (EVP_KDF_derive(ctx.get(), out.data(), out.size(), params) != 1) {
    return OsslError(CKR_FUNCTION_FAILED, "HKDF");
  }
  return out;
}

}  // namespace signet::crypto
