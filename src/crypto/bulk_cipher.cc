#include "crypto/bulk_cipher.h"

#include <algorithm>
#include <array>
#include <climits>

#include "crypto/ossl_error.h"

namespace signet::crypto {
namespace {

struct BulkCipherEntry {
  BulkCipherAlg alg;
  const char* openssl_name;
  std::string_view name;
  std::size_t key_size;
  std::size_t iv_size;
  std::size_t tag_size;  // 0 for stream modes
};

// One row per BulkCipherAlg, in enum order.
constexpr std::array<BulkCipherEntry, 3> kCiphers = {{
    {BulkCipherAlg::kAes128Ctr, "AES-128-CTR", "aes-128-ctr", 16, 16, 0},
    {BulkCipherAlg::kAes256Gcm, "AES-256-GCM", "aes-256-gcm", 32, 12, 16},
    {BulkCipherAlg::kChaCha20, "ChaCha20", "chacha20", 32, 16, 0},
}};

const BulkCipherEntry& Entry(BulkCipherAlg alg) { return kCiphers[static_cast<std::size_t>(alg)]; }

// Fetched once: an implicit fetch per EVP_EncryptInit costs a lock and a
// provider lookup under OpenSSL 3.
const EVP_CIPHER* Fetched(BulkCipherAlg alg) {
  struct FetchedCiphers {
    std::array<EvpCipherPtr, kCiphers.size()> cipher;
    FetchedCiphers() {
      for (const auto& entry : kCiphers) {
        cipher[static_cast<std::size_t>(entry.alg)].reset(
            EVP_CIPHER_fetch(nullptr, entry.openssl_name, nullptr));
      }
    }
  };
  static const FetchedCiphers fetched;
  return fetched.cipher[static_cast<std::size_t>(alg)].get();
}

}  // namespace

std::string_view BulkCipherName(BulkCipherAlg alg) { return Entry(alg).name; }
std::size_t BulkCipherKeySize(BulkCipherAlg alg) { return Entry(alg).key_size; }
std::size_t BulkCipherIvSize(BulkCipherAlg alg) { return Entry(alg).iv_size; }

Result<BulkCipher> BulkCipher::Create(BulkCipherAlg alg, ByteView key, ByteView iv) {
  const BulkCipherEntry& entry = Entry(alg);
  if (key.size() != entry.key_size) {
    return MakeError(CKR_KEY_SIZE_RANGE, "bulk cipher: wrong key length");
  }
  if (iv.size() != entry.iv_size) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "bulk cipher: wrong IV length");
  }
  const EVP_CIPHER* cipher = Fetched(alg);
  if (cipher == nullptr) return MakeError(CKR_MECHANISM_INVALID, "bulk cipher unavailable");
  EvpCipherCtxPtr ctx(EVP_CIPHER_CTX_new());
  if (!ctx) return MakeError(CKR_HOST_MEMORY, "EVP_CIPHER_CTX_new failed");
  if (EVP_EncryptInit_ex2(ctx.get(), cipher, key.data(), iv.data(), nullptr) != 1) {
    return internal::OsslError(CKR_FUNCTION_FAILED, "EVP_EncryptInit_ex2");
  }
  return BulkCipher(alg, std::move(ctx));
}

Status BulkCipher::Update(ByteView in, std::span<std::uint8_t> out) {
  if (out.size() < in.size()) {
    return MakeError(CKR_BUFFER_TOO_SMALL, "bulk cipher: output shorter than input");
  }
  // EVP takes int lengths: feed very large inputs in pieces.
  constexpr std::size_t kMaxChunk = INT_MAX / 2;
  std::size_t done = 0;
  while (done < in.size()) {
    const std::size_t chunk = std::min(kMaxChunk, in.size() - done);
    int written = 0;
    if (EVP_EncryptUpdate(ctx_.get(), out.data() + done, &written, in.data() + done,
                          static_cast<int>(chunk)) != 1 ||
        static_cast<std::size_t>(written) != chunk) {
      return internal::OsslError(CKR_FUNCTION_FAILED, "EVP_EncryptUpdate");
    }
    done += chunk;
  }
  return OkStatus();
}

Result<Bytes> BulkCipher::Finish() {
  std::uint8_t tail[EVP_MAX_BLOCK_LENGTH];
  int written = 0;
  if (EVP_EncryptFinal_ex(ctx_.get(), tail, &written) != 1 || written != 0) {
    return internal::OsslError(CKR_FUNCTION_FAILED, "EVP_EncryptFinal_ex");
  }
  const std::size_t tag_size = Entry(alg_).tag_size;
  Bytes tag(tag_size);
  if (tag_size != 0 && EVP_CIPHER_CTX_ctrl(ctx_.get(), EVP_CTRL_AEAD_GET_TAG,
                                           static_cast<int>(tag_size), tag.data()) != 1) {
    return internal::OsslError(CKR_FUNCTION_FAILED, "EVP_CTRL_AEAD_GET_TAG");
  }
  return tag;
}

Status BulkCipher::Reset(ByteView iv) {
  if (iv.size() != Entry(alg_).iv_size) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "bulk cipher: wrong IV length");
  }
  // Cipher and key stay as they are: only the IV (and the counter) restart.
  if (EVP_EncryptInit_ex2(ctx_.get(), nullptr, nullptr, iv.data(), nullptr) != 1) {
    return internal::OsslError(CKR_FUNCTION_FAILED, "EVP_EncryptInit_ex2 (reset)");
  }
  return OkStatus();
}

}  // namespace signet::crypto
