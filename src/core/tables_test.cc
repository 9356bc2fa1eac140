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

TEST(Mechanisms, TableLookups) {
  auto ecdsa = FindMechanism(CKM_ECDSA_SHA256);
  ASSERT_TRUE(ecdsa.ok());
  EXPECT_EQ((*ecdsa)->key_type, CKK_EC);
  EXPECT_EQ((*ecdsa)->digest, crypto::DigestAlg::kSha256);
  EXPECT_TRUE((*ecdsa)->flags & CKF_SIGN);
  auto kwp = FindMechanism(CKM_AES_KEY_WRAP_KWP);
  ASSERT_TRUE(kwp.ok());
  EXPECT_EQ(CKM_AES_KEY_WRAP_KWP, 0x210BUL);
  auto bad = FindMechanism(CKM_MD5);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, CKR_MECHANISM_INVALID);
  EXPECT_EQ(DigestForMechanism(CKM_SHA384), crypto::DigestAlg::kSha384);
  EXPECT_EQ(DigestForMgf(CKG_MGF1_SHA512), crypto::DigestAlg::kSha512);
  for (const auto& m : AllMechanisms()) {
    EXPECT_LE(m.min_key_size, m.max_key_size) << m.name;
  }
}

}  // namespace
}  // namespace signet::core
