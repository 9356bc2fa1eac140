#include "crypto/symmetric.h"

#include <openssl/core_names.h>
#include <openssl/rand.h>

#include <array>
#include <climits>
#include <memory>
#include <utility>

#include "crypto/digest.h"
#include "crypto/ossl_ptr.h"

namespace signet::crypto {
namespace {

// Algorithms fetched once per process (docs/DESIGN.md "Crypto": OpenSSL 3 locks on
// every implicit fetch).
struct FetchedSymmetric {
  std::array<EvpCipherPtr, 3> gcm;       // AES-128/192/256-GCM
  std::array<EvpCipherPtr, 3> wrap_pad;  // AES-128/192/256-WRAP-PAD
  EvpKdfPtr scrypt{EVP_KDF_fetch(nullptr, "SCRYPT", nullptr)};
  FetchedSymmetric() {
    static constexpr const char* kGcm[] = {"AES-128-GCM", "AES-192-GCM", "AES-256-GCM"};
    static constexpr const char* kWrap[] = {"AES-128-WRAP-PAD", "AES-192-WRAP-PAD",
                                            "AES-256-WRAP-PAD"};
    for (int i = 0; i < 3; ++i) {
      gcm[i].reset(EVP_CIPHER_fetch(nullptr, kGcm[i], nullptr));
      wrap_pad[i].reset(EVP_CIPHER_fetch(nullptr, kWrap[i], nullptr));
    }
  }
};

const FetchedSymmetric& Fetched() {
  static const FetchedSymmetric fetched;
  return fetched;
}

// AesIndex maps an AES key length to 0/1/2, or -1 when it is not 16/24/32.
int AesIndex(std::size_t key_len) {
  switch (key_len) {
    case 16: return 0;
    case 24: return 1;
    case 32: return 2;
    default: return -1;
  }
}

bool FitsInt(std::size_t n) { return n <= static_cast<std::size_t>(INT_MAX); }

Status CheckGcmArgs(ByteView key, ByteView iv, std::size_t tag_len) {
  if (AesIndex(key.size()) < 0) return MakeError(CKR_KEY_SIZE_RANGE, "AES key must be 16, 24 or 32 bytes");
  if (iv.empty() || iv.size() > 256) return MakeError(CKR_MECHANISM_PARAM_INVALID, "bad GCM IV length");
  if (tag_len < 12 || tag_len > 16) return MakeError(CKR_MECHANISM_PARAM_INVALID, "GCM tag must be 12-16 bytes");
  return OkStatus();
}

// StartGcm creates a context, sets the IV length, key and IV, and feeds AAD.
Result<EvpCipherCtxPtr> StartGcm(ByteView key, ByteView iv, ByteView aad, bool encrypt) {
  EvpCipherCtxPtr ctx(EVP_CIPHER_CTX_new());
  if (!ctx) return MakeError(CKR_HOST_MEMORY, "EVP_CIPHER_CTX_new failed");
  const EVP_CIPHER* cipher = Fetched().gcm[AesIndex(key.size())].get();
  size_t iv_len = iv.size();
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &iv_len), OSSL_PARAM_END};
  int out_len = 0;
  if (EVP_CipherInit_ex2(ctx.get(), cipher, key.data(), iv.data(), encrypt ? 1 : 0, params) != 1 ||
      (!aad.empty() && (!FitsInt(aad.size()) ||
                        EVP_CipherUpdate(ctx.get(), nullptr, &out_len, aad.data(),
                                         static_cast<int>(aad.size())) != 1))) {
    return MakeError(CKR_FUNCTION_FAILED, "AES-GCM initialisation failed");
  }
  return ctx;
}

}  // namespace

namespace {

// GcmStream: one multi-part AES-GCM operation. Encryption releases
// ciphertext as it goes and the tag at Finish. Decryption releases nothing
// before the tag checks out (PKCS#11 v3.0 section 2.14.4 leaves the choice;
// releasing unauthenticated plaintext is what GCM exists to prevent): it
// holds the plaintext, and the last tag-length bytes of input, which are
// the tag once the input ends.
class GcmStream final : public MultiPart {
 public:
  GcmStream(EvpCipherCtxPtr ctx, std::size_t tag_len, bool encrypt)
      : ctx_(std::move(ctx)), tag_len_(tag_len), encrypt_(encrypt) {}

  Result<SecureBytes> Update(ByteView part) override {
    if (encrypt_) {
      SecureBytes out(part.size());
      SIGNET_TRY(Run(part, out.data()));
      return out;
    }
    // Keep the last tag_len_ bytes seen back; decrypt what falls out of it.
    tail_.insert(tail_.end(), part.begin(), part.end());
    if (tail_.size() > tag_len_) {
      const std::size_t ready = tail_.size() - tag_len_;
      const std::size_t at = plain_.size();
      plain_.resize(at + ready);
      SIGNET_TRY(Run(ByteView(tail_).first(ready), plain_.data() + at));
      tail_.erase(tail_.begin(), tail_.begin() + static_cast<std::ptrdiff_t>(ready));
    }
    return SecureBytes{};
  }

  Result<SecureBytes> Finish() override {
    int len = 0;
    std::array<std::uint8_t, 16> none{};  // GCM's Final writes no bytes
    if (encrypt_) {
      SecureBytes tag(tag_len_);
      if (EVP_EncryptFinal_ex(ctx_.get(), none.data(), &len) != 1 ||
          EVP_CIPHER_CTX_ctrl(ctx_.get(), EVP_CTRL_AEAD_GET_TAG, static_cast<int>(tag_len_),
                              tag.data()) != 1) {
        return MakeError(CKR_FUNCTION_FAILED, "AES-GCM encryption failed");
      }
      return tag;
    }
    if (tail_.size() < tag_len_) {
      return MakeError(CKR_ENCRYPTED_DATA_LEN_RANGE, "ciphertext shorter than the tag");
    }
    if (EVP_CIPHER_CTX_ctrl(ctx_.get(), EVP_CTRL_AEAD_SET_TAG, static_cast<int>(tag_len_),
                            tail_.data()) != 1) {
      return MakeError(CKR_FUNCTION_FAILED, "AES-GCM decryption failed");
    }
    if (EVP_DecryptFinal_ex(ctx_.get(), none.data(), &len) != 1) {
      return MakeError(CKR_ENCRYPTED_DATA_INVALID, "AES-GCM tag mismatch");
    }
    return std::move(plain_);
  }

  std::size_t HeldBytes() const override { return plain_.size() + tail_.size(); }

 private:
  Status Run(ByteView in, std::uint8_t* out) {
    if (!FitsInt(in.size())) {
      return MakeError(encrypt_ ? CKR_DATA_LEN_RANGE : CKR_ENCRYPTED_DATA_LEN_RANGE,
                       "input too long");
    }
    int len = 0;
    if (EVP_CipherUpdate(ctx_.get(), out, &len, in.data(), static_cast<int>(in.size())) != 1 ||
        static_cast<std::size_t>(len) != in.size()) {
      return MakeError(CKR_FUNCTION_FAILED, "AES-GCM update failed");
    }
    return OkStatus();
  }

  EvpCipherCtxPtr ctx_;
  const std::size_t tag_len_;
  const bool encrypt_;
  SecureBytes tail_;   // decryption: input not yet known to be ciphertext
  SecureBytes plain_;  // decryption: plaintext held until the tag checks out
};

template <typename Buffer>
Result<Buffer> RunGcmOnce(ByteView key, ByteView iv, ByteView aad, ByteView in, std::size_t tag_len,
                          bool encrypt) {
  SIGNET_ASSIGN_OR_RETURN(std::unique_ptr<MultiPart> op,
                          StartAesGcm(key, iv, aad, tag_len, encrypt));
  SIGNET_ASSIGN_OR_RETURN(SecureBytes body, op->Update(in));
  SIGNET_ASSIGN_OR_RETURN(SecureBytes tail, op->Finish());
  Buffer out(body.begin(), body.end());
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

}  // namespace

Result<std::unique_ptr<MultiPart>> StartAesGcm(ByteView key, ByteView iv, ByteView aad,
                                               std::size_t tag_len, bool encrypt) {
  SIGNET_TRY(CheckGcmArgs(key, iv, tag_len));
  SIGNET_ASSIGN_OR_RETURN(EvpCipherCtxPtr ctx, StartGcm(key, iv, aad, encrypt));
  return std::unique_ptr<MultiPart>(new GcmStream(std::move(ctx), tag_len, encrypt));
}

Result<Bytes> AesGcmEncrypt(ByteView key, ByteView iv, ByteView aad, ByteView plaintext,
                            std::size_t tag_len) {
  return RunGcmOnce<Bytes>(key, iv, aad, plaintext, tag_len, true);
}

Result<SecureBytes> AesGcmDecrypt(ByteView key, ByteView iv, ByteView aad,
                                  ByteView ciphertext_and_tag, std::size_t tag_len) {
  return RunGcmOnce<SecureBytes>(key, iv, aad, ciphertext_and_tag, tag_len, false);
}

namespace {

// KeyWrapPad runs AES-KWP (RFC 5649) in either direction. Unwrap output is
// SecureBytes because it is key material.
template <typename Buffer>
Result<Buffer> KeyWrapPad(ByteView kek, ByteView input, bool wrap) {
  const int index = AesIndex(kek.size());
  if (index < 0) return MakeError(CKR_WRAPPING_KEY_SIZE_RANGE, "KEK must be 16, 24 or 32 bytes");
  if (input.empty() || !FitsInt(input.size() + 16)) {
    return MakeError(wrap ? CKR_KEY_SIZE_RANGE : CKR_WRAPPED_KEY_LEN_RANGE, "bad key wrap input length");
  }
  if (!wrap && (input.size() < 16 || input.size() % 8 != 0)) {
    return MakeError(CKR_WRAPPED_KEY_LEN_RANGE, "wrapped key length is not 16+8k bytes");
  }
  EvpCipherCtxPtr ctx(EVP_CIPHER_CTX_new());
  if (!ctx) return MakeError(CKR_HOST_MEMORY, "EVP_CIPHER_CTX_new failed");
  EVP_CIPHER_CTX_set_flags(ctx.get(), EVP_CIPHER_CTX_FLAG_WRAP_ALLOW);
  Buffer out(input.size() + 16);
  int len = 0, final_len = 0;
  if (EVP_CipherInit_ex2(ctx.get(), Fetched().wrap_pad[index].get(), kek.data(), nullptr,
                         wrap ? 1 : 0, nullptr) != 1) {
    return MakeError(CKR_FUNCTION_FAILED, "AES-KWP initialisation failed");
  }
  if (EVP_CipherUpdate(ctx.get(), out.data(), &len, input.data(),
                       static_cast<int>(input.size())) != 1 ||
      EVP_CipherFinal_ex(ctx.get(), out.data() + len, &final_len) != 1) {
    return MakeError(wrap ? CKR_FUNCTION_FAILED : CKR_WRAPPED_KEY_INVALID,
                     wrap ? "AES-KWP wrap failed" : "AES-KWP integrity check failed");
  }
  out.resize(static_cast<std::size_t>(len + final_len));
  return out;
}

}  // namespace

Result<Bytes> AesKeyWrapPad(ByteView kek, ByteView plaintext) {
  return KeyWrapPad<Bytes>(kek, plaintext, true);
}

Result<SecureBytes> AesKeyUnwrapPad(ByteView kek, ByteView wrapped) {
  return KeyWrapPad<SecureBytes>(kek, wrapped, false);
}

Result<SecureBytes> RandomBytes(std::size_t n) {
  if (!FitsInt(n)) return MakeError(CKR_DATA_LEN_RANGE, "too many random bytes");
  SecureBytes out(n);
  if (n > 0 && RAND_priv_bytes(out.data(), static_cast<int>(n)) != 1) {
    return MakeError(CKR_FUNCTION_FAILED, "DRBG failure");
  }
  return out;
}

Status FillRandom(std::span<std::uint8_t> out) {
  if (!FitsInt(out.size())) return MakeError(CKR_DATA_LEN_RANGE, "too many random bytes");
  if (!out.empty() && RAND_bytes(out.data(), static_cast<int>(out.size())) != 1) {
    return MakeError(CKR_FUNCTION_FAILED, "DRBG failure");
  }
  return OkStatus();
}

Status MixIntoRandom(ByteView seed) {
  if (!FitsInt(seed.size())) return MakeError(CKR_ARGUMENTS_BAD, "seed too long");
  if (!seed.empty()) RAND_add(seed.data(), static_cast<int>(seed.size()), 0.0);
  return OkStatus();
}

Result<SecureBytes> Scrypt(ByteView secret, ByteView salt, const ScryptParams& params,
                           std::size_t out_len) {
  if (params.n < 2 || (params.n & (params.n - 1)) != 0 || params.r == 0 || params.p == 0) {
    return MakeError(CKR_ARGUMENTS_BAD, "scrypt parameters invalid");
  }
  EvpKdfCtxPtr ctx(EVP_KDF_CTX_new(Fetched().scrypt.get()));
  if (!ctx) return MakeError(CKR_HOST_MEMORY, "EVP_KDF_CTX_new failed");
  std::uint64_t n = params.n;
  std::uint32_t r = params.r, p = params.p;
  std::uint64_t maxmem = 2ull << 30;
  OSSL_PARAM kdf_params[] = {
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_PASSWORD,
                                        const_cast<std::uint8_t*>(secret.data()), secret.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT,
                                        const_cast<std::uint8_t*>(salt.data()), salt.size()),
      OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_N, &n),
      OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_R, &r),
      OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_P, &p),
      OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_MAXMEM, &maxmem),
      OSSL_PARAM_END};
  SecureBytes out(out_len);
  if (EVP_KDF_derive(ctx.get(), out.data(), out.size(), kdf_params) != 1) {
    return MakeError(CKR_FUNCTION_FAILED, "scrypt derivation failed");
  }
  return out;
}

}  // namespace signet::crypto
