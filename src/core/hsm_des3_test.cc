// Hsm's triple DES: CKM_DES2_KEY_GEN / CKM_DES3_KEY_GEN (odd parity, check
// value, no CKA_VALUE_LEN), imported DES2 and DES3 keys, CKM_DES3_ECB /
// CBC / CBC_PAD against NIST SP 800-67's known answer, as ciphers and as key
// wraps, and CKM_DES3_CMAC against NIST SP 800-38B's, through the mechanism
// table, core's binding and crypto/. Then single DES (CKK_DES, CKM_DES_*):
// refused until OpenSSL's legacy provider is loaded, then FIPS 81's known
// answers, key generation, and no wrapping with it.
#include <gtest/gtest.h>

#include <bit>

#include "base/hex.h"
#include "core/hsm_fixture_test_util.h"
#include "core/mechanisms.h"
#include "crypto/aes_modes.h"
#include "crypto/legacy_provider.h"

namespace signet::core {
namespace {

Bytes Unhex(std::string_view hex) { return FromHex(hex).value(); }

// NIST SP 800-67 Rev. 1 appendix B.
constexpr const char* kSp800_67Key = "0123456789abcdef23456789abcdef01456789abcdef0123";
constexpr const char* kSp800_67Plain = "54686520717566636b2062726f776e20666f78206a756d70";
constexpr const char* kSp800_67Cipher = "a826fd8ce53b855fcce21c8112256fe668d5c05dd9b6b900";

Mechanism WithIv(CK_MECHANISM_TYPE type, Bytes iv) {
  Mechanism m{type};
  m.raw_params = std::move(iv);
  return m;
}

class HsmDes3Test : public HsmFixture {
 protected:
  void SetUp() override {
    HsmFixture::SetUp();
    s_ = LoggedIn(*owner_);
  }

  Result<CK_OBJECT_HANDLE> Import(CK_KEY_TYPE type, const Bytes& value,
                                  Template roles = {{CKA_ENCRYPT, BoolBytes(true)},
                                                    {CKA_DECRYPT, BoolBytes(true)}}) {
    Template t = {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                  {CKA_KEY_TYPE, UlongBytes(type)},
                  {CKA_VALUE, value}};
    t.insert(t.end(), roles.begin(), roles.end());
    return hsm_->CreateObject(*owner_, s_, t);
  }

  // Kek imports a triple-DES key that wraps and unwraps keys.
  CK_OBJECT_HANDLE Kek(CK_KEY_TYPE type, const Bytes& value) {
    auto h = Import(type, value, {{CKA_WRAP, BoolBytes(true)}, {CKA_UNWRAP, BoolBytes(true)}});
    EXPECT_TRUE(h.ok()) << h.error().message;
    return h.ok() ? *h : 0;
  }

  // Extractable imports a non-sensitive, extractable secret key to wrap.
  CK_OBJECT_HANDLE Extractable(CK_KEY_TYPE type, const Bytes& value) {
    auto h = Import(type, value,
                    {{CKA_SENSITIVE, BoolBytes(false)}, {CKA_EXTRACTABLE, BoolBytes(true)}});
    EXPECT_TRUE(h.ok()) << h.error().message;
    return h.ok() ? *h : 0;
  }

  CK_OBJECT_HANDLE Key(CK_KEY_TYPE type, const Bytes& value) {
    auto h = Import(type, value);
    EXPECT_TRUE(h.ok()) << h.error().message;
    return h.ok() ? *h : 0;
  }

  Result<Bytes> Attribute(CK_OBJECT_HANDLE key, CK_ATTRIBUTE_TYPE type) {
    CK_RV overall = CKR_OK;
    auto got = hsm_->GetAttributeValue(*owner_, s_, key, {type}, &overall);
    if (!got.ok()) return std::move(got).error();
    if (overall != CKR_OK) return MakeError(overall, "attribute");
    return (*got)[0].value;
  }

  CK_SESSION_HANDLE s_ = 0;
};

TEST_F(HsmDes3Test, EcbMatchesSp800_67AndCbcModesRoundTrip) {
  const CK_OBJECT_HANDLE key = Key(CKK_DES3, Unhex(kSp800_67Key));
  const Bytes plain = Unhex(kSp800_67Plain);
  auto enc = hsm_->Encrypt(*owner_, s_, key, Mechanism{CKM_DES3_ECB}, plain);
  ASSERT_TRUE(enc.ok()) << enc.error().message;
  EXPECT_EQ(ToHex(*enc), kSp800_67Cipher);
  auto dec = hsm_->Decrypt(*owner_, s_, key, Mechanism{CKM_DES3_ECB}, *enc);
  ASSERT_TRUE(dec.ok()) << dec.error().message;
  EXPECT_EQ(*dec, plain);
  // CBC with a zero IV: the first block equals ECB's.
  const Mechanism cbc = WithIv(CKM_DES3_CBC, Bytes(8, 0));
  auto cbc_enc = hsm_->Encrypt(*owner_, s_, key, cbc, plain);
  ASSERT_TRUE(cbc_enc.ok()) << cbc_enc.error().message;
  EXPECT_EQ(ToHex(ByteView(*cbc_enc).first(8)), std::string(kSp800_67Cipher).substr(0, 16));
  auto cbc_dec = hsm_->Decrypt(*owner_, s_, key, cbc, *cbc_enc);
  ASSERT_TRUE(cbc_dec.ok());
  EXPECT_EQ(*cbc_dec, plain);
  // CBC_PAD adds a whole block of padding to aligned input.
  const Mechanism pad = WithIv(CKM_DES3_CBC_PAD, Unhex("0102030405060708"));
  auto pad_enc = hsm_->Encrypt(*owner_, s_, key, pad, plain);
  ASSERT_TRUE(pad_enc.ok());
  EXPECT_EQ(pad_enc->size(), plain.size() + 8);
  auto pad_dec = hsm_->Decrypt(*owner_, s_, key, pad, *pad_enc);
  ASSERT_TRUE(pad_dec.ok());
  EXPECT_EQ(*pad_dec, plain);
}

TEST_F(HsmDes3Test, TwoKeyKeysWorkAsK1K2K1) {
  const Bytes k12 = Unhex(std::string(kSp800_67Key).substr(0, 32));
  Bytes k121 = k12;
  k121.insert(k121.end(), k12.begin(), k12.begin() + 8);
  const CK_OBJECT_HANDLE des2 = Key(CKK_DES2, k12);
  const CK_OBJECT_HANDLE des3 = Key(CKK_DES3, k121);
  const Bytes plain = Unhex(kSp800_67Plain);
  auto a = hsm_->Encrypt(*owner_, s_, des2, Mechanism{CKM_DES3_ECB}, plain);
  auto b = hsm_->Encrypt(*owner_, s_, des3, Mechanism{CKM_DES3_ECB}, plain);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
}

TEST_F(HsmDes3Test, ParametersKeysAndLengthsAreChecked) {
  const CK_OBJECT_HANDLE key = Key(CKK_DES3, Unhex(kSp800_67Key));
  const Bytes block(8, 1);
  EXPECT_EQ(Code(hsm_->Encrypt(*owner_, s_, key, WithIv(CKM_DES3_CBC, Bytes(16, 0)), block)),
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(Code(hsm_->Encrypt(*owner_, s_, key, Mechanism{CKM_DES3_CBC}, block)),
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(Code(hsm_->Encrypt(*owner_, s_, key, WithIv(CKM_DES3_ECB, Bytes(8, 0)), block)),
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(Code(hsm_->Encrypt(*owner_, s_, key, Mechanism{CKM_DES3_ECB}, Bytes(12, 1))),
            CKR_DATA_LEN_RANGE);
  EXPECT_EQ(
      Code(hsm_->Decrypt(*owner_, s_, key, WithIv(CKM_DES3_CBC_PAD, Bytes(8, 0)), Bytes(12, 1))),
      CKR_ENCRYPTED_DATA_LEN_RANGE);
  const CK_OBJECT_HANDLE aes = Key(CKK_AES, Bytes(24, 3));
  EXPECT_EQ(Code(hsm_->Encrypt(*owner_, s_, aes, Mechanism{CKM_DES3_ECB}, block)),
            CKR_KEY_TYPE_INCONSISTENT);
  EXPECT_EQ(Code(hsm_->Encrypt(*owner_, s_, key, Mechanism{CKM_AES_ECB}, Bytes(16, 1))),
            CKR_KEY_TYPE_INCONSISTENT);
  EXPECT_EQ(Code(Import(CKK_DES3, Bytes(16, 1))), CKR_ATTRIBUTE_VALUE_INVALID);
  EXPECT_EQ(Code(Import(CKK_DES2, Bytes(24, 1))), CKR_ATTRIBUTE_VALUE_INVALID);
  // Triple-DES keys have no CKA_VALUE_LEN: the type fixes the length.
  EXPECT_EQ(Code(Attribute(key, CKA_VALUE_LEN)), CKR_ATTRIBUTE_TYPE_INVALID);
}

TEST_F(HsmDes3Test, KeyGenerationSetsParityAndCheckValue) {
  for (const auto& [mechanism, type, length] :
       {std::tuple{CKM_DES2_KEY_GEN, CKK_DES2, 16u}, std::tuple{CKM_DES3_KEY_GEN, CKK_DES3, 24u}}) {
    SCOPED_TRACE(mechanism);
    auto key = hsm_->GenerateKey(*owner_, s_, Mechanism{mechanism},
                                 {{CKA_SENSITIVE, BoolBytes(false)},
                                  {CKA_EXTRACTABLE, BoolBytes(true)},
                                  {CKA_ENCRYPT, BoolBytes(true)}});
    ASSERT_TRUE(key.ok()) << key.error().message;
    EXPECT_EQ(*Attribute(*key, CKA_KEY_TYPE), UlongBytes(type));
    EXPECT_EQ(*Attribute(*key, CKA_KEY_GEN_MECHANISM), UlongBytes(mechanism));
    const Bytes value = *Attribute(*key, CKA_VALUE);
    ASSERT_EQ(value.size(), length);
    for (std::uint8_t byte : value) EXPECT_EQ(std::popcount(byte) % 2, 1) << int(byte);
    EXPECT_NE(Bytes(value.begin(), value.begin() + 8),
              Bytes(value.begin() + 8, value.begin() + 16));
    // The check value: ECB of a zero block, first three bytes.
    auto block = crypto::BlockEncrypt(crypto::BlockCipher::kDes, crypto::BlockMode::kEcb, value, {},
                                      Bytes(8, 0));
    ASSERT_TRUE(block.ok());
    EXPECT_EQ(*Attribute(*key, CKA_CHECK_VALUE), Bytes(block->begin(), block->begin() + 3));
    // A template may not ask for a length: the type has one.
    EXPECT_EQ(Code(hsm_->GenerateKey(*owner_, s_, Mechanism{mechanism},
                                     {{CKA_VALUE_LEN, UlongBytes(length)}})),
              CKR_TEMPLATE_INCONSISTENT);
  }
  // The check value of an imported key is computed the same way.
  const CK_OBJECT_HANDLE imported = Key(CKK_DES3, Unhex(kSp800_67Key));
  auto zero = crypto::BlockEncrypt(crypto::BlockCipher::kDes, crypto::BlockMode::kEcb,
                                   Unhex(kSp800_67Key), {}, Bytes(8, 0));
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(*Attribute(imported, CKA_CHECK_VALUE), Bytes(zero->begin(), zero->begin() + 3));
}

// Secret-key template of `type` for C_UnwrapKey, plus `extra`.
Template UnwrapTemplate(CK_KEY_TYPE type, Template extra = {}) {
  Template t = {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                {CKA_KEY_TYPE, UlongBytes(type)},
                {CKA_SENSITIVE, BoolBytes(false)},
                {CKA_EXTRACTABLE, BoolBytes(true)}};
  t.insert(t.end(), extra.begin(), extra.end());
  return t;
}

TEST_F(HsmDes3Test, EcbWrapOfAKeyIsSp800_67sCiphertext) {
  // SP 800-67's plaintext taken for a triple-DES key's value (parity is not
  // checked): wrapped under its key with ECB it is the published ciphertext.
  const CK_OBJECT_HANDLE kek = Kek(CKK_DES3, Unhex(kSp800_67Key));
  const CK_OBJECT_HANDLE key = Extractable(CKK_DES3, Unhex(kSp800_67Plain));
  auto wrapped = hsm_->WrapKey(*owner_, s_, Mechanism{CKM_DES3_ECB}, kek, key);
  ASSERT_TRUE(wrapped.ok()) << wrapped.error().message;
  EXPECT_EQ(ToHex(*wrapped), kSp800_67Cipher);
  auto back = hsm_->UnwrapKey(*owner_, s_, Mechanism{CKM_DES3_ECB}, kek, *wrapped,
                              UnwrapTemplate(CKK_DES3));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(ToHex(*Attribute(*back, CKA_VALUE)), kSp800_67Plain);
  // A two-key KEK wraps too (the rows' second key type).
  const Bytes k12 = Unhex(std::string(kSp800_67Key).substr(0, 32));
  EXPECT_TRUE(hsm_->WrapKey(*owner_, s_, Mechanism{CKM_DES3_ECB}, Kek(CKK_DES2, k12), key).ok());
}

TEST_F(HsmDes3Test, EcbAndCbcPadWithZerosAndCutToTheTemplatesLength) {
  const CK_OBJECT_HANDLE kek = Kek(CKK_DES3, Unhex(kSp800_67Key));
  const Bytes secret(20, 0x5c);
  const CK_OBJECT_HANDLE key = Extractable(CKK_GENERIC_SECRET, secret);
  const Mechanism cbc = WithIv(CKM_DES3_CBC, Unhex("0001020304050607"));
  auto wrapped = hsm_->WrapKey(*owner_, s_, cbc, kek, key);
  ASSERT_TRUE(wrapped.ok()) << wrapped.error().message;
  ASSERT_EQ(wrapped->size(), 24u);  // 20 bytes and 4 of zero padding
  // The data the wrap encrypted: the value and four zero bytes.
  const CK_OBJECT_HANDLE data_key = Key(CKK_DES3, Unhex(kSp800_67Key));
  Bytes padded = secret;
  padded.resize(24, 0);
  EXPECT_EQ(*hsm_->Encrypt(*owner_, s_, data_key, cbc, padded), *wrapped);
  auto cut = hsm_->UnwrapKey(*owner_, s_, cbc, kek, *wrapped,
                             UnwrapTemplate(CKK_GENERIC_SECRET, {{CKA_VALUE_LEN, UlongBytes(20)}}));
  ASSERT_TRUE(cut.ok()) << cut.error().message;
  EXPECT_EQ(*Attribute(*cut, CKA_VALUE), secret);
  // Without a length the padding stays.
  auto whole = hsm_->UnwrapKey(*owner_, s_, cbc, kek, *wrapped, UnwrapTemplate(CKK_GENERIC_SECRET));
  ASSERT_TRUE(whole.ok()) << whole.error().message;
  EXPECT_EQ(*Attribute(*whole, CKA_VALUE), padded);
  EXPECT_EQ(
      Code(hsm_->UnwrapKey(*owner_, s_, cbc, kek, *wrapped,
                           UnwrapTemplate(CKK_GENERIC_SECRET, {{CKA_VALUE_LEN, UlongBytes(25)}}))),
      CKR_TEMPLATE_INCONSISTENT);
  // Zero padding cannot be taken off a PKCS#8 key: ECB and CBC wrap secret
  // keys only, CBC_PAD private keys too.
  auto pair = hsm_->GenerateKeyPair(
      *owner_, s_, Mechanism{CKM_EC_KEY_PAIR_GEN},
      {{CKA_EC_PARAMS, Unhex("06082a8648ce3d030107")}, {CKA_VERIFY, BoolBytes(true)}},
      {{CKA_SIGN, BoolBytes(true)},
       {CKA_SENSITIVE, BoolBytes(false)},
       {CKA_EXTRACTABLE, BoolBytes(true)}});
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  EXPECT_EQ(Code(hsm_->WrapKey(*owner_, s_, Mechanism{CKM_DES3_ECB}, kek, pair->second)),
            CKR_KEY_NOT_WRAPPABLE);
  const Mechanism pad = WithIv(CKM_DES3_CBC_PAD, Unhex("0706050403020100"));
  auto wrapped_priv = hsm_->WrapKey(*owner_, s_, pad, kek, pair->second);
  ASSERT_TRUE(wrapped_priv.ok()) << wrapped_priv.error().message;
  EXPECT_EQ(wrapped_priv->size() % 8, 0u);
  auto priv = hsm_->UnwrapKey(*owner_, s_, pad, kek, *wrapped_priv,
                              {{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)},
                               {CKA_KEY_TYPE, UlongBytes(CKK_EC)},
                               {CKA_SIGN, BoolBytes(true)}});
  ASSERT_TRUE(priv.ok()) << priv.error().message;
  auto sig = hsm_->Sign(*owner_, s_, *priv, Mechanism{CKM_ECDSA_SHA256}, AsBytes("des3"));
  ASSERT_TRUE(sig.ok()) << sig.error().message;
  EXPECT_TRUE(
      hsm_->Verify(*owner_, s_, pair->first, Mechanism{CKM_ECDSA_SHA256}, AsBytes("des3"), *sig)
          .ok());
  // A wrong KEK fails CBC_PAD's padding check (or garbles the PKCS#8).
  const CK_OBJECT_HANDLE other = Kek(CKK_DES3, Bytes(24, 0x13));
  EXPECT_NE(Code(hsm_->UnwrapKey(
                *owner_, s_, pad, other, *wrapped_priv,
                {{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)}, {CKA_KEY_TYPE, UlongBytes(CKK_EC)}})),
            CKR_OK);
}

TEST_F(HsmDes3Test, CmacMatchesSp800_38bThroughSignAndVerify) {
  // NIST SP 800-38B D.4 (three keys) and D.5 (two keys), 20-byte message.
  const Bytes message = Unhex("6bc1bee22e409f96e93d7e117393172aae2d8a57");
  const Template roles = {{CKA_SIGN, BoolBytes(true)}, {CKA_VERIFY, BoolBytes(true)}};
  const std::pair<CK_OBJECT_HANDLE, const char*> cases[] = {
      {*Import(CKK_DES3, Unhex("8aa83bf8cbda10620bc1bf19fbb6cd58bc313d4a371ca8b5"), roles),
       "743ddbe0ce2dc2ed"},
      {*Import(CKK_DES2, Unhex("4cf15134a2850dd58a3d10ba80570d38"), roles), "62dd1b471902bd4e"},
  };
  for (const auto& [key, mac] : cases) {
    SCOPED_TRACE(mac);
    auto got = hsm_->Sign(*owner_, s_, key, Mechanism{CKM_DES3_CMAC}, message);
    ASSERT_TRUE(got.ok()) << got.error().message;
    EXPECT_EQ(ToHex(*got), mac);
    EXPECT_TRUE(hsm_->Verify(*owner_, s_, key, Mechanism{CKM_DES3_CMAC}, message, *got).ok());
    Mechanism general{CKM_DES3_CMAC_GENERAL};
    general.mac_length = 4;
    auto short_mac = hsm_->Sign(*owner_, s_, key, general, message);
    ASSERT_TRUE(short_mac.ok()) << short_mac.error().message;
    EXPECT_EQ(ToHex(*short_mac), std::string(mac).substr(0, 8));
    general.mac_length = 9;  // longer than the DES block
    EXPECT_EQ(Code(hsm_->Sign(*owner_, s_, key, general, message)), CKR_MECHANISM_PARAM_INVALID);
  }
}

// FIPS 81 appendix B: "Now is the time for all " under 0123456789abcdef.
constexpr const char* kFips81Key = "0123456789abcdef";
constexpr const char* kFips81Iv = "1234567890abcdef";
constexpr const char* kFips81Plain = "4e6f77206973207468652074696d6520666f7220616c6c20";

// Each test is its own process (ctest runs them one by one), so the first
// sees the provider unloaded whatever order they run in.
TEST_F(HsmDes3Test, SingleDesIsRefusedWithoutTheLegacyProvider) {
  ASSERT_FALSE(crypto::LegacyProviderLoaded());
  EXPECT_FALSE(Offered(*FindMechanismRow(CKM_DES_CBC)));
  EXPECT_TRUE(Offered(*FindMechanismRow(CKM_DES3_CBC)));
  EXPECT_EQ(Code(hsm_->GenerateKey(*owner_, s_, Mechanism{CKM_DES_KEY_GEN}, {})),
            CKR_MECHANISM_INVALID);
  EXPECT_EQ(Code(hsm_->Encrypt(*owner_, s_, Key(CKK_DES3, Unhex(kSp800_67Key)),
                               Mechanism{CKM_DES_ECB}, Unhex(kFips81Plain))),
            CKR_MECHANISM_INVALID);
}

TEST_F(HsmDes3Test, SingleDesGivesFips81sAnswersAndKeysOfItsOwnType) {
  ASSERT_TRUE(crypto::LoadLegacyProvider().ok());
  EXPECT_TRUE(Offered(*FindMechanismRow(CKM_DES_CBC)));
  const CK_OBJECT_HANDLE key = Key(CKK_DES, Unhex(kFips81Key));
  auto ecb = hsm_->Encrypt(*owner_, s_, key, Mechanism{CKM_DES_ECB}, Unhex(kFips81Plain));
  ASSERT_TRUE(ecb.ok()) << ecb.error().message;
  EXPECT_EQ(ToHex(*ecb), "3fa40e8a984d48156a271787ab8883f9893d51ec4b563b53");
  const Mechanism cbc = WithIv(CKM_DES_CBC, Unhex(kFips81Iv));
  auto enc = hsm_->Encrypt(*owner_, s_, key, cbc, Unhex(kFips81Plain));
  ASSERT_TRUE(enc.ok()) << enc.error().message;
  EXPECT_EQ(ToHex(*enc), "e5c7cdde872bf27c43e934008c389c0f683788499a7c05f6");
  auto dec =
      hsm_->Decrypt(*owner_, s_, key, WithIv(CKM_DES_CBC_PAD, Unhex(kFips81Iv)),
                    *hsm_->Encrypt(*owner_, s_, key, WithIv(CKM_DES_CBC_PAD, Unhex(kFips81Iv)),
                                   Unhex(kFips81Plain)));
  ASSERT_TRUE(dec.ok()) << dec.error().message;
  EXPECT_EQ(ToHex(*dec), kFips81Plain);
  // An 8-byte key only, and a DES key only: no triple-DES key with single
  // DES, no single-DES key with triple DES.
  EXPECT_EQ(Code(Import(CKK_DES, Unhex(kSp800_67Key))), CKR_ATTRIBUTE_VALUE_INVALID);
  EXPECT_EQ(Code(hsm_->Encrypt(*owner_, s_, Key(CKK_DES3, Unhex(kSp800_67Key)),
                               Mechanism{CKM_DES_ECB}, Unhex(kFips81Plain))),
            CKR_KEY_TYPE_INCONSISTENT);
  EXPECT_EQ(Code(hsm_->Encrypt(*owner_, s_, key, Mechanism{CKM_DES3_ECB}, Unhex(kFips81Plain))),
            CKR_KEY_TYPE_INCONSISTENT);
  // CKM_DES_KEY_GEN: odd parity, the FIPS 81 check value rule.
  auto made = hsm_->GenerateKey(*owner_, s_, Mechanism{CKM_DES_KEY_GEN},
                                {{CKA_SENSITIVE, BoolBytes(false)},
                                 {CKA_EXTRACTABLE, BoolBytes(true)},
                                 {CKA_ENCRYPT, BoolBytes(true)}});
  ASSERT_TRUE(made.ok()) << made.error().message;
  EXPECT_EQ(*Attribute(*made, CKA_KEY_TYPE), UlongBytes(CKK_DES));
  const Bytes value = *Attribute(*made, CKA_VALUE);
  ASSERT_EQ(value.size(), 8u);
  for (std::uint8_t byte : value) EXPECT_EQ(std::popcount(byte) % 2, 1) << int(byte);
  auto zero = crypto::BlockEncrypt(crypto::BlockCipher::kDes, crypto::BlockMode::kEcb, value, {},
                                   Bytes(8, 0));
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(*Attribute(*made, CKA_CHECK_VALUE), Bytes(zero->begin(), zero->begin() + 3));
}

TEST_F(HsmDes3Test, SingleDesNeverWrapsButUnwraps) {
  ASSERT_TRUE(crypto::LoadLegacyProvider().ok());
  const CK_OBJECT_HANDLE kek = Kek(CKK_DES, Unhex(kFips81Key));
  const CK_OBJECT_HANDLE aes = Extractable(CKK_AES, Bytes(16, 0x42));
  EXPECT_EQ(Code(hsm_->WrapKey(*owner_, s_, Mechanism{CKM_DES_ECB}, kek, aes)),
            CKR_MECHANISM_INVALID);
  // FIPS 81's ciphertext unwrapped under its key is the plaintext, as a
  // 24-byte triple-DES key.
  auto back = hsm_->UnwrapKey(*owner_, s_, Mechanism{CKM_DES_ECB}, kek,
                              Unhex("3fa40e8a984d48156a271787ab8883f9893d51ec4b563b53"),
                              UnwrapTemplate(CKK_DES3));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(ToHex(*Attribute(*back, CKA_VALUE)), kFips81Plain);
}

}  // namespace
}  // namespace signet::core
