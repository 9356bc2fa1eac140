// Hsm's generic secrets and MACs: CKM_GENERIC_SECRET_KEY_GEN, imported
// generic and PKCS#11 3.0 HMAC keys, HMAC and AES-CMAC sign/verify with
// their *_GENERAL lengths, against published known answers (RFC 4231,
// NIST SP 800-38B) through the mechanism table, core's binding and crypto/.
#include <gtest/gtest.h>

#include "base/hex.h"
#include "core/hsm_fixture_test_util.h"
#include "crypto/digest.h"

namespace signet::core {
namespace {

Bytes Unhex(std::string_view hex) { return FromHex(hex).value(); }

// RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
const Bytes kJefe = {'J', 'e', 'f', 'e'};
const Bytes kJefeData = Unhex("7768617420646f2079612077616e7420666f72206e6f7468696e673f");
constexpr const char* kJefeSha256 =
    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";

Mechanism General(CK_MECHANISM_TYPE type, CK_ULONG length) {
  Mechanism m{type};
  m.mac_length = length;
  return m;
}

class HsmMacTest : public HsmFixture {
 protected:
  void SetUp() override {
    HsmFixture::SetUp();
    s_ = LoggedIn(*owner_);
  }

  Result<CK_OBJECT_HANDLE> Import(CK_KEY_TYPE type, const Bytes& value, Template extra = {}) {
    Template t = {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                  {CKA_KEY_TYPE, UlongBytes(type)},
                  {CKA_VALUE, value},
                  {CKA_SIGN, BoolBytes(true)},
                  {CKA_VERIFY, BoolBytes(true)}};
    t.insert(t.end(), extra.begin(), extra.end());
    return hsm_->CreateObject(*owner_, s_, t);
  }

  CK_OBJECT_HANDLE Key(CK_KEY_TYPE type, const Bytes& value, Template extra = {}) {
    auto h = Import(type, value, std::move(extra));
    EXPECT_TRUE(h.ok()) << h.error().message;
    return h.ok() ? *h : 0;
  }

  Bytes Attribute(CK_OBJECT_HANDLE key, CK_ATTRIBUTE_TYPE type) {
    CK_RV overall = CKR_OK;
    auto got = hsm_->GetAttributeValue(*owner_, s_, key, {type}, &overall);
    EXPECT_TRUE(got.ok() && overall == CKR_OK);
    return got.ok() ? (*got)[0].value : Bytes{};
  }

  std::string SignHex(CK_OBJECT_HANDLE key, const Mechanism& m, ByteView data) {
    auto mac = hsm_->Sign(*owner_, s_, key, m, data);
    if (!mac.ok()) return "error " + std::to_string(mac.error().code);
    return ToHex(*mac);
  }

  CK_SESSION_HANDLE s_ = 0;
};

TEST_F(HsmMacTest, HmacOfGenericAndOwnKeyTypesMatchesRfc4231) {
  for (CK_KEY_TYPE type : {CKK_GENERIC_SECRET, CKK_SHA256_HMAC}) {
    SCOPED_TRACE(type);
    const CK_OBJECT_HANDLE key = Key(type, kJefe);
    EXPECT_EQ(SignHex(key, Mechanism{CKM_SHA256_HMAC}, kJefeData), kJefeSha256);
    EXPECT_EQ(Code(hsm_->Verify(*owner_, s_, key, Mechanism{CKM_SHA256_HMAC}, kJefeData,
                                Unhex(kJefeSha256))),
              CKR_OK);
  }
  // RFC 4231 case 2 for the other SHA-2 HMACs and RFC 2202's SHA-1 / MD5.
  const CK_OBJECT_HANDLE generic = Key(CKK_GENERIC_SECRET, kJefe);
  EXPECT_EQ(SignHex(generic, Mechanism{CKM_SHA224_HMAC}, kJefeData),
            "a30e01098bc6dbbf45690f3a7e9e6d0f8bbea2a39e6148008fd05e44");
  EXPECT_EQ(SignHex(generic, Mechanism{CKM_SHA384_HMAC}, kJefeData),
            "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e"
            "8e2240ca5e69e2c78b3239ecfab21649");
  EXPECT_EQ(SignHex(generic, Mechanism{CKM_SHA512_HMAC}, kJefeData),
            "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
            "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737");
  EXPECT_EQ(SignHex(generic, Mechanism{CKM_SHA_1_HMAC}, kJefeData),
            "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79");
  EXPECT_EQ(SignHex(generic, Mechanism{CKM_MD5_HMAC}, kJefeData),
            "750c783e6ab0b503eaa86e310a5db738");
}

TEST_F(HsmMacTest, HmacKeyTypeFitsOnlyItsOwnHash) {
  const CK_OBJECT_HANDLE sha384_key = Key(CKK_SHA384_HMAC, kJefe);
  EXPECT_EQ(SignHex(sha384_key, Mechanism{CKM_SHA256_HMAC}, kJefeData),
            "error " + std::to_string(CKR_KEY_TYPE_INCONSISTENT));
  const CK_OBJECT_HANDLE aes = Key(CKK_AES, Bytes(16, 7));
  EXPECT_EQ(SignHex(aes, Mechanism{CKM_SHA256_HMAC}, kJefeData),
            "error " + std::to_string(CKR_KEY_TYPE_INCONSISTENT));
  const CK_OBJECT_HANDLE generic = Key(CKK_GENERIC_SECRET, Bytes(16, 7));
  EXPECT_EQ(SignHex(generic, Mechanism{CKM_AES_CMAC}, kJefeData),
            "error " + std::to_string(CKR_KEY_TYPE_INCONSISTENT));
}

TEST_F(HsmMacTest, GeneralLengthsTruncateAndAreChecked) {
  const CK_OBJECT_HANDLE key = Key(CKK_GENERIC_SECRET, kJefe);
  // RFC 4231 publishes case 5 truncated to 128 bits; any 1..32 is the prefix.
  for (CK_ULONG length : {1ul, 16ul, 31ul, 32ul}) {
    SCOPED_TRACE(length);
    const std::string mac = SignHex(key, General(CKM_SHA256_HMAC_GENERAL, length), kJefeData);
    EXPECT_EQ(mac, std::string(kJefeSha256).substr(0, 2 * length));
    EXPECT_EQ(Code(hsm_->Verify(*owner_, s_, key, General(CKM_SHA256_HMAC_GENERAL, length),
                                kJefeData, Unhex(mac))),
              CKR_OK);
  }
  for (CK_ULONG length : {0ul, 33ul, 1000ul}) {
    EXPECT_EQ(SignHex(key, General(CKM_SHA256_HMAC_GENERAL, length), kJefeData),
              "error " + std::to_string(CKR_MECHANISM_PARAM_INVALID))
        << length;
  }
  EXPECT_EQ(SignHex(key, Mechanism{CKM_SHA256_HMAC_GENERAL}, kJefeData),
            "error " + std::to_string(CKR_MECHANISM_PARAM_INVALID));
  EXPECT_EQ(SignHex(key, General(CKM_SHA256_HMAC, 16), kJefeData),
            "error " + std::to_string(CKR_MECHANISM_PARAM_INVALID));
}

TEST_F(HsmMacTest, VerifyRefusesWrongLengthsAndWrongMacs) {
  const CK_OBJECT_HANDLE key = Key(CKK_GENERIC_SECRET, kJefe);
  Bytes mac = Unhex(kJefeSha256);
  auto verify = [&](const Mechanism& m, ByteView data, ByteView given) {
    return Code(hsm_->Verify(*owner_, s_, key, m, data, given));
  };
  EXPECT_EQ(verify(Mechanism{CKM_SHA256_HMAC}, kJefeData, ByteView(mac).first(31)),
            CKR_SIGNATURE_LEN_RANGE);
  Bytes longer = mac;
  longer.push_back(0);
  EXPECT_EQ(verify(Mechanism{CKM_SHA256_HMAC}, kJefeData, longer), CKR_SIGNATURE_LEN_RANGE);
  EXPECT_EQ(verify(General(CKM_SHA256_HMAC_GENERAL, 16), kJefeData, mac), CKR_SIGNATURE_LEN_RANGE);
  mac.back() ^= 1;
  EXPECT_EQ(verify(Mechanism{CKM_SHA256_HMAC}, kJefeData, mac), CKR_SIGNATURE_INVALID);
  mac.back() ^= 1;
  Bytes other_data = kJefeData;
  other_data[0] ^= 1;
  EXPECT_EQ(verify(Mechanism{CKM_SHA256_HMAC}, other_data, mac), CKR_SIGNATURE_INVALID);
  EXPECT_EQ(verify(Mechanism{CKM_SHA256_HMAC}, kJefeData, mac), CKR_OK);
}

TEST_F(HsmMacTest, SignAndVerifyNeedTheirUsageFlags) {
  // Secret keys neither sign nor verify unless their template says so.
  auto created = hsm_->CreateObject(*owner_, s_,
                                    {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                                     {CKA_KEY_TYPE, UlongBytes(CKK_GENERIC_SECRET)},
                                     {CKA_VALUE, kJefe}});
  ASSERT_TRUE(created.ok()) << created.error().message;
  const CK_OBJECT_HANDLE key = *created;
  EXPECT_EQ(SignHex(key, Mechanism{CKM_SHA256_HMAC}, kJefeData),
            "error " + std::to_string(CKR_KEY_FUNCTION_NOT_PERMITTED));
  EXPECT_EQ(Code(hsm_->Verify(*owner_, s_, key, Mechanism{CKM_SHA256_HMAC}, kJefeData,
                              Unhex(kJefeSha256))),
            CKR_KEY_FUNCTION_NOT_PERMITTED);
}

TEST_F(HsmMacTest, AesCmacMatchesSp800_38b) {
  const CK_OBJECT_HANDLE key = Key(CKK_AES, Unhex("2b7e151628aed2a6abf7158809cf4f3c"));
  const Bytes block = Unhex("6bc1bee22e409f96e93d7e117393172a");
  EXPECT_EQ(SignHex(key, Mechanism{CKM_AES_CMAC}, block), "070a16b46b4d4144f79bdd9dd04a287c");
  EXPECT_EQ(SignHex(key, Mechanism{CKM_AES_CMAC}, {}), "bb1d6929e95937287fa37d129b756746");
  EXPECT_EQ(SignHex(key, General(CKM_AES_CMAC_GENERAL, 8), block), "070a16b46b4d4144");
  EXPECT_EQ(SignHex(key, General(CKM_AES_CMAC_GENERAL, 17), block),
            "error " + std::to_string(CKR_MECHANISM_PARAM_INVALID));
  EXPECT_EQ(Code(hsm_->Verify(*owner_, s_, key, Mechanism{CKM_AES_CMAC}, block,
                              Unhex("070a16b46b4d4144f79bdd9dd04a287c"))),
            CKR_OK);
  EXPECT_EQ(Code(hsm_->Verify(*owner_, s_, key, Mechanism{CKM_AES_CMAC}, block,
                              Unhex("070a16b46b4d4144f79bdd9dd04a287d"))),
            CKR_SIGNATURE_INVALID);
}

TEST_F(HsmMacTest, ImportedGenericSecretsGetLengthAndSha1CheckValue) {
  const CK_OBJECT_HANDLE key = Key(CKK_GENERIC_SECRET, Bytes{'a', 'b', 'c'});
  EXPECT_EQ(Attribute(key, CKA_VALUE_LEN), UlongBytes(3));
  EXPECT_EQ(ToHex(Attribute(key, CKA_CHECK_VALUE)), "a9993e");  // SHA-1("abc")
  EXPECT_EQ(Attribute(key, CKA_KEY_TYPE), UlongBytes(CKK_GENERIC_SECRET));
  // A given check value must match; lengths are 1-1024 bytes (an ffdhe8192
  // secret's), although HMAC itself takes keys of up to 512.
  EXPECT_EQ(
      Code(Import(CKK_GENERIC_SECRET, Bytes{'a', 'b', 'c'}, {{CKA_CHECK_VALUE, Unhex("a9993f")}})),
      CKR_ATTRIBUTE_VALUE_INVALID);
  EXPECT_EQ(Code(Import(CKK_SHA256_HMAC, Bytes{})), CKR_ATTRIBUTE_VALUE_INVALID);
  EXPECT_EQ(Code(Import(CKK_SHA256_HMAC, Bytes(1025, 1))), CKR_ATTRIBUTE_VALUE_INVALID);
  EXPECT_EQ(Code(Import(CKK_SHA256_HMAC, Bytes(1024, 1))), CKR_OK);
  // A key type signet has no secret-key rules for stays refused.
  EXPECT_NE(Code(Import(CKK_RIPEMD160_HMAC, kJefe)), CKR_OK);
}

TEST_F(HsmMacTest, GenericSecretKeyGenMakesTheAskedLength) {
  auto generate = [&](Template t) {
    return hsm_->GenerateKey(*owner_, s_, Mechanism{CKM_GENERIC_SECRET_KEY_GEN}, t);
  };
  auto key = generate({{CKA_VALUE_LEN, UlongBytes(32)},
                       {CKA_SIGN, BoolBytes(true)},
                       {CKA_VERIFY, BoolBytes(true)},
                       {CKA_EXTRACTABLE, BoolBytes(true)},
                       {CKA_SENSITIVE, BoolBytes(false)}});
  ASSERT_TRUE(key.ok()) << key.error().message;
  EXPECT_EQ(Attribute(*key, CKA_KEY_TYPE), UlongBytes(CKK_GENERIC_SECRET));
  EXPECT_EQ(Attribute(*key, CKA_VALUE_LEN), UlongBytes(32));
  EXPECT_EQ(Attribute(*key, CKA_KEY_GEN_MECHANISM), UlongBytes(CKM_GENERIC_SECRET_KEY_GEN));
  const Bytes value = Attribute(*key, CKA_VALUE);
  ASSERT_EQ(value.size(), 32u);
  auto check = crypto::Digest(DigestAlg::kSha1, value);
  ASSERT_TRUE(check.ok());
  EXPECT_EQ(Attribute(*key, CKA_CHECK_VALUE), Bytes(check->begin(), check->begin() + 3));
  // The generated key MACs like an imported one with its value.
  const CK_OBJECT_HANDLE imported = Key(CKK_GENERIC_SECRET, value);
  EXPECT_EQ(SignHex(*key, Mechanism{CKM_SHA256_HMAC}, kJefeData),
            SignHex(imported, Mechanism{CKM_SHA256_HMAC}, kJefeData));

  EXPECT_EQ(Code(generate({})), CKR_TEMPLATE_INCOMPLETE);
  EXPECT_EQ(Code(generate({{CKA_VALUE_LEN, UlongBytes(0)}})), CKR_KEY_SIZE_RANGE);
  EXPECT_EQ(Code(generate({{CKA_VALUE_LEN, UlongBytes(513)}})), CKR_KEY_SIZE_RANGE);
  EXPECT_EQ(Code(generate({{CKA_VALUE_LEN, UlongBytes(1)}})), CKR_OK);
  EXPECT_EQ(Code(generate({{CKA_VALUE_LEN, UlongBytes(16)}, {CKA_KEY_TYPE, UlongBytes(CKK_AES)}})),
            CKR_TEMPLATE_INCONSISTENT);
}

TEST_F(HsmMacTest, GenericSecretsWrapAndUnwrapWithTheirType) {
  const CK_OBJECT_HANDLE kek =
      Key(CKK_AES, Bytes(32, 9), {{CKA_WRAP, BoolBytes(true)}, {CKA_UNWRAP, BoolBytes(true)}});
  const Bytes value(24, 0x5a);
  // Not sensitive: an imported KEK wraps no sensitive key (key_policy.h).
  const CK_OBJECT_HANDLE secret =
      Key(CKK_SHA256_HMAC, value,
          {{CKA_EXTRACTABLE, BoolBytes(true)}, {CKA_SENSITIVE, BoolBytes(false)}});
  auto wrapped = hsm_->WrapKey(*owner_, s_, Mechanism{CKM_AES_KEY_WRAP_KWP}, kek, secret);
  ASSERT_TRUE(wrapped.ok()) << wrapped.error().message;
  auto unwrapped = hsm_->UnwrapKey(*owner_, s_, Mechanism{CKM_AES_KEY_WRAP_KWP}, kek, *wrapped,
                                   {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                                    {CKA_KEY_TYPE, UlongBytes(CKK_SHA256_HMAC)},
                                    {CKA_SIGN, BoolBytes(true)}});
  ASSERT_TRUE(unwrapped.ok()) << unwrapped.error().message;
  EXPECT_EQ(Attribute(*unwrapped, CKA_KEY_TYPE), UlongBytes(CKK_SHA256_HMAC));
  EXPECT_EQ(Attribute(*unwrapped, CKA_VALUE_LEN), UlongBytes(24));
  EXPECT_EQ(SignHex(*unwrapped, Mechanism{CKM_SHA256_HMAC}, kJefeData),
            SignHex(secret, Mechanism{CKM_SHA256_HMAC}, kJefeData));
}

}  // namespace
}  // namespace signet::core
