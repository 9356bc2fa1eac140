// Hsm's RSA key wrapping (CKM_RSA_PKCS, CKM_RSA_PKCS_OAEP,
// CKM_RSA_AES_KEY_WRAP): a secret key wraps under an RSA public key and
// unwraps with the private key; private keys only with RSA-AES; and every
// unwrap failure that depends on the decrypted bytes answers like a padding
// failure (no oracle beyond success or failure). openssl's side is
// tests/e2e/pkcs11/pkcs11_wrap_test.cc.
#include <gtest/gtest.h>

#include "base/hex.h"
#include "core/hsm_fixture_test_util.h"

namespace signet::core {
namespace {

class HsmRsaWrapTest : public HsmFixture {
 protected:
  void SetUp() override {
    HsmFixture::SetUp();
    s_ = LoggedIn(*owner_);
    // A key pair that wraps and unwraps keys and encrypts no data.
    auto pair = hsm_->GenerateKeyPair(*owner_, s_, Mechanism{CKM_RSA_PKCS_KEY_PAIR_GEN},
                                      {{CKA_MODULUS_BITS, UlongBytes(2048)},
                                       {CKA_WRAP, BoolBytes(true)},
                                       {CKA_ENCRYPT, BoolBytes(false)}},
                                      {{CKA_UNWRAP, BoolBytes(true)},
                                       {CKA_DECRYPT, BoolBytes(false)},
                                       {CKA_SIGN, BoolBytes(true)},
                                       {CKA_EXTRACTABLE, BoolBytes(true)}});
    ASSERT_TRUE(pair.ok()) << pair.error().message;
    pub_ = pair->first;
    priv_ = pair->second;
  }

  // SecretKey imports an extractable, non-sensitive secret key.
  CK_OBJECT_HANDLE SecretKey(CK_KEY_TYPE type, const Bytes& value) {
    auto h = hsm_->CreateObject(*owner_, s_,
                                {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                                 {CKA_KEY_TYPE, UlongBytes(type)},
                                 {CKA_VALUE, value},
                                 {CKA_SENSITIVE, BoolBytes(false)},
                                 {CKA_EXTRACTABLE, BoolBytes(true)}});
    EXPECT_TRUE(h.ok()) << h.error().message;
    return h.ok() ? *h : 0;
  }

  Bytes Value(CK_OBJECT_HANDLE key) {
    CK_RV overall = CKR_OK;
    auto got = hsm_->GetAttributeValue(*owner_, s_, key, {CKA_VALUE}, &overall);
    EXPECT_TRUE(got.ok() && overall == CKR_OK);
    return got.ok() ? (*got)[0].value : Bytes{};
  }

  static Template AesTemplate() {
    return {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
            {CKA_KEY_TYPE, UlongBytes(CKK_AES)},
            {CKA_SENSITIVE, BoolBytes(false)},
            {CKA_EXTRACTABLE, BoolBytes(true)}};
  }

  CK_SESSION_HANDLE s_ = 0;
  CK_OBJECT_HANDLE pub_ = 0, priv_ = 0;
};

Mechanism Oaep(CK_MECHANISM_TYPE hash, CK_RSA_PKCS_MGF_TYPE mgf, Bytes label) {
  Mechanism m{CKM_RSA_PKCS_OAEP};
  m.oaep = OaepParams{hash, mgf, CKZ_DATA_SPECIFIED, std::move(label)};
  return m;
}

TEST_F(HsmRsaWrapTest, PkcsAndOaepWrapASecretKeyAndUnwrapIt) {
  const Bytes value =
      FromHex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f").value();
  const CK_OBJECT_HANDLE aes = SecretKey(CKK_AES, value);
  const Mechanism cases[] = {Mechanism{CKM_RSA_PKCS}, Oaep(CKM_SHA_1, CKG_MGF1_SHA1, {}),
                             Oaep(CKM_SHA256, CKG_MGF1_SHA256, Bytes{'l', 'b', 'l'}),
                             Oaep(CKM_SHA512, CKG_MGF1_SHA1, {})};
  for (const Mechanism& m : cases) {
    SCOPED_TRACE(m.type);
    auto wrapped = hsm_->WrapKey(*owner_, s_, m, pub_, aes);
    ASSERT_TRUE(wrapped.ok()) << wrapped.error().message;
    EXPECT_EQ(wrapped->size(), 256u);
    auto back = hsm_->UnwrapKey(*owner_, s_, m, priv_, *wrapped, AesTemplate());
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(Value(*back), value);
  }
  // OAEP's label is part of the ciphertext: another label does not unwrap.
  auto labelled =
      hsm_->WrapKey(*owner_, s_, Oaep(CKM_SHA256, CKG_MGF1_SHA256, Bytes{'a'}), pub_, aes);
  ASSERT_TRUE(labelled.ok());
  EXPECT_EQ(Code(hsm_->UnwrapKey(*owner_, s_, Oaep(CKM_SHA256, CKG_MGF1_SHA256, Bytes{'b'}), priv_,
                                 *labelled, AesTemplate())),
            CKR_WRAPPED_KEY_INVALID);
}

TEST_F(HsmRsaWrapTest, KeysOfTheWrongClassOrRoleAreRefused) {
  const CK_OBJECT_HANDLE aes = SecretKey(CKK_AES, Bytes(16, 7));
  const Mechanism pkcs{CKM_RSA_PKCS};
  // A private key's PKCS#8 does not fit one RSA block: not wrappable.
  EXPECT_EQ(Code(hsm_->WrapKey(*owner_, s_, pkcs, pub_, priv_)), CKR_KEY_NOT_WRAPPABLE);
  EXPECT_EQ(Code(hsm_->WrapKey(*owner_, s_, Oaep(CKM_SHA_1, CKG_MGF1_SHA1, {}), pub_, priv_)),
            CKR_KEY_NOT_WRAPPABLE);
  // The public key wraps, the private key unwraps, not the other way.
  EXPECT_EQ(Code(hsm_->WrapKey(*owner_, s_, pkcs, priv_, aes)), CKR_WRAPPING_KEY_TYPE_INCONSISTENT);
  auto wrapped = hsm_->WrapKey(*owner_, s_, pkcs, pub_, aes);
  ASSERT_TRUE(wrapped.ok()) << wrapped.error().message;
  EXPECT_EQ(Code(hsm_->UnwrapKey(*owner_, s_, pkcs, pub_, *wrapped, AesTemplate())),
            CKR_UNWRAPPING_KEY_TYPE_INCONSISTENT);
  // An AES key is no RSA wrapping key.
  EXPECT_EQ(Code(hsm_->WrapKey(*owner_, s_, pkcs, aes, aes)), CKR_WRAPPING_KEY_TYPE_INCONSISTENT);
  // Unwrapping into a private key is refused before any decryption.
  EXPECT_EQ(Code(hsm_->UnwrapKey(
                *owner_, s_, pkcs, priv_, *wrapped,
                {{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)}, {CKA_KEY_TYPE, UlongBytes(CKK_RSA)}})),
            CKR_TEMPLATE_INCONSISTENT);
  // A key too long for one block: 2048-bit RSA with OAEP-SHA-512 takes at
  // most 256 - 2 * 64 - 2 = 126 bytes.
  const CK_OBJECT_HANDLE long_secret = SecretKey(CKK_GENERIC_SECRET, Bytes(127, 1));
  EXPECT_EQ(
      Code(hsm_->WrapKey(*owner_, s_, Oaep(CKM_SHA512, CKG_MGF1_SHA512, {}), pub_, long_secret)),
      CKR_KEY_SIZE_RANGE);
}

// Bleichenbacher's attack needs an oracle that tells a PKCS#1 v1.5 padding
// failure from any later failure. Here every failure after the RSA
// decryption has the padding failure's code and message; template errors
// that do not depend on the plaintext come before the decryption, the same
// for every ciphertext.
TEST_F(HsmRsaWrapTest, FailuresAfterDecryptionLookLikePaddingFailures) {
  const Mechanism pkcs{CKM_RSA_PKCS};
  auto aes_wrapped = hsm_->WrapKey(*owner_, s_, pkcs, pub_, SecretKey(CKK_AES, Bytes(16, 3)));
  ASSERT_TRUE(aes_wrapped.ok());
  Bytes tampered = *aes_wrapped;
  tampered[100] ^= 0x40;
  auto padding = hsm_->UnwrapKey(*owner_, s_, pkcs, priv_, tampered, AesTemplate());
  ASSERT_FALSE(padding.ok());
  EXPECT_EQ(padding.error().code, CKR_WRAPPED_KEY_INVALID);

  // Good padding around 5 bytes, which no AES key has.
  auto short_wrapped =
      hsm_->WrapKey(*owner_, s_, pkcs, pub_, SecretKey(CKK_GENERIC_SECRET, Bytes(5, 9)));
  ASSERT_TRUE(short_wrapped.ok()) << short_wrapped.error().message;
  auto bad_length = hsm_->UnwrapKey(*owner_, s_, pkcs, priv_, *short_wrapped, AesTemplate());
  ASSERT_FALSE(bad_length.ok());
  EXPECT_EQ(bad_length.error().code, padding.error().code);
  EXPECT_EQ(bad_length.error().message, padding.error().message);
  // The same 5 bytes as a generic secret unwrap fine.
  Template generic = AesTemplate();
  generic[1].value = UlongBytes(CKK_GENERIC_SECRET);
  auto five = hsm_->UnwrapKey(*owner_, s_, pkcs, priv_, *short_wrapped, generic);
  ASSERT_TRUE(five.ok()) << five.error().message;
  EXPECT_EQ(Value(*five), Bytes(5, 9));

  // A token key from a read-only session fails the same way for a good and
  // a tampered ciphertext: the check comes first.
  const CK_SESSION_HANDLE ro = Session(*owner_, kRo);  // the user is logged in already
  Template token = AesTemplate();
  token.push_back({CKA_TOKEN, BoolBytes(true)});
  for (const Bytes* blob : {&*aes_wrapped, &tampered}) {
    EXPECT_EQ(Code(hsm_->UnwrapKey(*owner_, ro, pkcs, priv_, *blob, token)), CKR_SESSION_READ_ONLY);
  }
  // A ciphertext that is not the modulus length says so.
  EXPECT_EQ(Code(hsm_->UnwrapKey(*owner_, s_, pkcs, priv_, Bytes(255, 1), AesTemplate())),
            CKR_WRAPPED_KEY_LEN_RANGE);
}

Mechanism RsaAes(CK_ULONG aes_bits, CK_MECHANISM_TYPE hash, CK_RSA_PKCS_MGF_TYPE mgf) {
  Mechanism m{CKM_RSA_AES_KEY_WRAP};
  m.rsa_aes = RsaAesWrapParams{aes_bits, OaepParams{hash, mgf, CKZ_DATA_SPECIFIED, {}}};
  return m;
}

TEST_F(HsmRsaWrapTest, RsaAesWrapsAPrivateKeyThatStillSigns) {
  auto ec = hsm_->GenerateKeyPair(
      *owner_, s_, Mechanism{CKM_EC_KEY_PAIR_GEN},
      {{CKA_EC_PARAMS, FromHex("06082a8648ce3d030107").value()}, {CKA_VERIFY, BoolBytes(true)}},
      {{CKA_SIGN, BoolBytes(true)},
       {CKA_SENSITIVE, BoolBytes(false)},
       {CKA_EXTRACTABLE, BoolBytes(true)}});
  ASSERT_TRUE(ec.ok()) << ec.error().message;
  const Mechanism m = RsaAes(256, CKM_SHA256, CKG_MGF1_SHA256);
  auto wrapped = hsm_->WrapKey(*owner_, s_, m, pub_, ec->second);
  ASSERT_TRUE(wrapped.ok()) << wrapped.error().message;
  EXPECT_GT(wrapped->size(), 256u + 100u);  // RSA block, then the wrapped PKCS#8
  // The key type comes from the PKCS#8.
  auto priv =
      hsm_->UnwrapKey(*owner_, s_, m, priv_, *wrapped,
                      {{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)}, {CKA_SIGN, BoolBytes(true)}});
  ASSERT_TRUE(priv.ok()) << priv.error().message;
  Mechanism ecdsa{CKM_ECDSA_SHA256};
  auto sig = hsm_->Sign(*owner_, s_, *priv, ecdsa, AsBytes("moved under RSA-AES"));
  ASSERT_TRUE(sig.ok()) << sig.error().message;
  EXPECT_TRUE(
      hsm_->Verify(*owner_, s_, ec->first, ecdsa, AsBytes("moved under RSA-AES"), *sig).ok());
  // A sensitive key (the RSA private key: sensitive by default) does not
  // wrap under a public key, whose value everyone knows (docs/PKCS11.md
  // "Key-management policy").
  EXPECT_EQ(Code(hsm_->WrapKey(*owner_, s_, m, pub_, priv_)), CKR_KEY_NOT_WRAPPABLE);
  // A secret key of any length, with a 128-bit AES key and SHA-1.
  const CK_OBJECT_HANDLE generic = SecretKey(CKK_GENERIC_SECRET, Bytes(300, 0x61));
  const Mechanism sha1 = RsaAes(128, CKM_SHA_1, CKG_MGF1_SHA1);
  auto secret_wrapped = hsm_->WrapKey(*owner_, s_, sha1, pub_, generic);
  ASSERT_TRUE(secret_wrapped.ok()) << secret_wrapped.error().message;
  Template generic_template = AesTemplate();
  generic_template[1].value = UlongBytes(CKK_GENERIC_SECRET);
  auto back = hsm_->UnwrapKey(*owner_, s_, sha1, priv_, *secret_wrapped, generic_template);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(Value(*back), Bytes(300, 0x61));
  // Unwrapped with other parameters, it is no key.
  EXPECT_EQ(Code(hsm_->UnwrapKey(*owner_, s_, RsaAes(128, CKM_SHA256, CKG_MGF1_SHA256), priv_,
                                 *secret_wrapped, generic_template)),
            CKR_WRAPPED_KEY_INVALID);
  EXPECT_EQ(Code(hsm_->UnwrapKey(*owner_, s_, RsaAes(256, CKM_SHA_1, CKG_MGF1_SHA1), priv_,
                                 *secret_wrapped, generic_template)),
            CKR_WRAPPED_KEY_INVALID);
}

TEST_F(HsmRsaWrapTest, RsaAesParametersAreChecked) {
  const CK_OBJECT_HANDLE aes = SecretKey(CKK_AES, Bytes(16, 5));
  EXPECT_EQ(Code(hsm_->WrapKey(*owner_, s_, Mechanism{CKM_RSA_AES_KEY_WRAP}, pub_, aes)),
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(Code(hsm_->WrapKey(*owner_, s_, RsaAes(64, CKM_SHA_1, CKG_MGF1_SHA1), pub_, aes)),
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(Code(hsm_->WrapKey(*owner_, s_, RsaAes(256, CKM_MD5, CKG_MGF1_SHA1), pub_, aes)),
            CKR_MECHANISM_PARAM_INVALID);
  // Too short to hold an RSA block and an RFC 5649 wrap.
  EXPECT_EQ(Code(hsm_->UnwrapKey(*owner_, s_, RsaAes(256, CKM_SHA_1, CKG_MGF1_SHA1), priv_,
                                 Bytes(256, 1), AesTemplate())),
            CKR_WRAPPED_KEY_LEN_RANGE);
}

// CKM_RSA_X_509 signs through the Hsm as raw RSA of the zero-padded input
// (crypto_rsa_encrypt_test checks it against openssl pkeyutl), under
// CKA_SIGN / CKA_VERIFY like any signature.
TEST_F(HsmRsaWrapTest, RawRsaSignsAndVerifies) {
  const Mechanism raw{CKM_RSA_X_509};
  auto sig = hsm_->Sign(*owner_, s_, priv_, raw, AsBytes("short input"));
  ASSERT_TRUE(sig.ok()) << sig.error().message;
  EXPECT_EQ(sig->size(), 256u);
  EXPECT_EQ(Code(hsm_->Verify(*owner_, s_, priv_, raw, AsBytes("short input"), *sig)), CKR_OK);
  // Leading zeros do not change raw RSA's input.
  Bytes padded = {0, 0, 0};
  padded.insert(padded.end(), AsBytes("short input").begin(), AsBytes("short input").end());
  auto same = hsm_->Sign(*owner_, s_, priv_, raw, padded);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, *sig);
  EXPECT_EQ(Code(hsm_->Verify(*owner_, s_, priv_, raw, AsBytes("other input"), *sig)),
            CKR_SIGNATURE_INVALID);
  EXPECT_EQ(Code(hsm_->Sign(*owner_, s_, priv_, raw, Bytes(257, 1))), CKR_DATA_LEN_RANGE);
  // The public key verifies it too.
  EXPECT_EQ(Code(hsm_->Verify(*owner_, s_, pub_, raw, AsBytes("short input"), *sig)), CKR_OK);
}

}  // namespace
}  // namespace signet::core
