// Hsm's AES block modes and key wraps against published known answers
// (NIST SP 800-38A, RFC 3394): the mechanism table, core's binding and
// crypto/ together, without sockets.
#include <gtest/gtest.h>

#include "base/hex.h"
#include "core/hsm_fixture_test_util.h"

namespace signet::core {
namespace {

// Unhex: a test vector's bytes (the vectors below are well-formed hex).
Bytes Unhex(std::string_view hex) { return FromHex(hex).value(); }

// The four plaintext blocks of SP 800-38A appendix F.
constexpr const char* kSp800Plain =
    "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
    "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";

class HsmCipherTest : public HsmFixture {
 protected:
  void SetUp() override {
    HsmFixture::SetUp();
    s_ = LoggedIn(*owner_);
  }

  // AesKey imports a session AES key with a known value; it encrypts and
  // decrypts unless `extra` asks for the wrapping role (key_policy.h).
  CK_OBJECT_HANDLE AesKey(const Bytes& value, Template extra = {}) {
    Template t = {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                  {CKA_KEY_TYPE, UlongBytes(CKK_AES)},
                  {CKA_VALUE, value}};
    t.insert(t.end(), extra.begin(), extra.end());
    auto h = hsm_->CreateObject(*owner_, s_, t);
    EXPECT_TRUE(h.ok()) << h.error().message;
    return h.ok() ? *h : 0;
  }

  Bytes Value(CK_OBJECT_HANDLE key) {
    CK_RV overall = CKR_OK;
    auto got = hsm_->GetAttributeValue(*owner_, s_, key, {CKA_VALUE}, &overall);
    EXPECT_TRUE(got.ok() && overall == CKR_OK);
    return got.ok() ? (*got)[0].value : Bytes{};
  }

  CK_SESSION_HANDLE s_ = 0;
};

Mechanism WithIv(CK_MECHANISM_TYPE type, const char* iv_hex) {
  Mechanism m{type};
  m.raw_params = Unhex(iv_hex);
  return m;
}

TEST_F(HsmCipherTest, Sp800_38aVectorsThroughEncryptAndDecrypt) {
  const CK_OBJECT_HANDLE key = AesKey(Unhex("2b7e151628aed2a6abf7158809cf4f3c"));
  Mechanism ctr{CKM_AES_CTR};
  ctr.ctr = AesCtrParams{128, Unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")};
  const std::pair<Mechanism, const char*> cases[] = {
      {Mechanism{CKM_AES_ECB},
       "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"
       "43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4"},
      {WithIv(CKM_AES_CBC, "000102030405060708090a0b0c0d0e0f"),
       "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
       "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7"},
      {ctr,
       "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
       "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee"},
  };
  const Bytes plain = Unhex(kSp800Plain);
  for (const auto& [m, expected] : cases) {
    SCOPED_TRACE(m.type);
    auto enc = hsm_->Encrypt(*owner_, s_, key, m, plain);
    ASSERT_TRUE(enc.ok()) << enc.error().message;
    EXPECT_EQ(ToHex(*enc), expected);
    auto dec = hsm_->Decrypt(*owner_, s_, key, m, *enc);
    ASSERT_TRUE(dec.ok()) << dec.error().message;
    EXPECT_EQ(*dec, plain);
  }
}

TEST_F(HsmCipherTest, ParametersAreCheckedBeforeTheKey) {
  const CK_OBJECT_HANDLE key = AesKey(Bytes(32, 1));
  const Bytes block(16, 0);
  EXPECT_EQ(Code(hsm_->Encrypt(*owner_, s_, key, WithIv(CKM_AES_CBC, "0001"), block)),
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(Code(hsm_->Encrypt(*owner_, s_, 0xdead, WithIv(CKM_AES_CBC_PAD, "00"), block)),
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(Code(hsm_->Encrypt(*owner_, s_, key, Mechanism{CKM_AES_CTR}, block)),
            CKR_MECHANISM_PARAM_INVALID);
  Mechanism ecb_with_iv = WithIv(CKM_AES_ECB, "000102030405060708090a0b0c0d0e0f");
  EXPECT_EQ(Code(hsm_->Encrypt(*owner_, s_, key, ecb_with_iv, block)), CKR_MECHANISM_PARAM_INVALID);
  // A counter that would wrap is refused, not reused.
  Mechanism ctr{CKM_AES_CTR};
  ctr.ctr = AesCtrParams{8, Bytes(16, 0xff)};
  EXPECT_EQ(Code(hsm_->Encrypt(*owner_, s_, key, ctr, Bytes(17))), CKR_DATA_LEN_RANGE);
  // CBC without padding takes whole blocks only; CBC_PAD any length.
  Mechanism cbc = WithIv(CKM_AES_CBC, "000102030405060708090a0b0c0d0e0f");
  EXPECT_EQ(Code(hsm_->Encrypt(*owner_, s_, key, cbc, Bytes(4096 + 1))), CKR_DATA_LEN_RANGE);
  Mechanism cbc_pad = WithIv(CKM_AES_CBC_PAD, "000102030405060708090a0b0c0d0e0f");
  Bytes message(4096 + 1, 0x33);
  auto enc = hsm_->Encrypt(*owner_, s_, key, cbc_pad, message);
  ASSERT_TRUE(enc.ok());
  EXPECT_EQ(enc->size(), 4096u + 16u);
  EXPECT_EQ(*hsm_->Decrypt(*owner_, s_, key, cbc_pad, *enc), message);
}

TEST_F(HsmCipherTest, Rfc3394WrapOfASecretKeyAndBack) {
  const CK_OBJECT_HANDLE kek = AesKey(Unhex("000102030405060708090a0b0c0d0e0f"),
                                      {{CKA_WRAP, BoolBytes(true)}, {CKA_UNWRAP, BoolBytes(true)}});
  const CK_OBJECT_HANDLE key =
      AesKey(Unhex("00112233445566778899aabbccddeeff"),
             {{CKA_EXTRACTABLE, BoolBytes(true)}, {CKA_SENSITIVE, BoolBytes(false)}});
  auto wrapped = hsm_->WrapKey(*owner_, s_, Mechanism{CKM_AES_KEY_WRAP}, kek, key);
  ASSERT_TRUE(wrapped.ok()) << wrapped.error().message;
  EXPECT_EQ(ToHex(*wrapped), "1fa68b0a8112b447aef34bd8fb5a7b829d3e862371d2cfe5");  // RFC 3394 4.1
  const Template unwrap_template = {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                                    {CKA_KEY_TYPE, UlongBytes(CKK_AES)},
                                    {CKA_SENSITIVE, BoolBytes(false)},
                                    {CKA_EXTRACTABLE, BoolBytes(true)}};
  auto back =
      hsm_->UnwrapKey(*owner_, s_, Mechanism{CKM_AES_KEY_WRAP}, kek, *wrapped, unwrap_template);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(ToHex(Value(*back)), "00112233445566778899aabbccddeeff");
  Bytes tampered = *wrapped;
  tampered[0] ^= 1;
  EXPECT_EQ(Code(hsm_->UnwrapKey(*owner_, s_, Mechanism{CKM_AES_KEY_WRAP}, kek, tampered,
                                 unwrap_template)),
            CKR_WRAPPED_KEY_INVALID);
  // CKM_AES_KEY_WRAP_PAD pads the 16-byte key with 8 bytes of 0x08 first.
  auto padded = hsm_->WrapKey(*owner_, s_, Mechanism{CKM_AES_KEY_WRAP_PAD}, kek, key);
  ASSERT_TRUE(padded.ok()) << padded.error().message;
  EXPECT_EQ(padded->size(), 16u + 8u + 8u);
  auto padded_back =
      hsm_->UnwrapKey(*owner_, s_, Mechanism{CKM_AES_KEY_WRAP_PAD}, kek, *padded, unwrap_template);
  ASSERT_TRUE(padded_back.ok()) << padded_back.error().message;
  EXPECT_EQ(ToHex(Value(*padded_back)), "00112233445566778899aabbccddeeff");
}

TEST_F(HsmCipherTest, CbcPadWrapsAPrivateKeyThatStillSigns) {
  const CK_OBJECT_HANDLE kek =
      AesKey(Bytes(32, 9), {{CKA_WRAP, BoolBytes(true)}, {CKA_UNWRAP, BoolBytes(true)}});
  auto pair = hsm_->GenerateKeyPair(
      *owner_, s_, Mechanism{CKM_EC_KEY_PAIR_GEN},
      {{CKA_EC_PARAMS, Unhex("06082a8648ce3d030107")}, {CKA_VERIFY, BoolBytes(true)}},
      // Not sensitive: an imported key (the KEK here) wraps no sensitive key.
      {{CKA_SIGN, BoolBytes(true)},
       {CKA_EXTRACTABLE, BoolBytes(true)},
       {CKA_SENSITIVE, BoolBytes(false)}});
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  Mechanism cbc_pad = WithIv(CKM_AES_CBC_PAD, "0f0e0d0c0b0a09080706050403020100");
  auto wrapped = hsm_->WrapKey(*owner_, s_, cbc_pad, kek, pair->second);
  ASSERT_TRUE(wrapped.ok()) << wrapped.error().message;
  EXPECT_EQ(wrapped->size() % 16, 0u);
  auto priv = hsm_->UnwrapKey(*owner_, s_, cbc_pad, kek, *wrapped,
                              {{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)},
                               {CKA_KEY_TYPE, UlongBytes(CKK_EC)},
                               {CKA_SIGN, BoolBytes(true)}});
  ASSERT_TRUE(priv.ok()) << priv.error().message;
  Mechanism ecdsa{CKM_ECDSA_SHA256};
  auto sig = hsm_->Sign(*owner_, s_, *priv, ecdsa, AsBytes("wrapped"));
  ASSERT_TRUE(sig.ok()) << sig.error().message;
  EXPECT_TRUE(hsm_->Verify(*owner_, s_, pair->first, ecdsa, AsBytes("wrapped"), *sig).ok());
  // The wrong IV garbles the first block of the PKCS#8 encoding.
  Mechanism other_iv = WithIv(CKM_AES_CBC_PAD, "00000000000000000000000000000000");
  EXPECT_NE(Code(hsm_->UnwrapKey(
                *owner_, s_, other_iv, kek, *wrapped,
                {{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)}, {CKA_KEY_TYPE, UlongBytes(CKK_EC)}})),
            CKR_OK);
}

}  // namespace
}  // namespace signet::core
