// The published PKCS#11 key-extraction attacks, each played against the Hsm
// as an application with a user login would: none reveals the sensitive
// key's value (key_policy.h, docs/PKCS11.md "Key-management policy").
#include <gtest/gtest.h>

#include "core/hsm_fixture_test_util.h"
#include "crypto/keys.h"

namespace signet::core {
namespace {

class KeyPolicyTest : public HsmFixture {
 protected:
  void SetUp() override {
    HsmFixture::SetUp();
    s_ = LoggedIn(*owner_);
    // The secret every attack is after: sensitive, but extractable (it may
    // leave the token wrapped, as PKCS#11 allows).
    secret_ = Generate({{CKA_SENSITIVE, BoolBytes(true)}, {CKA_EXTRACTABLE, BoolBytes(true)}});
  }

  Result<CK_OBJECT_HANDLE> TryGenerate(Template t) {
    t.push_back({CKA_VALUE_LEN, UlongBytes(32)});
    return hsm_->GenerateKey(*owner_, s_, Mechanism{CKM_AES_KEY_GEN}, t);
  }
  CK_OBJECT_HANDLE Generate(Template t) {
    auto h = TryGenerate(std::move(t));
    EXPECT_TRUE(h.ok()) << h.error().message;
    return h.ok() ? *h : 0;
  }
  // Wrapped: the secret wrapped under `kek` with RFC 3394.
  Result<Bytes> Wrap(CK_OBJECT_HANDLE kek, CK_OBJECT_HANDLE key) {
    return hsm_->WrapKey(*owner_, s_, Mechanism{CKM_AES_KEY_WRAP}, kek, key);
  }
  // ExpectValueHidden: CKA_VALUE of `key` cannot be read.
  void ExpectValueHidden(CK_OBJECT_HANDLE key) {
    CK_RV overall = CKR_OK;
    auto got = hsm_->GetAttributeValue(*owner_, s_, key, {CKA_VALUE}, &overall);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(overall, CKR_ATTRIBUTE_SENSITIVE);
  }

  CK_SESSION_HANDLE s_ = 0;
  CK_OBJECT_HANDLE secret_ = 0;
};

// Clulow 2003, "wrap and decrypt": wrap the secret under a key that can
// also decrypt, then C_Decrypt the wrapped blob with it. No key has both
// roles: not at creation, not by C_SetAttributeValue, not in a copy.
TEST_F(KeyPolicyTest, WrapThenDecryptWithTheSameKey) {
  const Template both = {{CKA_WRAP, BoolBytes(true)}, {CKA_DECRYPT, BoolBytes(true)}};
  EXPECT_EQ(Code(TryGenerate(both)), CKR_TEMPLATE_INCONSISTENT);
  const CK_OBJECT_HANDLE kek = Generate({{CKA_WRAP, BoolBytes(true)}});
  EXPECT_EQ(Code(hsm_->SetAttributeValue(*owner_, s_, kek, {{CKA_DECRYPT, BoolBytes(true)}})),
            CKR_TEMPLATE_INCONSISTENT);
  EXPECT_EQ(Code(hsm_->CopyObject(*owner_, s_, kek, {{CKA_DECRYPT, BoolBytes(true)}})),
            CKR_TEMPLATE_INCONSISTENT);
  auto wrapped = Wrap(kek, secret_);
  ASSERT_TRUE(wrapped.ok()) << wrapped.error().message;
  Mechanism ecb{CKM_AES_ECB};
  EXPECT_EQ(Code(hsm_->Decrypt(*owner_, s_, kek, ecb, *wrapped)), CKR_KEY_FUNCTION_NOT_PERMITTED);
  ExpectValueHidden(secret_);
}

// Delaune, Kremer and Steel 2008: import a key whose value the attacker
// knows, make it a wrapping key, wrap the secret under it and unwrap
// offline. A sensitive key wraps only under a key whose value never left
// the token; non-sensitive keys still wrap under any wrapping key.
TEST_F(KeyPolicyTest, WrapUnderAKeyWhoseValueIsKnown) {
  auto known = hsm_->CreateObject(*owner_, s_,
                                  {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                                   {CKA_KEY_TYPE, UlongBytes(CKK_AES)},
                                   {CKA_VALUE, Bytes(32, 0x42)},
                                   {CKA_WRAP, BoolBytes(true)}});
  ASSERT_TRUE(known.ok()) << known.error().message;
  EXPECT_EQ(Code(Wrap(*known, secret_)), CKR_KEY_NOT_WRAPPABLE);
  // A generated key that left the token once is as known.
  const CK_OBJECT_HANDLE exported =
      Generate({{CKA_WRAP, BoolBytes(true)}, {CKA_EXTRACTABLE, BoolBytes(true)}});
  EXPECT_EQ(Code(Wrap(exported, secret_)), CKR_KEY_NOT_WRAPPABLE);
  const CK_OBJECT_HANDLE plain =
      Generate({{CKA_SENSITIVE, BoolBytes(false)}, {CKA_EXTRACTABLE, BoolBytes(true)}});
  EXPECT_TRUE(Wrap(*known, plain).ok());
  ExpectValueHidden(secret_);
}

// Clulow's attack with a key pair: a private key may decrypt and unwrap
// (as NSS generates them), but the secret never wraps under the public
// half unless the SO trusted it, so there is nothing to decrypt.
TEST_F(KeyPolicyTest, WrapUnderAPublicKeyThenDecryptWithItsPrivateHalf) {
  auto pair =
      hsm_->GenerateKeyPair(*owner_, s_, Mechanism{CKM_RSA_PKCS_KEY_PAIR_GEN},
                            {{CKA_MODULUS_BITS, UlongBytes(1024)},
                             {CKA_ENCRYPT, BoolBytes(true)},
                             {CKA_WRAP, BoolBytes(true)}},
                            {{CKA_DECRYPT, BoolBytes(true)}, {CKA_UNWRAP, BoolBytes(true)}});
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  EXPECT_EQ(Code(hsm_->WrapKey(*owner_, s_, Mechanism{CKM_RSA_PKCS}, pair->first, secret_)),
            CKR_KEY_NOT_WRAPPABLE);
  ExpectValueHidden(secret_);
}

// The same attack through C_DeriveKey: an ECDH-derived key is
// CKA_NEVER_EXTRACTABLE when its base key is, yet the peer whose public
// value went in knows the shared secret. Derived keys wrap no sensitive key.
TEST_F(KeyPolicyTest, WrapUnderADerivedKeyThePeerKnows) {
  auto pair =
      hsm_->GenerateKeyPair(*owner_, s_, Mechanism{CKM_EC_KEY_PAIR_GEN},
                            {{CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)}},
                            {{CKA_DERIVE, BoolBytes(true)}});
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  CK_RV overall = CKR_OK;
  // The attacker's peer key stands in: signet's own public point.
  auto point = hsm_->GetAttributeValue(*owner_, s_, pair->first, {CKA_EC_POINT}, &overall);
  ASSERT_TRUE(point.ok() && overall == CKR_OK);
  Mechanism ecdh{CKM_ECDH1_DERIVE};
  ecdh.ecdh = EcdhParams{CKD_NULL, {}, (*point)[0].value};
  auto derived = hsm_->DeriveKey(*owner_, s_, ecdh, pair->second,
                                 {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                                  {CKA_KEY_TYPE, UlongBytes(CKK_AES)},
                                  {CKA_VALUE_LEN, UlongBytes(32)},
                                  {CKA_WRAP, BoolBytes(true)}});
  ASSERT_TRUE(derived.ok()) << derived.error().message;
  EXPECT_EQ(Code(Wrap(*derived, secret_)), CKR_KEY_NOT_WRAPPABLE);
  ExpectValueHidden(secret_);
}

// The one exception to the roles rule: a readable key (pkcs11-tool
// --derive's template) may hold both, hides nothing, and still never wraps
// the secret; it cannot be made sensitive or unextractable with both roles.
TEST_F(KeyPolicyTest, AReadableKeyMayHoldBothRolesButNeverWrapsASensitiveKey) {
  const Template both = {{CKA_WRAP, BoolBytes(true)},
                         {CKA_DECRYPT, BoolBytes(true)},
                         {CKA_SENSITIVE, BoolBytes(false)},
                         {CKA_EXTRACTABLE, BoolBytes(true)}};
  const CK_OBJECT_HANDLE readable = Generate(both);
  EXPECT_EQ(Code(Wrap(readable, secret_)), CKR_KEY_NOT_WRAPPABLE);
  EXPECT_NE(
      Code(hsm_->SetAttributeValue(*owner_, s_, readable, {{CKA_SENSITIVE, BoolBytes(true)}})),
      CKR_OK);
  EXPECT_NE(
      Code(hsm_->SetAttributeValue(*owner_, s_, readable, {{CKA_EXTRACTABLE, BoolBytes(false)}})),
      CKR_OK);
  EXPECT_NE(Code(hsm_->CopyObject(*owner_, s_, readable, {{CKA_SENSITIVE, BoolBytes(true)}})),
            CKR_OK);
  // Sensitive or unextractable from the start: refused as before.
  for (CK_ATTRIBUTE_TYPE hiding : {CKA_SENSITIVE, CKA_EXTRACTABLE}) {
    Template t = both;
    for (Attribute& a : t) {
      if (a.type == hiding) a.value = BoolBytes(hiding == CKA_SENSITIVE);
    }
    EXPECT_EQ(Code(TryGenerate(t)), CKR_TEMPLATE_INCONSISTENT) << hiding;
  }
  ExpectValueHidden(secret_);
}

// Delaune, Kremer and Steel 2008, "encrypt then unwrap": encrypt a value
// of the attacker's choosing under an unwrapping key and unwrap it, planting
// a wrapping key of known value. An unwrapping key cannot encrypt.
TEST_F(KeyPolicyTest, EncryptAKnownValueThenUnwrapIt) {
  EXPECT_EQ(Code(TryGenerate({{CKA_UNWRAP, BoolBytes(true)}, {CKA_ENCRYPT, BoolBytes(true)}})),
            CKR_TEMPLATE_INCONSISTENT);
  const CK_OBJECT_HANDLE kek = Generate({{CKA_UNWRAP, BoolBytes(true)}});
  Mechanism ecb{CKM_AES_ECB};
  EXPECT_EQ(Code(hsm_->Encrypt(*owner_, s_, kek, ecb, Bytes(32, 0x42))),
            CKR_KEY_FUNCTION_NOT_PERMITTED);
  // Nor does a key of the data role unwrap.
  const CK_OBJECT_HANDLE data_key = Generate({});
  EXPECT_EQ(Code(hsm_->UnwrapKey(
                *owner_, s_, Mechanism{CKM_AES_KEY_WRAP}, data_key, Bytes(40, 1),
                {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)}, {CKA_KEY_TYPE, UlongBytes(CKK_AES)}})),
            CKR_KEY_FUNCTION_NOT_PERMITTED);
}

// Bortolozzo, Centenaro, Focardi and Steel 2010 ("Tookan"), re-import:
// wrap the secret under a legitimate key, unwrap it under the same key as
// a non-sensitive key, read its value. What a key that may wrap sensitive
// keys unwraps is sensitive.
TEST_F(KeyPolicyTest, ReimportAsNonSensitive) {
  const CK_OBJECT_HANDLE kek =
      Generate({{CKA_WRAP, BoolBytes(true)}, {CKA_UNWRAP, BoolBytes(true)}});
  auto wrapped = Wrap(kek, secret_);
  ASSERT_TRUE(wrapped.ok()) << wrapped.error().message;
  Template as = {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                 {CKA_KEY_TYPE, UlongBytes(CKK_AES)},
                 {CKA_SENSITIVE, BoolBytes(false)},
                 {CKA_EXTRACTABLE, BoolBytes(true)}};
  EXPECT_EQ(Code(hsm_->UnwrapKey(*owner_, s_, Mechanism{CKM_AES_KEY_WRAP}, kek, *wrapped, as)),
            CKR_TEMPLATE_INCONSISTENT);
  as.erase(as.begin() + 2);
  auto again = hsm_->UnwrapKey(*owner_, s_, Mechanism{CKM_AES_KEY_WRAP}, kek, *wrapped, as);
  ASSERT_TRUE(again.ok()) << again.error().message;
  ExpectValueHidden(*again);
  // Made sensitive, it cannot go back (CKA_SENSITIVE only ever turns on).
  EXPECT_NE(Code(hsm_->SetAttributeValue(*owner_, s_, *again, {{CKA_SENSITIVE, BoolBytes(false)}})),
            CKR_OK);
  ExpectValueHidden(secret_);
}

// Secret keys get role defaults that satisfy the policy: a plain template
// encrypts and does not wrap; a template that asks to wrap does not encrypt.
TEST_F(KeyPolicyTest, DefaultsGiveOneRole) {
  auto flags = [&](CK_OBJECT_HANDLE key) {
    CK_RV overall = CKR_OK;
    auto got = hsm_->GetAttributeValue(*owner_, s_, key,
                                       {CKA_ENCRYPT, CKA_DECRYPT, CKA_WRAP, CKA_UNWRAP}, &overall);
    std::string out;
    for (const AttributeValue& v : got.value()) out += v.value == BoolBytes(true) ? '1' : '0';
    return out;
  };
  EXPECT_EQ(flags(Generate({})), "1100");
  EXPECT_EQ(flags(Generate({{CKA_WRAP, BoolBytes(true)}})), "0011");
  EXPECT_EQ(flags(Generate({{CKA_UNWRAP, BoolBytes(true)}, {CKA_WRAP, BoolBytes(false)}})), "0001");
}

}  // namespace
}  // namespace signet::core
