#include "crypto/rsa_aes_wrap.h"

#include <openssl/evp.h>

#include "crypto/symmetric.h"

namespace signet::crypto {
namespace {

// kUnwrapFailed: the one message of every unwrap failure after the length
// checks (rsa_encrypt.h's for a padding failure).
constexpr const char* kUnwrapFailed = "RSA decryption failed";

bool IsAesKeySize(std::size_t bytes) { return bytes == 16 || bytes == 24 || bytes == 32; }

}  // namespace

Result<Bytes> RsaAesKeyWrap(const PublicKey& key, const RsaCipherParams& oaep,
                            std::size_t aes_key_bytes, ByteView key_value) {
  if (oaep.padding == RsaPadding::kNone || !IsAesKeySize(aes_key_bytes)) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID,
                     "an RSA-AES key wrap needs OAEP (or PKCS#1 v1.5) and a 128-, "
                     "192- or 256-bit AES key");
  }
  if (key_value.empty()) return MakeError(CKR_KEY_SIZE_RANGE, "nothing to wrap");
  SIGNET_ASSIGN_OR_RETURN(SecureBytes aes_key, RandomBytes(aes_key_bytes));
  Result<Bytes> head = RsaEncrypt(key, oaep, aes_key);
  if (!head.ok()) {
    if (head.error().code == CKR_DATA_LEN_RANGE) {
      return MakeError(CKR_WRAPPING_KEY_SIZE_RANGE,
                       "the RSA key is too short for this AES key and OAEP hash");
    }
    return std::move(head).error();
  }
  SIGNET_ASSIGN_OR_RETURN(Bytes tail, AesKeyWrapPad(aes_key, key_value));
  head->insert(head->end(), tail.begin(), tail.end());
  return head;
}

Result<SecureBytes> RsaAesKeyUnwrap(const PrivateKey& key, const RsaCipherParams& oaep,
                                    std::size_t aes_key_bytes, ByteView wrapped) {
  if (oaep.padding == RsaPadding::kNone || !IsAesKeySize(aes_key_bytes)) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID,
                     "an RSA-AES key wrap needs OAEP (or PKCS#1 v1.5) and a 128-, "
                     "192- or 256-bit AES key");
  }
  const int bits = EVP_PKEY_get_bits(key.get0_pkey());
  if (EVP_PKEY_get_base_id(key.get0_pkey()) != EVP_PKEY_RSA || bits <= 0) {
    return MakeError(CKR_KEY_TYPE_INCONSISTENT, "not an RSA key");
  }
  const std::size_t k = (static_cast<std::size_t>(bits) + 7) / 8;
  // RFC 5649 output: at least 16 bytes, a multiple of 8.
  if (wrapped.size() < k + 16 || (wrapped.size() - k) % 8 != 0) {
    return MakeError(CKR_WRAPPED_KEY_LEN_RANGE,
                     "an RSA-AES wrapped key is the modulus length plus an RFC 5649 wrap");
  }
  Result<SecureBytes> aes_key = RsaDecrypt(key, oaep, wrapped.first(k));
  if (!aes_key.ok() || aes_key->size() != aes_key_bytes) {
    return MakeError(CKR_WRAPPED_KEY_INVALID, kUnwrapFailed);
  }
  Result<SecureBytes> plain = AesKeyUnwrapPad(*aes_key, wrapped.subspan(k));
  if (!plain.ok()) return MakeError(CKR_WRAPPED_KEY_INVALID, kUnwrapFailed);
  return plain;
}

}  // namespace signet::crypto
