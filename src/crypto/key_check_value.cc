#include "crypto/key_check_value.h"

#include <openssl/evp.h>

#include <array>

#include "crypto/digest.h"
#include "crypto/ossl_error.h"
#include "crypto/ossl_ptr.h"

namespace signet::crypto {
namespace {

// AES-128/192/256-ECB, fetched once per process (docs/DESIGN.md "Crypto").
const std::array<EvpCipherPtr, 3>& EcbCiphers() {
  static const std::array<EvpCipherPtr, 3> ciphers = {
      EvpCipherPtr(EVP_CIPHER_fetch(nullptr, "AES-128-ECB", nullptr)),
      EvpCipherPtr(EVP_CIPHER_fetch(nullptr, "AES-192-ECB", nullptr)),
      EvpCipherPtr(EVP_CIPHER_fetch(nullptr, "AES-256-ECB", nullptr)),
  };
  return ciphers;
}

}  // namespace

Result<Bytes> AesKeyCheckValue(ByteView key) {
  if (key.size() != 16 && key.size() != 24 && key.size() != 32) {
    return MakeError(CKR_KEY_SIZE_RANGE, "AES keys are 16, 24 or 32 bytes");
  }
  const EVP_CIPHER* cipher = EcbCiphers()[(key.size() - 16) / 8].get();
  EvpCipherCtxPtr ctx(EVP_CIPHER_CTX_new());
  const std::array<std::uint8_t, 16> zero{};
  std::array<std::uint8_t, 32> block{};
  int len = 0;
  if (cipher == nullptr || ctx == nullptr ||
      EVP_EncryptInit_ex2(ctx.get(), cipher, key.data(), nullptr, nullptr) != 1 ||
      EVP_CIPHER_CTX_set_padding(ctx.get(), 0) != 1 ||
      EVP_EncryptUpdate(ctx.get(), block.data(), &len, zero.data(), zero.size()) != 1 ||
      len != 16) {
    return internal::OsslError(CKR_FUNCTION_FAILED, "AES-ECB check value");
  }
  return Bytes(block.begin(), block.begin() + 3);
}

Result<Bytes> GenericSecretCheckValue(ByteView key) {
  SIGNET_ASSIGN_OR_RETURN(Bytes hash, Digest(DigestAlg::kSha1, key));
  hash.resize(3);
  return hash;
}

}  // namespace signet::crypto
