#include "crypto/key_agreement.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>

#include <string>

#include "crypto/digest.h"
#include "crypto/ossl_error.h"
#include "crypto/ossl_ptr.h"

namespace signet::crypto {
namespace {

using internal::OsslError;

// FetchedX963: the KDF, fetched once per process (docs/DESIGN.md "Crypto").
const EVP_KDF* FetchedX963() {
  static const EvpKdfPtr kdf{EVP_KDF_fetch(nullptr, "X963KDF", nullptr)};
  return kdf.get();
}

}  // namespace

Result<SecureBytes> EcdhSharedSecret(const PrivateKey& own, const PublicKey& peer, bool cofactor) {
  const bool montgomery = IsMontgomery(own.spec().type);
  if (!IsEc(own.spec().type) && !montgomery) {
    return MakeError(CKR_KEY_TYPE_INCONSISTENT, "ECDH needs an EC, X25519 or X448 private key");
  }
  if (peer.spec().type != own.spec().type) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID,
                     "the other party's public key is on another curve");
  }
  EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, own.get0_pkey(), nullptr));
  if (!ctx) return MakeError(CKR_HOST_MEMORY, "EVP_PKEY_CTX_new_from_pkey failed");
  if (EVP_PKEY_derive_init(ctx.get()) != 1) {
    return OsslError(CKR_FUNCTION_FAILED, "EVP_PKEY_derive_init");
  }
  // X25519 and X448 clear the cofactor in the scalar itself (RFC 7748).
  if (cofactor && !montgomery && EVP_PKEY_CTX_set_ecdh_cofactor_mode(ctx.get(), 1) != 1) {
    return OsslError(CKR_FUNCTION_FAILED, "EVP_PKEY_CTX_set_ecdh_cofactor_mode");
  }
  // The peer key was checked on the curve when it was parsed
  // (PublicKey::FromEcPoint); OpenSSL checks the result is not infinity,
  // and for X25519 / X448 that it is not all zero (a small-order point).
  if (EVP_PKEY_derive_set_peer_ex(ctx.get(), peer.get0_pkey(), 1) != 1) {
    return OsslError(CKR_MECHANISM_PARAM_INVALID, "the other party's public key");
  }
  std::size_t len = 0;
  if (EVP_PKEY_derive(ctx.get(), nullptr, &len) != 1) {
    return OsslError(CKR_FUNCTION_FAILED, "EVP_PKEY_derive");
  }
  SecureBytes z(len);
  if (EVP_PKEY_derive(ctx.get(), z.data(), &len) != 1) {
    return OsslError(CKR_MECHANISM_PARAM_INVALID, "ECDH");
  }
  z.resize(len);
  return z;
}

Result<SecureBytes> X963Kdf(DigestAlg digest, ByteView z, ByteView shared_info,
                            std::size_t length) {
  if (digest == DigestAlg::kNone || digest == DigestAlg::kMd5) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "X9.63 KDF needs a SHA hash");
  }
  if (length == 0) return MakeError(CKR_KEY_SIZE_RANGE, "X9.63 KDF: zero-length key");
  EvpKdfCtxPtr ctx(EVP_KDF_CTX_new(const_cast<EVP_KDF*>(FetchedX963())));
  if (!ctx) return MakeError(CKR_HOST_MEMORY, "EVP_KDF_CTX_new failed");
  std::string md(FactsOf(digest).openssl_name);
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, md.data(), 0),
                         OSSL_PARAM_construct_octet_string(
                             OSSL_KDF_PARAM_KEY, const_cast<std::uint8_t*>(z.data()), z.size()),
                         OSSL_PARAM_END, OSSL_PARAM_END};
  if (!shared_info.empty()) {
    params[2] = OSSL_PARAM_construct_octet_string(
        OSSL_KDF_PARAM_INFO, const_cast<std::uint8_t*>(shared_info.data()), shared_info.size());
  }
  SecureBytes out(length);
  if (EVP_KDF_derive(ctx.get(), out.data(), out.size(), params) != 1) {
    return OsslError(CKR_FUNCTION_FAILED, "X9.63 KDF");
  }
  return out;
}

}  // namespace signet::crypto
