#include <gtest/gtest.h>

#include "core/attributes.h"
#include "core/key_defaults.h"
#include "core/mechanisms.h"
#include "core/object_classes.h"

namespace signet::core {
namespace {

TEST(AttributeRules, TableIsSortedAndUnique) {
  auto rules = AllAttributeRules();
  for (std::size_t i = 1; i < rules.size(); ++i)
    EXPECT_LT(rules[i - 1].type, rules[i].type) << rules[i].name;
  for (const auto& r : rules) EXPECT_EQ(FindAttributeRule(r.type), &r);
  EXPECT_EQ(FindAttributeRule(CKA_VENDOR_DEFINED | 7), nullptr);
}

TEST(AttributeRules, SecretComponentsAreNotModifiable) {
  AttributeMap rsa_private = {{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)},
                              {CKA_KEY_TYPE, UlongBytes(CKK_RSA)}};
  for (const auto& r : AllAttributeRules()) {
    if (r.secret && ClassHasAttribute(rsa_private, r.type)) {
      EXPECT_EQ(*ClassAttributeFlagsOf(rsa_private, r.type) & kSettable, 0u) << r.name;
    }
  }
  EXPECT_TRUE(FindAttributeRule(CKA_PRIVATE_EXPONENT)->secret);
  EXPECT_EQ(*ClassAttributeFlagsOf(rsa_private, CKA_CLASS) & kSettable, 0u);
  EXPECT_NE(*ClassAttributeFlagsOf(rsa_private, CKA_LABEL) & kSettable, 0u);
}

TEST(ValidateTemplate, RejectsUnknownType) {
  auto r = ValidateTemplate({{CKA_VENDOR_DEFINED | 9, {1}}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, CKR_ATTRIBUTE_TYPE_INVALID);
}

TEST(ValidateTemplate, RejectsWrongSizes) {
  auto bool_bad = ValidateTemplate({{CKA_TOKEN, {1, 0}}});
  ASSERT_FALSE(bool_bad.ok());
  EXPECT_EQ(bool_bad.error().code, CKR_ATTRIBUTE_VALUE_INVALID);
  auto ulong_bad = ValidateTemplate({{CKA_CLASS, {1, 2, 3}}});
  ASSERT_FALSE(ulong_bad.ok());
  EXPECT_EQ(ulong_bad.error().code, CKR_ATTRIBUTE_VALUE_INVALID);
}

TEST(ValidateTemplate, ConflictingRepeatIsInconsistent) {
  auto r = ValidateTemplate({{CKA_TOKEN, BoolBytes(true)}, {CKA_TOKEN, BoolBytes(false)}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, CKR_TEMPLATE_INCONSISTENT);
  auto same = ValidateTemplate({{CKA_TOKEN, BoolBytes(true)}, {CKA_TOKEN, BoolBytes(true)}});
  EXPECT_TRUE(same.ok());
}

TEST(AttributeHelpers, RoundTripAndMatch) {
  AttributeMap m;
  m[CKA_CLASS] = UlongBytes(CKO_PRIVATE_KEY);
  m[CKA_SIGN] = BoolBytes(true);
  EXPECT_EQ(FindUlong(m, CKA_CLASS), CKO_PRIVATE_KEY);
  EXPECT_EQ(FindBool(m, CKA_SIGN), true);
  EXPECT_FALSE(FindBool(m, CKA_VERIFY).has_value());
  AttributeMap t;
  t[CKA_CLASS] = UlongBytes(CKO_PRIVATE_KEY);
  EXPECT_TRUE(Matches(m, t));
  t[CKA_LABEL] = {'x'};
  EXPECT_FALSE(Matches(m, t));
}

TEST(KeyDefaults, GeneratedPrivateKeyIsSafe) {
  AttributeMap m;
  ApplyObjectDefaults(m, CKO_PRIVATE_KEY, KeyOrigin{true, CKM_EC_KEY_PAIR_GEN});
  EXPECT_EQ(FindBool(m, CKA_SENSITIVE), true);
  EXPECT_EQ(FindBool(m, CKA_EXTRACTABLE), false);
  EXPECT_EQ(FindBool(m, CKA_PRIVATE), true);
  EXPECT_EQ(FindBool(m, CKA_LOCAL), true);
  EXPECT_EQ(FindBool(m, CKA_ALWAYS_SENSITIVE), true);
  EXPECT_EQ(FindBool(m, CKA_NEVER_EXTRACTABLE), true);
  EXPECT_EQ(FindUlong(m, CKA_KEY_GEN_MECHANISM), CKM_EC_KEY_PAIR_GEN);
}

TEST(KeyDefaults, ImportedKeyIsNotLocal) {
  AttributeMap m;
  m[CKA_EXTRACTABLE] = BoolBytes(true);
  ApplyObjectDefaults(m, CKO_SECRET_KEY, KeyOrigin{});
  EXPECT_EQ(FindBool(m, CKA_LOCAL), false);
  EXPECT_EQ(FindBool(m, CKA_NEVER_EXTRACTABLE), false);
  EXPECT_EQ(FindBool(m, CKA_EXTRACTABLE), true);  // the template wins
  EXPECT_EQ(FindUlong(m, CKA_KEY_GEN_MECHANISM), CK_UNAVAILABLE_INFORMATION);
}

TEST(KeyDefaults, ComputedAttributesAreReadOnly) {
  AttributeMap m;
  m[CKA_LOCAL] = BoolBytes(true);
  auto s = CheckNoComputedAttributes(m, false);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, CKR_ATTRIBUTE_READ_ONLY);
}

TEST(Mechanisms, LookupChecksTheOperation) {
  auto ecdsa = MechanismFor(CKM_ECDSA_SHA256, CKF_SIGN);
  ASSERT_TRUE(ecdsa.ok());
  EXPECT_EQ((*ecdsa)->key_type, CKK_EC);
  EXPECT_EQ((*ecdsa)->digest, DigestAlg::kSha256);
  EXPECT_EQ(MechanismFor(CKM_ECDSA_SHA256, CKF_ENCRYPT).error().code, CKR_MECHANISM_INVALID);
  EXPECT_EQ(MechanismFor(CKM_MD5_RSA_PKCS, CKF_SIGN).error().code, CKR_MECHANISM_INVALID);
}

TEST(Mechanisms, SignParamsFollowTheRow) {
  auto params = SignParamsFor(*FindMechanismRow(CKM_ECDSA), Mechanism{CKM_ECDSA});
  ASSERT_TRUE(params.ok());
  EXPECT_EQ(params->scheme, crypto::SignScheme::kEcdsa);
  EXPECT_TRUE(params->prehashed);
  EXPECT_EQ(params->ecdsa_format, crypto::EcdsaFormat::kRaw);
  params = SignParamsFor(*FindMechanismRow(CKM_SHA384_RSA_PKCS), Mechanism{CKM_SHA384_RSA_PKCS});
  ASSERT_TRUE(params.ok());
  EXPECT_EQ(params->scheme, crypto::SignScheme::kRsaPkcs1);
  EXPECT_EQ(params->digest, DigestAlg::kSha384);
  EXPECT_FALSE(params->prehashed);
  EXPECT_EQ(SignParamsFor(*FindMechanismRow(CKM_AES_GCM), Mechanism{CKM_AES_GCM}).error().code,
            CKR_MECHANISM_INVALID);
}

TEST(Mechanisms, PssParamsMustFitTheRow) {
  const MechanismRow& raw = *FindMechanismRow(CKM_RSA_PKCS_PSS);
  EXPECT_EQ(SignParamsFor(raw, Mechanism{CKM_RSA_PKCS_PSS}).error().code,
            CKR_MECHANISM_PARAM_INVALID);
  Mechanism m{CKM_RSA_PKCS_PSS};
  m.pss = PssParams{CKM_SHA384, CKG_MGF1_SHA256, 48};
  auto params = SignParamsFor(raw, m);
  ASSERT_TRUE(params.ok());
  EXPECT_EQ(params->digest, DigestAlg::kSha384);
  EXPECT_EQ(params->pss_mgf1, DigestAlg::kSha256);
  m.pss->hash_alg = CKM_MD5;  // no MGF1 is defined for MD5
  EXPECT_EQ(SignParamsFor(raw, m).error().code, CKR_MECHANISM_PARAM_INVALID);
  m.type = CKM_SHA256_RSA_PKCS_PSS;
  m.pss->hash_alg = CKM_SHA384;  // the hashing form's hash is fixed
  EXPECT_EQ(SignParamsFor(*FindMechanismRow(CKM_SHA256_RSA_PKCS_PSS), m).error().code,
            CKR_MECHANISM_PARAM_INVALID);
}

}  // namespace
}  // namespace signet::core
