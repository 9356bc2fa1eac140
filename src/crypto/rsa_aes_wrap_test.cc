// CKM_RSA_AES_KEY_WRAP checked by an independent implementation, OpenSSL's
// EVP used directly (EVP_PKEY_decrypt with OAEP, then EVP_aes_*_wrap_pad,
// RFC 5649): it opens what RsaAesKeyWrap makes, and RsaAesKeyUnwrap opens
// what it makes; then the failures, each one code and message.
#include "crypto/rsa_aes_wrap.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "crypto/crypto_test_util.h"
#include "crypto/ossl_ptr.h"

namespace signet::crypto {
namespace {

using testing::CachedKey;

const RsaCipherParams kOaepSha256 = {.padding = RsaPadding::kOaep,
                                     .oaep_digest = DigestAlg::kSha256,
                                     .mgf1_digest = DigestAlg::kSha256};

// OaepCtx: an EVP context for OAEP with SHA-256 (or SHA-1) and MGF1 of it.
EvpPkeyCtxPtr OaepCtx(EVP_PKEY* pkey, bool encrypt, const EVP_MD* md) {
  EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, pkey, nullptr));
  if (!ctx) return nullptr;
  if ((encrypt ? EVP_PKEY_encrypt_init(ctx.get()) : EVP_PKEY_decrypt_init(ctx.get())) <= 0 ||
      EVP_PKEY_CTX_set_rsa_padding(ctx.get(), RSA_PKCS1_OAEP_PADDING) <= 0 ||
      EVP_PKEY_CTX_set_rsa_oaep_md(ctx.get(), md) <= 0 ||
      EVP_PKEY_CTX_set_rsa_mgf1_md(ctx.get(), md) <= 0) {
    return nullptr;
  }
  return ctx;
}

// KwpCipher: OpenSSL's RFC 5649 cipher for an AES key of `bytes`.
const EVP_CIPHER* KwpCipher(std::size_t bytes) {
  return bytes == 16   ? EVP_aes_128_wrap_pad()
         : bytes == 24 ? EVP_aes_192_wrap_pad()
                       : EVP_aes_256_wrap_pad();
}

// Kwp runs OpenSSL's RFC 5649 wrap or unwrap; empty on failure.
Bytes Kwp(bool wrap, ByteView kek, ByteView in) {
  EvpCipherCtxPtr ctx(EVP_CIPHER_CTX_new());
  if (EVP_CipherInit_ex(ctx.get(), KwpCipher(kek.size()), nullptr, kek.data(), nullptr,
                        wrap ? 1 : 0) != 1) {
    return {};
  }
  Bytes out(in.size() + 16);
  int len = 0;
  if (EVP_CipherUpdate(ctx.get(), out.data(), &len, in.data(), static_cast<int>(in.size())) != 1) {
    return {};
  }
  out.resize(static_cast<std::size_t>(len));
  return out;
}

class RsaAesWrapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    key_ = CachedKey({KeyType::kRsa, 2048});
    ASSERT_NE(key_, nullptr);
    auto pub = key_->Public();
    ASSERT_TRUE(pub.ok());
    pub_.emplace(*pub);
    for (std::size_t i = 0; i < value_.size(); ++i) value_[i] = static_cast<std::uint8_t>(i * 3);
  }

  const PrivateKey* key_ = nullptr;
  std::optional<PublicKey> pub_;
  Bytes value_ = Bytes(121);  // not a multiple of 8: RFC 5649 pads it
};

TEST_F(RsaAesWrapTest, OpenSslOpensWhatSignetWraps) {
  for (std::size_t aes_bytes : {16u, 24u, 32u}) {
    SCOPED_TRACE(aes_bytes);
    auto wrapped = RsaAesKeyWrap(*pub_, kOaepSha256, aes_bytes, value_);
    ASSERT_TRUE(wrapped.ok()) << wrapped.error().message;
    // 256 bytes of RSA, then RFC 5649 of 121 bytes: 128 + 8.
    ASSERT_EQ(wrapped->size(), 256u + 136u);
    EvpPkeyCtxPtr ctx = OaepCtx(key_->get0_pkey(), false, EVP_sha256());
    ASSERT_TRUE(ctx);
    Bytes aes_key(256);
    std::size_t len = aes_key.size();
    ASSERT_EQ(EVP_PKEY_decrypt(ctx.get(), aes_key.data(), &len, wrapped->data(), 256), 1);
    aes_key.resize(len);
    EXPECT_EQ(aes_key.size(), aes_bytes);
    EXPECT_EQ(Kwp(false, aes_key, ByteView(*wrapped).subspan(256)), value_);
  }
}

TEST_F(RsaAesWrapTest, SignetOpensWhatOpenSslWraps) {
  const RsaCipherParams oaep_sha1 = {.padding = RsaPadding::kOaep};
  const Bytes aes_key(32, 0x42);
  EvpPkeyCtxPtr ctx = OaepCtx(key_->get0_pkey(), true, EVP_sha1());
  ASSERT_TRUE(ctx);
  Bytes blob(256);
  std::size_t len = blob.size();
  ASSERT_EQ(EVP_PKEY_encrypt(ctx.get(), blob.data(), &len, aes_key.data(), aes_key.size()), 1);
  const Bytes tail = Kwp(true, aes_key, value_);
  ASSERT_FALSE(tail.empty());
  blob.insert(blob.end(), tail.begin(), tail.end());
  auto plain = RsaAesKeyUnwrap(*key_, oaep_sha1, 32, blob);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(Bytes(plain->begin(), plain->end()), value_);
  // The AES key is 32 bytes; a caller who says 16 gets no key.
  EXPECT_EQ(RsaAesKeyUnwrap(*key_, oaep_sha1, 16, blob).error().code, CKR_WRAPPED_KEY_INVALID);
}

TEST_F(RsaAesWrapTest, FailuresAreOneCodeAndMessage) {
  auto wrapped = RsaAesKeyWrap(*pub_, kOaepSha256, 32, value_);
  ASSERT_TRUE(wrapped.ok());
  Bytes bad_rsa = *wrapped, bad_kwp = *wrapped;
  bad_rsa[10] ^= 1;
  bad_kwp[300] ^= 1;
  auto rsa_failure = RsaAesKeyUnwrap(*key_, kOaepSha256, 32, bad_rsa);
  auto kwp_failure = RsaAesKeyUnwrap(*key_, kOaepSha256, 32, bad_kwp);
  auto size_failure = RsaAesKeyUnwrap(*key_, kOaepSha256, 24, *wrapped);
  for (const auto* r : {&rsa_failure, &kwp_failure, &size_failure}) {
    ASSERT_FALSE(r->ok());
    EXPECT_EQ(r->error().code, CKR_WRAPPED_KEY_INVALID);
    EXPECT_EQ(r->error().message, rsa_failure.error().message);
  }
  // Lengths that cannot hold both parts.
  EXPECT_EQ(RsaAesKeyUnwrap(*key_, kOaepSha256, 32, ByteView(*wrapped).first(256 + 8)).error().code,
            CKR_WRAPPED_KEY_LEN_RANGE);
  EXPECT_EQ(
      RsaAesKeyUnwrap(*key_, kOaepSha256, 32, ByteView(*wrapped).first(256 + 20)).error().code,
      CKR_WRAPPED_KEY_LEN_RANGE);
  // Parameters: OAEP (or libhal's PKCS#1 v1.5), never raw RSA; only AES key sizes.
  EXPECT_EQ(RsaAesKeyWrap(*pub_, {.padding = RsaPadding::kNone}, 32, value_).error().code,
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(RsaAesKeyWrap(*pub_, kOaepSha256, 20, value_).error().code,
            CKR_MECHANISM_PARAM_INVALID);
}

// CKM_SIGNET_RSA_PKCS_AES_KEY_WRAP: libhal's export, PKCS#1 v1.5 for the
// one-time AES key. The first k bytes decrypt with OpenSSL's own v1.5 to a
// 32-byte key.
TEST_F(RsaAesWrapTest, LibhalsPkcs1VariantRoundTrips) {
  const RsaCipherParams pkcs1 = {.padding = RsaPadding::kPkcs1};
  auto wrapped = RsaAesKeyWrap(*pub_, pkcs1, 32, value_);
  ASSERT_TRUE(wrapped.ok()) << wrapped.error().message;
  auto kek = RsaDecrypt(*key_, pkcs1, ByteView(*wrapped).first(256));
  ASSERT_TRUE(kek.ok());
  EXPECT_EQ(kek->size(), 32u);
  auto back = RsaAesKeyUnwrap(*key_, pkcs1, 32, *wrapped);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(Bytes(back->begin(), back->end()), Bytes(value_.begin(), value_.end()));
  // Under OAEP the same blob does not open: one error, as for any failure.
  EXPECT_EQ(RsaAesKeyUnwrap(*key_, kOaepSha256, 32, *wrapped).error().code,
            CKR_WRAPPED_KEY_INVALID);
}

TEST_F(RsaAesWrapTest, AKeyTooShortForTheOaepHashIsAWrappingKeySizeError) {
  const PrivateKey* small = CachedKey({KeyType::kRsa, 1024});
  ASSERT_NE(small, nullptr);
  auto pub = small->Public();
  ASSERT_TRUE(pub.ok());
  // 128 - 2 * 64 - 2 < 32: no room for the AES key under OAEP-SHA-512.
  const RsaCipherParams sha512 = {.padding = RsaPadding::kOaep,
                                  .oaep_digest = DigestAlg::kSha512,
                                  .mgf1_digest = DigestAlg::kSha512};
  EXPECT_EQ(RsaAesKeyWrap(*pub, sha512, 32, value_).error().code, CKR_WRAPPING_KEY_SIZE_RANGE);
}

}  // namespace
}  // namespace signet::crypto
