#include "crypto/aes_modes.h"

#include <openssl/evp.h>

#include <array>
#include <climits>
#include <memory>
#include <utility>

#include "crypto/ossl_ptr.h"

namespace signet::crypto {
namespace {

constexpr std::size_t kWrapIvSize = 8;

// KeyIndex: 0/1/2 for AES-128/192/256, -1 for another key size.
int KeyIndex(std::size_t key_size) {
  switch (key_size) {
    case 16:
      return 0;
    case 24:
      return 1;
    case 32:
      return 2;
    default:
      return -1;
  }
}

// kSingleDes: DesKeyIndex of an 8-byte key.
constexpr int kSingleDes = 2;

// DesKeyIndex: 0/1 for two-key / three-key triple DES, kSingleDes for a
// single DES key, -1 for another size.
int DesKeyIndex(std::size_t key_size) {
  switch (key_size) {
    case 16:
      return 0;
    case 24:
      return 1;
    case kDesBlockSize:
      return kSingleDes;
    default:
      return -1;
  }
}

int KeyIndex(BlockCipher cipher, std::size_t key_size) {
  return cipher == BlockCipher::kAes ? KeyIndex(key_size) : DesKeyIndex(key_size);
}

// Ciphers fetched once per process (docs/DESIGN.md "Crypto").
struct FetchedModes {
  std::array<std::array<EvpCipherPtr, 3>, 4> mode;  // [AesMode][key size]
  std::array<EvpCipherPtr, 3> wrap;                 // AES-n-WRAP (RFC 3394)
  std::array<std::array<EvpCipherPtr, 2>, 3> des3;  // [ECB, CBC, CBC_PAD][DES2, DES3]

  FetchedModes() {
    static constexpr const char* kNames[4][3] = {
        {"AES-128-ECB", "AES-192-ECB", "AES-256-ECB"},
        {"AES-128-CBC", "AES-192-CBC", "AES-256-CBC"},
        {"AES-128-CBC", "AES-192-CBC", "AES-256-CBC"},  // kCbcPad: CBC with padding on
        {"AES-128-CTR", "AES-192-CTR", "AES-256-CTR"},
    };
    static constexpr const char* kWrap[3] = {"AES-128-WRAP", "AES-192-WRAP", "AES-256-WRAP"};
    for (std::size_t m = 0; m < mode.size(); ++m) {
      for (std::size_t k = 0; k < 3; ++k) {
        mode[m][k].reset(EVP_CIPHER_fetch(nullptr, kNames[m][k], nullptr));
      }
    }
    for (std::size_t k = 0; k < 3; ++k) wrap[k].reset(EVP_CIPHER_fetch(nullptr, kWrap[k], nullptr));
    static constexpr const char* kDes3[3][2] = {
        {"DES-EDE-ECB", "DES-EDE3-ECB"},
        {"DES-EDE-CBC", "DES-EDE3-CBC"},
        {"DES-EDE-CBC", "DES-EDE3-CBC"},  // kCbcPad: CBC with padding on
    };
    for (std::size_t m = 0; m < des3.size(); ++m) {
      for (std::size_t k = 0; k < 2; ++k) {
        des3[m][k].reset(EVP_CIPHER_fetch(nullptr, kDes3[m][k], nullptr));
      }
    }
  }

  const EVP_CIPHER* Get(BlockCipher cipher, BlockMode block_mode, int key_index) const {
    const auto m = static_cast<std::size_t>(block_mode);
    const auto k = static_cast<std::size_t>(key_index);
    if (cipher == BlockCipher::kAes) return mode[m][k].get();
    return m < des3.size() ? des3[m][k].get() : nullptr;
  }
};

const FetchedModes& Fetched() {
  static const FetchedModes fetched;
  return fetched;
}

bool FitsInt(std::size_t n) { return n <= static_cast<std::size_t>(INT_MAX) - 64; }

// Uint128: GCC's and Clang's 128-bit integer (an extension, hence the
// keyword that keeps -Wpedantic quiet): a CTR counter block is 128 bits.
__extension__ typedef unsigned __int128 Uint128;

// CheckCounter refuses a CTR input whose blocks would run the low
// `counter_bits` bits of the counter block past their maximum.
Status CheckCounter(ByteView block, std::size_t counter_bits, std::size_t data_size) {
  if (counter_bits == 0 || counter_bits > 128) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "CTR counter bits must be 1..128");
  }
  Uint128 value = 0;
  for (std::uint8_t byte : block) value = (value << 8) | byte;
  const Uint128 max = counter_bits == 128 ? ~static_cast<Uint128>(0)
                                          : (static_cast<Uint128>(1) << counter_bits) - 1;
  const Uint128 counter = value & max;
  const std::size_t blocks = (data_size + kAesBlockSize - 1) / kAesBlockSize;
  if (blocks > 0 && max - counter < blocks - 1) {
    return MakeError(CKR_DATA_LEN_RANGE, "the input would wrap the CTR counter");
  }
  return OkStatus();
}

Status CheckModeParams(BlockCipher cipher, BlockMode mode, ByteView key,
                       const AesModeParams& params) {
  const bool aes = cipher == BlockCipher::kAes;
  if (!aes && mode == BlockMode::kCtr) {
    return MakeError(CKR_MECHANISM_INVALID, "DES has no CTR mode here");
  }
  if (KeyIndex(cipher, key.size()) < 0) {
    return MakeError(CKR_KEY_SIZE_RANGE,
                     aes ? "AES keys are 16, 24 or 32 bytes"
                         : "DES keys are 8 (single) or 16 or 24 bytes (triple)");
  }
  const std::size_t want_iv = mode == BlockMode::kEcb ? 0 : BlockSize(cipher);
  if (params.iv.size() != want_iv) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID,
                     mode == BlockMode::kEcb ? "ECB takes no IV" : "the IV must be one block");
  }
  return OkStatus();
}

// AesStream: one multi-part ECB/CBC/CBC_PAD/CTR operation on an EVP
// context, AES or triple DES (`block_` bytes per block). `processed_`
// counts the input so far: the CTR counter check and the whole-block checks
// at Finish need it.
class AesStream final : public MultiPart {
 public:
  AesStream(BlockCipher cipher, AesMode mode, const AesModeParams& params, bool encrypt,
            EvpCipherCtxPtr ctx)
      : mode_(mode),
        block_(BlockSize(cipher)),
        encrypt_(encrypt),
        counter_block_(params.iv.begin(), params.iv.end()),
        counter_bits_(params.counter_bits),
        ctx_(std::move(ctx)) {}

  Result<SecureBytes> Update(ByteView part) override {
    if (!FitsInt(part.size())) return MakeError(LengthCode(), "input too long");
    if (mode_ == AesMode::kCtr) {
      SIGNET_TRY(CheckCounter(counter_block_, counter_bits_, processed_ + part.size()));
    }
    SecureBytes out(part.size() + block_);
    int len = 0;
    if (EVP_CipherUpdate(ctx_.get(), out.data(), &len, part.data(),
                         static_cast<int>(part.size())) != 1) {
      return MakeError(CKR_FUNCTION_FAILED, "block cipher update failed");
    }
    processed_ += part.size();
    out.resize(static_cast<std::size_t>(len));
    return out;
  }

  Result<SecureBytes> Finish() override {
    const bool whole_blocks = processed_ % block_ == 0;
    if (mode_ != AesMode::kCtr && !(encrypt_ && mode_ == AesMode::kCbcPad) &&
        (!whole_blocks || (mode_ == AesMode::kCbcPad && processed_ == 0))) {
      return MakeError(LengthCode(), encrypt_ ? "ECB and CBC encrypt whole blocks"
                                              : "the data is not whole blocks");
    }
    SecureBytes out(block_);
    int len = 0;
    if (EVP_CipherFinal_ex(ctx_.get(), out.data(), &len) != 1) {
      // Only CBC_PAD decryption can fail here (the lengths were checked):
      // one code and message for every padding failure.
      return MakeError(CKR_ENCRYPTED_DATA_INVALID, "the data does not decrypt");
    }
    out.resize(static_cast<std::size_t>(len));
    return out;
  }

 private:
  CK_RV LengthCode() const { return encrypt_ ? CKR_DATA_LEN_RANGE : CKR_ENCRYPTED_DATA_LEN_RANGE; }

  const AesMode mode_;
  const std::size_t block_;
  const bool encrypt_;
  const Bytes counter_block_;  // CTR: the initial counter block
  const std::size_t counter_bits_;
  EvpCipherCtxPtr ctx_;
  std::size_t processed_ = 0;
};

// RunOnce runs a whole input through a multi-part operation.
template <typename Buffer>
Result<Buffer> RunOnce(BlockCipher cipher, AesMode mode, ByteView key, const AesModeParams& params,
                       ByteView in, bool encrypt) {
  SIGNET_ASSIGN_OR_RETURN(std::unique_ptr<MultiPart> op,
                          StartBlockCipher(cipher, mode, key, params, encrypt));
  SIGNET_ASSIGN_OR_RETURN(SecureBytes body, op->Update(in));
  SIGNET_ASSIGN_OR_RETURN(SecureBytes tail, op->Finish());
  Buffer out(body.begin(), body.end());
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

// Pkcs7Pad appends 1..8 bytes of value n (PKCS#7 padding to 8-byte blocks).
SecureBytes Pkcs7Pad(ByteView plaintext) {
  const std::size_t n = kWrapIvSize - plaintext.size() % kWrapIvSize;
  SecureBytes padded(plaintext.begin(), plaintext.end());
  padded.insert(padded.end(), n, static_cast<std::uint8_t>(n));
  return padded;
}

template <typename Buffer>
Result<Buffer> RunWrap(ByteView kek, ByteView iv, ByteView in, bool wrap) {
  const int index = KeyIndex(kek.size());
  if (index < 0) return MakeError(CKR_WRAPPING_KEY_SIZE_RANGE, "KEK must be 16, 24 or 32 bytes");
  if (!iv.empty() && iv.size() != kWrapIvSize) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "the key wrap IV must be 8 bytes");
  }
  if (in.size() < 2 * kWrapIvSize + (wrap ? 0 : kWrapIvSize) || in.size() % kWrapIvSize != 0 ||
      !FitsInt(in.size())) {
    return MakeError(wrap ? CKR_KEY_SIZE_RANGE : CKR_WRAPPED_KEY_LEN_RANGE,
                     "RFC 3394 wraps whole 8-byte blocks, at least two");
  }
  EvpCipherCtxPtr ctx(EVP_CIPHER_CTX_new());
  if (!ctx) return MakeError(CKR_HOST_MEMORY, "EVP_CIPHER_CTX_new failed");
  EVP_CIPHER_CTX_set_flags(ctx.get(), EVP_CIPHER_CTX_FLAG_WRAP_ALLOW);
  if (EVP_CipherInit_ex2(ctx.get(), Fetched().wrap[index].get(), kek.data(),
                         iv.empty() ? nullptr : iv.data(), wrap ? 1 : 0, nullptr) != 1) {
    return MakeError(CKR_FUNCTION_FAILED, "AES key wrap initialisation failed");
  }
  Buffer out(in.size() + kWrapIvSize);
  int len = 0, final_len = 0;
  if (EVP_CipherUpdate(ctx.get(), out.data(), &len, in.data(), static_cast<int>(in.size())) != 1 ||
      EVP_CipherFinal_ex(ctx.get(), out.data() + len, &final_len) != 1) {
    return MakeError(wrap ? CKR_FUNCTION_FAILED : CKR_WRAPPED_KEY_INVALID,
                     wrap ? "AES key wrap failed" : "AES key unwrap integrity check failed");
  }
  out.resize(static_cast<std::size_t>(len + final_len));
  return out;
}

}  // namespace

std::size_t BlockSize(BlockCipher cipher) {
  return cipher == BlockCipher::kAes ? kAesBlockSize : kDesBlockSize;
}

Result<std::unique_ptr<MultiPart>> StartAes(AesMode mode, ByteView key, const AesModeParams& params,
                                            bool encrypt) {
  return StartBlockCipher(BlockCipher::kAes, mode, key, params, encrypt);
}

Result<std::unique_ptr<MultiPart>> StartBlockCipher(BlockCipher block_cipher, BlockMode mode,
                                                    ByteView key, const AesModeParams& params,
                                                    bool encrypt) {
  SIGNET_TRY(CheckModeParams(block_cipher, mode, key, params));
  if (mode == AesMode::kCtr) SIGNET_TRY(CheckCounter(params.iv, params.counter_bits, 0));
  const int key_index = KeyIndex(block_cipher, key.size());
  // Single DES comes from OpenSSL's legacy provider (legacy_provider.h),
  // fetched at each use: the context keeps its own reference, and a
  // process that never loads the provider never caches a failed fetch.
  const bool single_des = block_cipher == BlockCipher::kDes && key_index == kSingleDes;
  EvpCipherPtr single_des_cipher;
  if (single_des) {
    single_des_cipher.reset(
        EVP_CIPHER_fetch(nullptr, mode == BlockMode::kEcb ? "DES-ECB" : "DES-CBC", nullptr));
  }
  const EVP_CIPHER* cipher =
      single_des ? single_des_cipher.get() : Fetched().Get(block_cipher, mode, key_index);
  if (cipher == nullptr) {
    return MakeError(CKR_MECHANISM_INVALID,
                     single_des ? "single DES needs OpenSSL's legacy provider, which is not loaded"
                                : "cipher mode unavailable");
  }
  EvpCipherCtxPtr ctx(EVP_CIPHER_CTX_new());
  if (!ctx) return MakeError(CKR_HOST_MEMORY, "EVP_CIPHER_CTX_new failed");
  if (EVP_CipherInit_ex2(ctx.get(), cipher, key.data(),
                         params.iv.empty() ? nullptr : params.iv.data(), encrypt ? 1 : 0,
                         nullptr) != 1 ||
      EVP_CIPHER_CTX_set_padding(ctx.get(), mode == AesMode::kCbcPad ? 1 : 0) != 1) {
    return MakeError(CKR_FUNCTION_FAILED, "block cipher initialisation failed");
  }
  return std::unique_ptr<MultiPart>(
      new AesStream(block_cipher, mode, params, encrypt, std::move(ctx)));
}

Result<Bytes> AesEncrypt(AesMode mode, ByteView key, const AesModeParams& params, ByteView data) {
  return RunOnce<Bytes>(BlockCipher::kAes, mode, key, params, data, true);
}

Result<SecureBytes> AesDecrypt(AesMode mode, ByteView key, const AesModeParams& params,
                               ByteView data) {
  return RunOnce<SecureBytes>(BlockCipher::kAes, mode, key, params, data, false);
}

Result<Bytes> BlockEncrypt(BlockCipher cipher, BlockMode mode, ByteView key,
                           const AesModeParams& params, ByteView data) {
  return RunOnce<Bytes>(cipher, mode, key, params, data, true);
}

Result<SecureBytes> BlockDecrypt(BlockCipher cipher, BlockMode mode, ByteView key,
                                 const AesModeParams& params, ByteView data) {
  return RunOnce<SecureBytes>(cipher, mode, key, params, data, false);
}

Result<Bytes> AesKeyWrap(ByteView kek, ByteView iv, bool pkcs7_pad, ByteView plaintext) {
  if (!pkcs7_pad) return RunWrap<Bytes>(kek, iv, plaintext, true);
  if (plaintext.empty()) return MakeError(CKR_KEY_SIZE_RANGE, "nothing to wrap");
  const SecureBytes padded = Pkcs7Pad(plaintext);
  return RunWrap<Bytes>(kek, iv, padded, true);
}

Result<SecureBytes> AesKeyUnwrap(ByteView kek, ByteView iv, bool pkcs7_pad, ByteView wrapped) {
  SIGNET_ASSIGN_OR_RETURN(SecureBytes plain, RunWrap<SecureBytes>(kek, iv, wrapped, false));
  if (!pkcs7_pad) return plain;
  const std::uint8_t n = plain.back();
  bool bad = n == 0 || n > kWrapIvSize || n > plain.size();
  for (std::size_t i = 0; !bad && i < n; ++i) bad = plain[plain.size() - 1 - i] != n;
  if (bad) return MakeError(CKR_WRAPPED_KEY_INVALID, "AES key unwrap integrity check failed");
  plain.resize(plain.size() - n);
  return plain;
}

}  // namespace signet::crypto
