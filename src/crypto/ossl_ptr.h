// The one place that names each OpenSSL *_free: unique_ptr aliases for every
// OpenSSL type signet holds. Thread contract: that of the wrapped object.
#pragma once

#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/x509.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/decoder.h>
#include <openssl/encoder.h>
#include <openssl/ec.h>
#include <openssl/param_build.h>
#include <openssl/params.h>

#include <memory>

namespace signet::crypto {

template <auto F>
struct Deleter {
  template <typename T>
  void operator()(T* p) const { F(p); }
};

using EvpPkeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using EvpPkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, Deleter<EVP_PKEY_CTX_free>>;
using EvpMdCtxPtr = std::unique_ptr<EVP_MD_CTX, Deleter<EVP_MD_CTX_free>>;
using EvpMdPtr = std::unique_ptr<EVP_MD, Deleter<EVP_MD_free>>;
using EvpCipherPtr = std::unique_ptr<EVP_CIPHER, Deleter<EVP_CIPHER_free>>;
using EvpCipherCtxPtr = std::unique_ptr<EVP_CIPHER_CTX, Deleter<EVP_CIPHER_CTX_free>>;
using EvpKdfPtr = std::unique_ptr<EVP_KDF, Deleter<EVP_KDF_free>>;
using EvpKdfCtxPtr = std::unique_ptr<EVP_KDF_CTX, Deleter<EVP_KDF_CTX_free>>;
using EvpMacPtr = std::unique_ptr<EVP_MAC, Deleter<EVP_MAC_free>>;
using EvpMacCtxPtr = std::unique_ptr<EVP_MAC_CTX, Deleter<EVP_MAC_CTX_free>>;
using BignumPtr = std::unique_ptr<BIGNUM, Deleter<BN_clear_free>>;
using BnCtxPtr = std::unique_ptr<BN_CTX, Deleter<BN_CTX_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO_free_all>>;
using EcdsaSigPtr = std::unique_ptr<ECDSA_SIG, Deleter<ECDSA_SIG_free>>;
using OsslParamBldPtr = std::unique_ptr<OSSL_PARAM_BLD, Deleter<OSSL_PARAM_BLD_free>>;
using OsslParamPtr = std::unique_ptr<OSSL_PARAM, Deleter<OSSL_PARAM_free>>;
using OsslEncoderCtxPtr = std::unique_ptr<OSSL_ENCODER_CTX, Deleter<OSSL_ENCODER_CTX_free>>;
using OsslDecoderCtxPtr = std::unique_ptr<OSSL_DECODER_CTX, Deleter<OSSL_DECODER_CTX_free>>;

// OsslFree releases memory OpenSSL allocated for us (i2d_* output); it holds
// public data only (secret bytes go to SecureBytes, never here).
inline void OsslFree(unsigned char* p) { OPENSSL_free(p); }
using OsslBytesPtr = std::unique_ptr<unsigned char, Deleter<OsslFree>>;

}  // namespace signet::crypto
