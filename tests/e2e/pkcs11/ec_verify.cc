#include "ec_verify.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>

namespace signet::e2e {

bool VerifyEcdsaP256(const std::string& public_pem, const std::vector<std::uint8_t>& message,
                     const std::vector<std::uint8_t>& sig) {
  if (sig.size() != 64) return false;
  BIO* bio = BIO_new_mem_buf(public_pem.data(), static_cast<int>(public_pem.size()));
  EVP_PKEY* pkey = PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (pkey == nullptr) return false;
  ECDSA_SIG* ecdsa = ECDSA_SIG_new();
  ECDSA_SIG_set0(ecdsa, BN_bin2bn(sig.data(), 32, nullptr), BN_bin2bn(sig.data() + 32, 32, nullptr));
  unsigned char* der = nullptr;
  const int der_len = i2d_ECDSA_SIG(ecdsa, &der);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  const bool ok = der_len > 0 &&
                  EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, pkey) == 1 &&
                  EVP_DigestVerify(ctx, der, der_len, message.data(), message.size()) == 1;
  EVP_MD_CTX_free(ctx);
  OPENSSL_free(der);
  ECDSA_SIG_free(ecdsa);
  EVP_PKEY_free(pkey);
  return ok;
}

std::string P256PointToPem(const std::vector<std::uint8_t>& der_point) {
  if (der_point.size() != 67 || der_point[0] != 0x04 || der_point[1] != 65) return "";
  OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
  OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0);
  OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, der_point.data() + 2, 65);
  OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(bld);
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr);
  EVP_PKEY* pkey = nullptr;
  EVP_PKEY_fromdata_init(ctx);
  EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params);
  std::string pem;
  if (pkey != nullptr) {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PUBKEY(bio, pkey);
    char* data = nullptr;
    long len = BIO_get_mem_data(bio, &data);
    pem.assign(data, len);
    BIO_free(bio);
  }
  EVP_PKEY_free(pkey);
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  OSSL_PARAM_BLD_free(bld);
  return pem;
}

}  // namespace signet::e2e
