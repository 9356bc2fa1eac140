// Sealed boxes (crypto/sealed_box.h): what is sealed to a key opens with
// that key only, every changed byte is refused with the same error, and
// the box is the documented composition - checked by recomputing one with
// OpenSSL's EVP directly (X25519 derive, HKDF, AES-256 wrap with padding).
#include "crypto/sealed_box.h"

#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>

#include <string>

namespace signet::crypto {
namespace {

PrivateKey X25519Key() {
  auto key = PrivateKey::Generate({KeyType::kX25519});
  EXPECT_TRUE(key.ok());
  return *key;
}

Bytes Text(const std::string& text) { return Bytes(text.begin(), text.end()); }

TEST(SealedBoxTest, OpensWithTheRecipientsKeyOnly) {
  PrivateKey recipient = X25519Key();
  auto box = Seal(*recipient.Public(), Text("a PKCS#8 key, say"));
  ASSERT_TRUE(box.ok()) << box.error().message;
  auto opened = OpenSealed(recipient, *box);
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  EXPECT_EQ(Bytes(opened->begin(), opened->end()), Text("a PKCS#8 key, say"));

  auto other = OpenSealed(X25519Key(), *box);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code, CKR_ENCRYPTED_DATA_INVALID);
}

TEST(SealedBoxTest, EveryChangedByteIsRefusedAlike) {
  PrivateKey recipient = X25519Key();
  auto box = Seal(*recipient.Public(), Text("sixteen byte key"));
  ASSERT_TRUE(box.ok());
  for (std::size_t i = 0; i < box->size(); ++i) {
    Bytes changed = *box;
    changed[i] ^= 0x01;
    auto opened = OpenSealed(recipient, changed);
    ASSERT_FALSE(opened.ok()) << "byte " << i;
    EXPECT_EQ(opened.error().code, CKR_ENCRYPTED_DATA_INVALID);
    EXPECT_EQ(opened.error().message, "not a box sealed to this key");
  }
  Bytes truncated(box->begin(), box->begin() + 32);
  EXPECT_EQ(OpenSealed(recipient, truncated).error().code, CKR_ENCRYPTED_DATA_INVALID);
}

TEST(SealedBoxTest, TwoBoxesOfOnePlaintextDiffer) {
  PrivateKey recipient = X25519Key();
  auto first = Seal(*recipient.Public(), Text("same"));
  auto second = Seal(*recipient.Public(), Text("same"));
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_NE(*first, *second);  // a fresh ephemeral key each time
}

TEST(SealedBoxTest, OnlyX25519KeysSeal) {
  auto ec = PrivateKey::Generate({KeyType::kEcP256});
  ASSERT_TRUE(ec.ok());
  EXPECT_EQ(Seal(*ec->Public(), Text("x")).error().code, CKR_KEY_TYPE_INCONSISTENT);
  EXPECT_EQ(OpenSealed(*ec, Bytes(64, 1)).error().code, CKR_KEY_TYPE_INCONSISTENT);
}

// The documented composition, recomputed with EVP: a box opens with a key
// derived as the header says.
TEST(SealedBoxTest, IsTheDocumentedComposition) {
  PrivateKey recipient = X25519Key();
  Bytes plaintext = Text("independently opened");
  auto box = Seal(*recipient.Public(), plaintext);
  ASSERT_TRUE(box.ok());
  Bytes ephemeral(box->begin(), box->begin() + 32);
  Bytes recipient_point = *recipient.Public()->EcPoint();

  EVP_PKEY* peer = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nullptr, ephemeral.data(), 32);
  ASSERT_NE(peer, nullptr);
  EVP_PKEY_CTX* derive = EVP_PKEY_CTX_new(recipient.get0_pkey(), nullptr);
  ASSERT_EQ(EVP_PKEY_derive_init(derive), 1);
  ASSERT_EQ(EVP_PKEY_derive_set_peer(derive, peer), 1);
  unsigned char shared[32];
  size_t shared_len = sizeof shared;
  ASSERT_EQ(EVP_PKEY_derive(derive, shared, &shared_len), 1);
  EVP_PKEY_CTX_free(derive);
  EVP_PKEY_free(peer);

  std::string info = "signet sealed box v1";
  info.append(ephemeral.begin(), ephemeral.end());
  info.append(recipient_point.begin(), recipient_point.end());
  EVP_KDF* kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
  EVP_KDF_CTX* kctx = EVP_KDF_CTX_new(kdf);
  char digest[] = "SHA256";
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, shared, shared_len),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info.data(), info.size()),
      OSSL_PARAM_construct_end()};
  unsigned char key[32];
  ASSERT_EQ(EVP_KDF_derive(kctx, key, sizeof key, params), 1);
  EVP_KDF_CTX_free(kctx);
  EVP_KDF_free(kdf);

  EVP_CIPHER_CTX* cctx = EVP_CIPHER_CTX_new();
  EVP_CIPHER_CTX_set_flags(cctx, EVP_CIPHER_CTX_FLAG_WRAP_ALLOW);
  ASSERT_EQ(EVP_DecryptInit_ex(cctx, EVP_aes_256_wrap_pad(), nullptr, key, nullptr), 1);
  Bytes out(box->size());
  int len = 0;
  ASSERT_EQ(EVP_DecryptUpdate(cctx, out.data(), &len, box->data() + 32,
                              static_cast<int>(box->size() - 32)),
            1);
  EVP_CIPHER_CTX_free(cctx);
  out.resize(static_cast<std::size_t>(len));
  EXPECT_EQ(out, plaintext);
}

}  // namespace
}  // namespace signet::crypto
