#include "ec_verify.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
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

}  // namespace signet::e2e
