#include "crypto/rsa_encrypt.h"

#include <openssl/core_names.h>
#include <openssl/rsa.h>

#include <string>

#include "crypto/digest.h"
#include "crypto/ossl_error.h"
#include "crypto/ossl_ptr.h"

namespace signet::crypto {
namespace {

using internal::OsslError;

// ModulusBytes: k, the modulus length in bytes; 0 for a key that is not RSA.
std::size_t ModulusBytes(EVP_PKEY* pkey) {
  if (EVP_PKEY_get_base_id(pkey) != EVP_PKEY_RSA) return 0;
  const int bits = EVP_PKEY_get_bits(pkey);
  return bits <= 0 ? 0 : (static_cast<std::size_t>(bits) + 7) / 8;
}

// MaxInput: the longest plaintext the scheme takes under a k-byte modulus
// (RFC 8017 sections 7.1.1 and 7.2.1); 0 when none fits.
std::size_t MaxInput(const RsaCipherParams& p, std::size_t k) {
  std::size_t overhead = 0;
  switch (p.padding) {
    case RsaPadding::kPkcs1:
      overhead = 11;
      break;
    case RsaPadding::kOaep:
      overhead = 2 * DigestSize(p.oaep_digest) + 2;
      break;
    case RsaPadding::kNone:
      break;
  }
  return k > overhead ? k - overhead : 0;
}

// NewCipherCtx makes an encrypt or decrypt context for `pkey` set up for `p`.
Result<EvpPkeyCtxPtr> NewCipherCtx(EVP_PKEY* pkey, const RsaCipherParams& p, bool encrypt) {
  EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, pkey, nullptr));
  if (!ctx) return OsslError(CKR_HOST_MEMORY, "EVP_PKEY_CTX_new_from_pkey failed");
  const int rc = encrypt ? EVP_PKEY_encrypt_init(ctx.get()) : EVP_PKEY_decrypt_init(ctx.get());
  if (rc <= 0) return OsslError(CKR_FUNCTION_FAILED, "RSA cipher context setup failed");
  OSSL_PARAM params[6];
  std::size_t n = 0;
  const char* mode = p.padding == RsaPadding::kPkcs1  ? OSSL_PKEY_RSA_PAD_MODE_PKCSV15
                     : p.padding == RsaPadding::kOaep ? OSSL_PKEY_RSA_PAD_MODE_OAEP
                                                      : OSSL_PKEY_RSA_PAD_MODE_NONE;
  params[n++] =
      OSSL_PARAM_construct_utf8_string(OSSL_ASYM_CIPHER_PARAM_PAD_MODE, const_cast<char*>(mode), 0);
  // OpenSSL 3.2 and later would answer a bad PKCS#1 v1.5 padding with a
  // synthetic plaintext (implicit rejection); PKCS#11 asks for
  // CKR_ENCRYPTED_DATA_INVALID, so it is off. OpenSSL 3.0 ignores the name.
  static unsigned int kNoImplicitRejection = 0;
  if (p.padding == RsaPadding::kPkcs1 && !encrypt) {
    params[n++] = OSSL_PARAM_construct_uint("implicit-rejection", &kNoImplicitRejection);
  }
  if (p.padding == RsaPadding::kOaep) {
    params[n++] = OSSL_PARAM_construct_utf8_string(
        OSSL_ASYM_CIPHER_PARAM_OAEP_DIGEST, const_cast<char*>(DigestName(p.oaep_digest).data()), 0);
    params[n++] = OSSL_PARAM_construct_utf8_string(
        OSSL_ASYM_CIPHER_PARAM_MGF1_DIGEST, const_cast<char*>(DigestName(p.mgf1_digest).data()), 0);
    if (!p.label.empty()) {
      // OpenSSL copies the label.
      params[n++] = OSSL_PARAM_construct_octet_string(OSSL_ASYM_CIPHER_PARAM_OAEP_LABEL,
                                                      const_cast<std::uint8_t*>(p.label.data()),
                                                      p.label.size());
    }
  }
  params[n] = OSSL_PARAM_construct_end();
  if (EVP_PKEY_CTX_set_params(ctx.get(), params) <= 0) {
    return OsslError(CKR_MECHANISM_PARAM_INVALID, "RSA cipher parameters refused");
  }
  return ctx;
}

// LeftPadded: `data` with zeros in front to `k` bytes (data.size() <= k).
Bytes LeftPadded(ByteView data, std::size_t k) {
  Bytes out(k - data.size(), 0);
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

}  // namespace

Result<Bytes> RsaEncrypt(const PublicKey& key, const RsaCipherParams& params, ByteView data) {
  const std::size_t k = ModulusBytes(key.get0_pkey());
  if (k == 0) return MakeError(CKR_KEY_TYPE_INCONSISTENT, "not an RSA key");
  if (data.size() > MaxInput(params, k)) {
    return MakeError(CKR_DATA_LEN_RANGE, "input too long for the RSA key and padding");
  }
  // Raw RSA: PKCS#11 pads shorter input with leading zeros to k bytes.
  Bytes padded;
  if (params.padding == RsaPadding::kNone && data.size() < k) {
    padded.assign(k - data.size(), 0);
    padded.insert(padded.end(), data.begin(), data.end());
    data = padded;
  }
  SIGNET_ASSIGN_OR_RETURN(EvpPkeyCtxPtr ctx, NewCipherCtx(key.get0_pkey(), params, true));
  Bytes out(k);
  std::size_t out_len = out.size();
  if (EVP_PKEY_encrypt(ctx.get(), out.data(), &out_len, data.data(), data.size()) <= 0) {
    // Only raw input at or above the modulus gets here.
    return OsslError(params.padding == RsaPadding::kNone ? CKR_DATA_INVALID : CKR_FUNCTION_FAILED,
                     "RSA encryption failed");
  }
  out.resize(out_len);
  return out;
}

Result<SecureBytes> RsaDecrypt(const PrivateKey& key, const RsaCipherParams& params,
                               ByteView data) {
  const std::size_t k = ModulusBytes(key.get0_pkey());
  if (k == 0) return MakeError(CKR_KEY_TYPE_INCONSISTENT, "not an RSA key");
  if (data.size() != k) {
    return MakeError(CKR_ENCRYPTED_DATA_LEN_RANGE, "RSA ciphertext must be the modulus length");
  }
  SIGNET_ASSIGN_OR_RETURN(EvpPkeyCtxPtr ctx, NewCipherCtx(key.get0_pkey(), params, false));
  SecureBytes out(k);
  std::size_t out_len = out.size();
  if (EVP_PKEY_decrypt(ctx.get(), out.data(), &out_len, data.data(), data.size()) <= 0) {
    // One answer for every failure: no OpenSSL reason text, which could
    // tell one padding fault from another.
    ERR_clear_error();
    return MakeError(CKR_ENCRYPTED_DATA_INVALID, "RSA decryption failed");
  }
  out.resize(out_len);
  return out;
}

Result<Bytes> RsaRawSign(const PrivateKey& key, ByteView input) {
  const std::size_t k = ModulusBytes(key.get0_pkey());
  if (k == 0) return MakeError(CKR_KEY_TYPE_INCONSISTENT, "not an RSA key");
  if (input.size() > k) return MakeError(CKR_DATA_LEN_RANGE, "input longer than the modulus");
  const Bytes padded = LeftPadded(input, k);
  const RsaCipherParams raw{.padding = RsaPadding::kNone};
  Result<SecureBytes> sig = RsaDecrypt(key, raw, padded);
  if (!sig.ok()) return MakeError(CKR_DATA_INVALID, "the input is not below the modulus");
  return Bytes(sig->begin(), sig->end());
}

Status RsaRawVerify(const PublicKey& key, ByteView input, ByteView signature) {
  const std::size_t k = ModulusBytes(key.get0_pkey());
  if (k == 0) return MakeError(CKR_KEY_TYPE_INCONSISTENT, "not an RSA key");
  if (signature.size() != k) {
    return MakeError(CKR_SIGNATURE_LEN_RANGE, "an RSA signature is the modulus length");
  }
  if (input.size() > k) return MakeError(CKR_DATA_LEN_RANGE, "input longer than the modulus");
  const RsaCipherParams raw{.padding = RsaPadding::kNone};
  Result<Bytes> recovered = RsaEncrypt(key, raw, signature);
  if (!recovered.ok() || !EqualConstantTime(*recovered, LeftPadded(input, k))) {
    return MakeError(CKR_SIGNATURE_INVALID, "the signature does not verify");
  }
  return OkStatus();
}

}  // namespace signet::crypto
