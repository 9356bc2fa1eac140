// Hsm::DeriveKey from a secret base key. CKM_HKDF_DERIVE (PKCS#11 3.0
// section 2.43): RFC 5869 test case 1 through the whole object path with the
// extract step alone, the expand step alone and both, the salt as bytes or as
// a key; CKM_HKDF_KEY_GEN keys; the derived key's attributes; every refusal
// a caller can hit.
#include <gtest/gtest.h>

#include "base/hex.h"
#include "core/hsm_fixture_test_util.h"

namespace signet::core {
namespace {

Bytes Unhex(std::string_view hex) { return FromHex(hex).value(); }

// RFC 5869 test case 1 (SHA-256).
const Bytes kIkm(22, 0x0b);
constexpr const char* kSalt = "000102030405060708090a0b0c";
constexpr const char* kInfo = "f0f1f2f3f4f5f6f7f8f9";
constexpr const char* kPrk = "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5";
constexpr const char* kOkm =
    "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865";

Mechanism Hkdf(bool extract, bool expand, CK_ULONG salt_type, Bytes salt = {},
               CK_OBJECT_HANDLE salt_key = 0, CK_MECHANISM_TYPE prf = CKM_SHA256) {
  Mechanism m{CKM_HKDF_DERIVE};
  m.hkdf = HkdfParams{extract, expand, prf, salt_type, std::move(salt), salt_key, Unhex(kInfo)};
  return m;
}

// Readable: a generic secret the test may read back, `len` bytes if not 0.
Template Readable(CK_ULONG len = 0) {
  Template t = {{CKA_SENSITIVE, BoolBytes(false)}, {CKA_EXTRACTABLE, BoolBytes(true)}};
  if (len != 0) t.push_back({CKA_VALUE_LEN, UlongBytes(len)});
  return t;
}

class HsmDeriveSecretTest : public HsmFixture {
 protected:
  void SetUp() override {
    HsmFixture::SetUp();
    s_ = LoggedIn(*owner_);
  }

  // Secret imports a secret key of `type` holding `value`.
  CK_OBJECT_HANDLE Secret(const Bytes& value, CK_KEY_TYPE type = CKK_GENERIC_SECRET,
                          bool derive = true) {
    auto h = hsm_->CreateObject(*owner_, s_,
                                {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                                 {CKA_KEY_TYPE, UlongBytes(type)},
                                 {CKA_VALUE, value},
                                 {CKA_DERIVE, BoolBytes(derive)}});
    EXPECT_TRUE(h.ok()) << h.error().message;
    return h.ok() ? *h : 0;
  }

  Bytes Attribute(CK_OBJECT_HANDLE key, CK_ATTRIBUTE_TYPE type) {
    CK_RV overall = CKR_OK;
    auto got = hsm_->GetAttributeValue(*owner_, s_, key, {type}, &overall);
    EXPECT_TRUE(got.ok() && overall == CKR_OK) << type;
    return got.ok() ? (*got)[0].value : Bytes{};
  }

  // DerivedValue derives with `m` from `base` and reads the new key's value.
  std::string DerivedValue(CK_OBJECT_HANDLE base, const Mechanism& m, const Template& t) {
    auto key = hsm_->DeriveKey(*owner_, s_, m, base, t);
    EXPECT_TRUE(key.ok()) << key.error().message;
    return key.ok() ? ToHex(Attribute(*key, CKA_VALUE)) : std::string();
  }

  CK_RV DeriveRv(CK_OBJECT_HANDLE base, const Mechanism& m, const Template& t) {
    return Code(hsm_->DeriveKey(*owner_, s_, m, base, t));
  }

  CK_SESSION_HANDLE s_ = 0;
};

TEST_F(HsmDeriveSecretTest, HkdfGivesRfc5869TestCaseOne) {
  const CK_OBJECT_HANDLE ikm = Secret(kIkm);
  EXPECT_EQ(DerivedValue(ikm, Hkdf(true, true, CKF_HKDF_SALT_DATA, Unhex(kSalt)), Readable(42)),
            kOkm);
  // Extract alone: the pseudorandom key, the hash's length with or
  // without CKA_VALUE_LEN.
  EXPECT_EQ(DerivedValue(ikm, Hkdf(true, false, CKF_HKDF_SALT_DATA, Unhex(kSalt)), Readable()),
            kPrk);
  EXPECT_EQ(DerivedValue(ikm, Hkdf(true, false, CKF_HKDF_SALT_DATA, Unhex(kSalt)), Readable(32)),
            kPrk);
  // Expand alone from that key; a salt given is not read.
  const CK_OBJECT_HANDLE prk = Secret(Unhex(kPrk), CKK_HKDF);
  EXPECT_EQ(DerivedValue(prk, Hkdf(false, true, CKF_HKDF_SALT_DATA, Bytes{9}), Readable(42)), kOkm);
  // The salt as a key: the same bytes give the same key.
  const CK_OBJECT_HANDLE salt = Secret(Unhex(kSalt), CKK_HKDF);
  EXPECT_EQ(DerivedValue(ikm, Hkdf(true, true, CKF_HKDF_SALT_KEY, {}, salt), Readable(42)), kOkm);
  // Another salt gives another key (the check can fail).
  EXPECT_NE(DerivedValue(ikm, Hkdf(true, true, CKF_HKDF_SALT_NULL), Readable(42)), kOkm);
}

TEST_F(HsmDeriveSecretTest, HkdfKeyGenMakesHkdfKeysThatDeriveAesKeys) {
  auto base = hsm_->GenerateKey(*owner_, s_, Mechanism{CKM_HKDF_KEY_GEN},
                                {{CKA_VALUE_LEN, UlongBytes(32)}, {CKA_DERIVE, BoolBytes(true)}});
  ASSERT_TRUE(base.ok()) << base.error().message;
  EXPECT_EQ(Attribute(*base, CKA_KEY_TYPE), UlongBytes(CKK_HKDF));
  EXPECT_EQ(Attribute(*base, CKA_ALWAYS_SENSITIVE), BoolBytes(true));
  EXPECT_EQ(Code(hsm_->GenerateKey(*owner_, s_, Mechanism{CKM_HKDF_KEY_GEN}, {})),
            CKR_TEMPLATE_INCOMPLETE);

  Template aes = {{CKA_KEY_TYPE, UlongBytes(CKK_AES)},
                  {CKA_VALUE_LEN, UlongBytes(16)},
                  {CKA_SENSITIVE, BoolBytes(true)},
                  {CKA_EXTRACTABLE, BoolBytes(false)}};
  auto kept = hsm_->DeriveKey(*owner_, s_, Hkdf(true, true, CKF_HKDF_SALT_NULL), *base, aes);
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  EXPECT_EQ(Attribute(*kept, CKA_KEY_TYPE), UlongBytes(CKK_AES));
  EXPECT_EQ(Attribute(*kept, CKA_VALUE_LEN), UlongBytes(16));
  EXPECT_EQ(Attribute(*kept, CKA_LOCAL), BoolBytes(false));
  EXPECT_EQ(Attribute(*kept, CKA_ALWAYS_SENSITIVE), BoolBytes(true));
  EXPECT_EQ(Attribute(*kept, CKA_NEVER_EXTRACTABLE), BoolBytes(true));
  // §2.43: the template may ask for a readable key; it was never sensitive.
  auto readable =
      hsm_->DeriveKey(*owner_, s_, Hkdf(true, true, CKF_HKDF_SALT_NULL), *base, Readable(16));
  ASSERT_TRUE(readable.ok()) << readable.error().message;
  EXPECT_EQ(Attribute(*readable, CKA_ALWAYS_SENSITIVE), BoolBytes(false));
  EXPECT_EQ(Attribute(*readable, CKA_NEVER_EXTRACTABLE), BoolBytes(false));
  // An imported salt key was known outside: neither holds for the child.
  auto salted = hsm_->DeriveKey(*owner_, s_, Hkdf(true, true, CKF_HKDF_SALT_KEY, {}, Secret(kIkm)),
                                *base, aes);
  ASSERT_TRUE(salted.ok()) << salted.error().message;
  EXPECT_EQ(Attribute(*salted, CKA_ALWAYS_SENSITIVE), BoolBytes(false));
  EXPECT_EQ(Attribute(*salted, CKA_NEVER_EXTRACTABLE), BoolBytes(false));
}

TEST_F(HsmDeriveSecretTest, HkdfRefusesWhatTheSpecificationRefuses) {
  const CK_OBJECT_HANDLE ikm = Secret(kIkm);
  const Bytes salt = Unhex(kSalt);
  auto rv = [&](const Mechanism& m, const Template& t = Readable(42)) {
    return DeriveRv(ikm, m, t);
  };
  EXPECT_EQ(rv(Mechanism{CKM_HKDF_DERIVE}), CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(rv(Hkdf(false, false, CKF_HKDF_SALT_NULL)), CKR_MECHANISM_PARAM_INVALID);
  for (CK_MECHANISM_TYPE prf : {CKM_MD5, CKM_SHA256_HMAC, CKM_AES_ECB}) {
    EXPECT_EQ(rv(Hkdf(true, true, CKF_HKDF_SALT_NULL, {}, 0, prf)), CKR_MECHANISM_PARAM_INVALID);
  }
  EXPECT_EQ(rv(Hkdf(true, true, CKF_HKDF_SALT_NULL, salt)), CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(rv(Hkdf(true, true, CKF_HKDF_SALT_DATA)), CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(rv(Hkdf(true, true, CKF_HKDF_SALT_DATA | CKF_HKDF_SALT_NULL, salt)),
            CKR_MECHANISM_PARAM_INVALID);
  // Lengths: expand needs one, of at most 255 hash lengths; extract makes
  // exactly the hash's length.
  EXPECT_EQ(rv(Hkdf(true, true, CKF_HKDF_SALT_NULL), Readable()), CKR_TEMPLATE_INCOMPLETE);
  EXPECT_EQ(rv(Hkdf(true, false, CKF_HKDF_SALT_NULL), Readable(16)), CKR_TEMPLATE_INCONSISTENT);
  EXPECT_EQ(rv(Hkdf(true, true, CKF_HKDF_SALT_NULL), Readable(255 * 32 + 1)),
            CKR_TEMPLATE_INCONSISTENT);
  // Expand alone reads a pseudorandom key at least one hash long.
  EXPECT_EQ(rv(Hkdf(false, true, CKF_HKDF_SALT_NULL)), CKR_KEY_SIZE_RANGE);
  // The base key and the salt key: secret keys of HKDF's types that derive.
  EXPECT_EQ(
      DeriveRv(Secret(Bytes(16, 1), CKK_AES), Hkdf(true, true, CKF_HKDF_SALT_NULL), Readable(42)),
      CKR_KEY_TYPE_INCONSISTENT);
  EXPECT_EQ(DeriveRv(Secret(kIkm, CKK_GENERIC_SECRET, /*derive=*/false),
                     Hkdf(true, true, CKF_HKDF_SALT_NULL), Readable(42)),
            CKR_KEY_FUNCTION_NOT_PERMITTED);
  EXPECT_EQ(rv(Hkdf(true, true, CKF_HKDF_SALT_KEY, {}, Secret(salt, CKK_HKDF, false))),
            CKR_KEY_FUNCTION_NOT_PERMITTED);
  EXPECT_EQ(rv(Hkdf(true, true, CKF_HKDF_SALT_KEY, {}, Secret(Bytes(16, 1), CKK_AES))),
            CKR_KEY_TYPE_INCONSISTENT);
  EXPECT_EQ(rv(Hkdf(true, true, CKF_HKDF_SALT_KEY, {}, 0x7fff)), CKR_OBJECT_HANDLE_INVALID);
  // A derived key is a secret key.
  EXPECT_EQ(rv(Hkdf(true, true, CKF_HKDF_SALT_NULL), {{CKA_CLASS, UlongBytes(CKO_DATA)}}),
            CKR_TEMPLATE_INCONSISTENT);
}

// HkdfData: CKM_HKDF_DATA with Hkdf's parameters.
Mechanism HkdfData(bool extract, bool expand, CK_ULONG salt_type, Bytes salt = {}) {
  Mechanism m = Hkdf(extract, expand, salt_type, std::move(salt));
  m.type = CKM_HKDF_DATA;
  return m;
}

TEST_F(HsmDeriveSecretTest, HkdfDataMakesAPrivateDataObjectOfRfc5869sOutput) {
  const CK_OBJECT_HANDLE ikm = Secret(kIkm);
  auto data = hsm_->DeriveKey(*owner_, s_, HkdfData(true, true, CKF_HKDF_SALT_DATA, Unhex(kSalt)),
                              ikm, {{CKA_VALUE_LEN, UlongBytes(42)}, {CKA_LABEL, Bytes{'o'}}});
  ASSERT_TRUE(data.ok()) << data.error().message;
  EXPECT_EQ(Attribute(*data, CKA_CLASS), UlongBytes(CKO_DATA));
  EXPECT_EQ(ToHex(Attribute(*data, CKA_VALUE)), kOkm);
  EXPECT_EQ(Attribute(*data, CKA_PRIVATE), BoolBytes(true));
  EXPECT_EQ(Attribute(*data, CKA_LABEL), Bytes{'o'});
  // Extracting alone gives the pseudorandom key, without a length; the
  // template may make the object public and say its class.
  auto prk =
      hsm_->DeriveKey(*owner_, s_, HkdfData(true, false, CKF_HKDF_SALT_DATA, Unhex(kSalt)), ikm,
                      {{CKA_CLASS, UlongBytes(CKO_DATA)}, {CKA_PRIVATE, BoolBytes(false)}});
  ASSERT_TRUE(prk.ok()) << prk.error().message;
  EXPECT_EQ(ToHex(Attribute(*prk, CKA_VALUE)), kPrk);
  EXPECT_EQ(Attribute(*prk, CKA_PRIVATE), BoolBytes(false));
}

TEST_F(HsmDeriveSecretTest, HkdfDataRefusesAKeyTemplate) {
  const CK_OBJECT_HANDLE ikm = Secret(kIkm);
  const Mechanism m = HkdfData(true, true, CKF_HKDF_SALT_NULL);
  const Bytes len = UlongBytes(32);
  EXPECT_EQ(DeriveRv(ikm, m, {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)}, {CKA_VALUE_LEN, len}}),
            CKR_TEMPLATE_INCONSISTENT);
  EXPECT_EQ(DeriveRv(ikm, m, {{CKA_KEY_TYPE, UlongBytes(CKK_AES)}, {CKA_VALUE_LEN, len}}),
            CKR_TEMPLATE_INCONSISTENT);
  EXPECT_EQ(DeriveRv(ikm, m, {{CKA_VALUE, Bytes(32, 1)}, {CKA_VALUE_LEN, len}}),
            CKR_TEMPLATE_INCONSISTENT);
  EXPECT_EQ(DeriveRv(ikm, m, {}), CKR_TEMPLATE_INCOMPLETE);
  // The base key obeys CKM_HKDF_DERIVE's rules.
  EXPECT_EQ(DeriveRv(Secret(Bytes(16, 1), CKK_AES), m, {{CKA_VALUE_LEN, len}}),
            CKR_KEY_TYPE_INCONSISTENT);
  EXPECT_EQ(DeriveRv(Secret(kIkm, CKK_GENERIC_SECRET, false), m, {{CKA_VALUE_LEN, len}}),
            CKR_KEY_FUNCTION_NOT_PERMITTED);
}

}  // namespace
}  // namespace signet::core
