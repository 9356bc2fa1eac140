// The object model by the letter of PKCS#11 v2.40 §4 / §5.7 (issue 11,
// points 4, 5, 6, 13 and 14): every attribute of a class has a value,
// read-only and one-way attributes on copy and set, required attributes at
// creation, CKA_ALLOWED_MECHANISMS and the wrap/unwrap templates, and
// non-sensitive keys' components checked with OpenSSL's own big-number and
// EC arithmetic (not signet's crypto/).
#include <gtest/gtest.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/x509.h>
#include <stdlib.h>

#include <filesystem>
#include <set>

#include "core/hsm_fixture_test_util.h"
#include "core/object_classes.h"
#include "core/unique_id.h"
#include "keystore/token.h"
#include "signet/attribute_array.hpp"

namespace signet::core {
namespace {


Bytes Str(std::string_view s) { return Bytes(s.begin(), s.end()); }

// ObjectModelTest: the owner's R/W session, logged in as the user.
class ObjectModelTest : public HsmFixture {
 protected:
  void SetUp() override {
    HsmFixture::SetUp();
    c_ = owner_;
    s_ = LoggedIn(*owner_);
  }

  Result<CK_OBJECT_HANDLE> Create(const Template& t) { return hsm_->CreateObject(*c_, s_, t); }
  CK_RV CreateRv(const Template& t) {
    auto h = Create(t);
    return h.ok() ? CKR_OK : h.error().code;
  }
  // Get reads one attribute: its CK_RV and value.
  std::pair<CK_RV, Bytes> Get(CK_OBJECT_HANDLE o, CK_ATTRIBUTE_TYPE type) {
    CK_RV overall = CKR_OK;
    auto got = hsm_->GetAttributeValue(*c_, s_, o, {type}, &overall);
    if (!got.ok()) return {got.error().code, {}};
    return {(*got)[0].rv, (*got)[0].value};
  }
  CK_RV SetRv(CK_OBJECT_HANDLE o, const Template& t) {
    Status st = hsm_->SetAttributeValue(*c_, s_, o, t);
    return st.ok() ? CKR_OK : st.error().code;
  }
  CK_RV CopyRv(CK_OBJECT_HANDLE o, const Template& t) {
    auto h = hsm_->CopyObject(*c_, s_, o, t);
    return h.ok() ? CKR_OK : h.error().code;
  }
  CK_OBJECT_HANDLE Aes(Template extra = {}) {
    extra.push_back({CKA_VALUE_LEN, UlongBytes(32)});
    auto h = hsm_->GenerateKey(*c_, s_, Mechanism{CKM_AES_KEY_GEN, {}, {}}, extra);
    EXPECT_TRUE(h.ok()) << h.error().message;
    return h.ok() ? *h : 0;
  }
  // Kek: an AES key in the wrapping role (a key either encrypts or wraps:
  // key_policy.h).
  CK_OBJECT_HANDLE Kek(Template extra = {}) {
    extra.push_back({CKA_WRAP, BoolBytes(true)});
    extra.push_back({CKA_UNWRAP, BoolBytes(true)});
    return Aes(std::move(extra));
  }
  std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE> P256(Template priv = {}) {
    Template pub = {{CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)}};
    auto pair = hsm_->GenerateKeyPair(*c_, s_, Mechanism{CKM_EC_KEY_PAIR_GEN, {}, {}}, pub, priv);
    EXPECT_TRUE(pair.ok()) << pair.error().message;
    return pair.ok() ? *pair : std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE>{};
  }
  Template Certificate() {
    return {{CKA_CLASS, UlongBytes(CKO_CERTIFICATE)},
            {CKA_CERTIFICATE_TYPE, UlongBytes(CKC_X_509)},
            {CKA_SUBJECT, Str("subject")},
            {CKA_VALUE, Str("not really DER")}};
  }

  std::shared_ptr<ClientState> c_;  // owner_
  CK_SESSION_HANDLE s_ = 0;
};

// --- point 4: every attribute of the class has a value

TEST_F(ObjectModelTest, DataObjectHasEveryAttributeOfItsClass) {
  auto h = Create({{CKA_CLASS, UlongBytes(CKO_DATA)}});
  ASSERT_TRUE(h.ok()) << h.error().message;
  for (CK_ATTRIBUTE_TYPE t : {CKA_LABEL, CKA_APPLICATION, CKA_OBJECT_ID, CKA_VALUE}) {
    auto [rv, value] = Get(*h, t);
    EXPECT_EQ(rv, CKR_OK) << t;
    EXPECT_TRUE(value.empty()) << t;
  }
  EXPECT_EQ(Get(*h, CKA_PRIVATE).second, BoolBytes(false));
  EXPECT_EQ(Get(*h, CKA_MODULUS).first, CKR_ATTRIBUTE_TYPE_INVALID);
  EXPECT_EQ(Get(*h, CKA_PRIVATE_EXPONENT).first, CKR_ATTRIBUTE_TYPE_INVALID);
  EXPECT_EQ(Get(*h, CKA_SENSITIVE).first, CKR_ATTRIBUTE_TYPE_INVALID);
}

TEST_F(ObjectModelTest, CertificateHasEveryAttributeOfItsClass) {
  auto h = Create(Certificate());
  ASSERT_TRUE(h.ok()) << h.error().message;
  for (CK_ATTRIBUTE_TYPE t : {CKA_LABEL, CKA_ID, CKA_ISSUER, CKA_SERIAL_NUMBER, CKA_START_DATE,
                              CKA_END_DATE, CKA_URL, CKA_HASH_OF_SUBJECT_PUBLIC_KEY}) {
    auto [rv, value] = Get(*h, t);
    EXPECT_EQ(rv, CKR_OK) << t;
    EXPECT_TRUE(value.empty()) << t;
  }
  EXPECT_EQ(Get(*h, CKA_TRUSTED).second, BoolBytes(false));
  EXPECT_EQ(Get(*h, CKA_CERTIFICATE_CATEGORY).second, UlongBytes(0));
  EXPECT_EQ(Get(*h, CKA_CHECK_VALUE).second.size(), 3u);
  EXPECT_EQ(Get(*h, CKA_KEY_TYPE).first, CKR_ATTRIBUTE_TYPE_INVALID);
}

TEST_F(ObjectModelTest, KeysHaveEveryAttributeOfTheirClass) {
  auto [pub, priv] = P256();
  for (CK_ATTRIBUTE_TYPE t : {CKA_START_DATE, CKA_END_DATE, CKA_ALLOWED_MECHANISMS, CKA_SUBJECT,
                              CKA_UNWRAP_TEMPLATE, CKA_DERIVE_TEMPLATE, CKA_LABEL, CKA_ID}) {
    auto [rv, value] = Get(priv, t);
    EXPECT_EQ(rv, CKR_OK) << t;
    EXPECT_TRUE(value.empty()) << t;
  }
  EXPECT_EQ(Get(priv, CKA_DERIVE).second, BoolBytes(false));
  EXPECT_EQ(Get(priv, CKA_WRAP_WITH_TRUSTED).second, BoolBytes(false));
  EXPECT_EQ(Get(pub, CKA_TRUSTED).second, BoolBytes(false));
  EXPECT_EQ(Get(pub, CKA_WRAP_TEMPLATE).first, CKR_OK);
  EXPECT_EQ(Get(pub, CKA_SUBJECT).first, CKR_OK);
  EXPECT_EQ(Get(pub, CKA_SENSITIVE).first, CKR_ATTRIBUTE_TYPE_INVALID);
  EXPECT_EQ(Get(priv, CKA_MODULUS).first, CKR_ATTRIBUTE_TYPE_INVALID);
  CK_OBJECT_HANDLE aes = Aes();
  EXPECT_EQ(Get(aes, CKA_CHECK_VALUE).first, CKR_OK);
  EXPECT_EQ(Get(aes, CKA_WRAP_TEMPLATE).first, CKR_OK);
  EXPECT_EQ(Get(aes, CKA_TRUSTED).second, BoolBytes(false));
}

TEST_F(ObjectModelTest, AesKeysCarryTheirCheckValue) {
  // AES-128 of a zero block under the zero key: 66e94bd4... (FIPS-197 style
  // known answer), so the check value is 66 e9 4b.
  Template aes = {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                  {CKA_KEY_TYPE, UlongBytes(CKK_AES)},
                  {CKA_VALUE, Bytes(16, 0)}};
  auto h = Create(aes);
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(Get(*h, CKA_CHECK_VALUE).second, (Bytes{0x66, 0xe9, 0x4b}));
  Template wrong = aes;
  wrong.push_back({CKA_CHECK_VALUE, Bytes{1, 2, 3}});
  EXPECT_EQ(CreateRv(wrong), CKR_ATTRIBUTE_VALUE_INVALID);
  Template right = aes;
  right.push_back({CKA_CHECK_VALUE, Bytes{0x66, 0xe9, 0x4b}});
  EXPECT_EQ(CreateRv(right), CKR_OK);
  EXPECT_EQ(Get(Aes(), CKA_CHECK_VALUE).second.size(), 3u);
}

TEST_F(ObjectModelTest, TokenObjectsWrittenBeforeTheDefaultsGetThemWhenLoaded) {
  // A record as an older signet stored it: only what the template gave.
  std::filesystem::path file;
  for (const auto& entry : std::filesystem::directory_iterator(dir_ / "data")) {
    if (entry.path().extension() == ".token") file = entry.path();
  }
  ASSERT_FALSE(file.empty());
  c_.reset();
  Close();
  {
    keystore::TokenOptions token_options;
    token_options.kdf.n = 1u << 10;
    auto token = keystore::Token::Open(file, token_options);
    ASSERT_TRUE(token.ok()) << token.error().message;
    AttributeMap old = {{CKA_CLASS, UlongBytes(CKO_DATA)},
                        {CKA_TOKEN, BoolBytes(true)},
                        {CKA_LABEL, Str("old")}};
    ASSERT_TRUE((*token)->CreateObject(old, nullptr).ok());
  }
  Open({});
  c_ = owner_;
  s_ = Session(*owner_);
  // Found by its defaults, and every attribute of its class reads.
  auto found = hsm_->FindObjects(*c_, s_,
                                 {{CKA_LABEL, Str("old")},
                                  {CKA_APPLICATION, Bytes{}},
                                  {CKA_PRIVATE, BoolBytes(false)}},
                                 0);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  for (CK_ATTRIBUTE_TYPE t : {CKA_APPLICATION, CKA_OBJECT_ID, CKA_VALUE}) {
    EXPECT_EQ(Get((*found)[0], t).first, CKR_OK) << t;
  }
  EXPECT_EQ(Get((*found)[0], CKA_MODIFIABLE).second, BoolBytes(true));
  // It had no CKA_UNIQUE_ID: it gets one derived from the token and its id,
  // the same after a restart.
  Bytes id = Get((*found)[0], CKA_UNIQUE_ID).second;
  ASSERT_TRUE(UuidFromText(id).has_value());
  c_.reset();
  Close();
  Open({});
  c_ = owner_;
  s_ = Session(*owner_);
  auto again = hsm_->FindObjects(*c_, s_, {{CKA_UNIQUE_ID, id}}, 0);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->size(), 1u);
}

TEST_F(ObjectModelTest, EveryObjectHasItsOwnReadOnlyUniqueId) {
  auto data = Create({{CKA_CLASS, UlongBytes(CKO_DATA)}});
  ASSERT_TRUE(data.ok()) << data.error().message;
  auto [pub, priv] = P256();
  CK_OBJECT_HANDLE aes = Aes();
  std::set<Bytes> ids;
  for (CK_OBJECT_HANDLE o : {*data, pub, priv, aes}) {
    auto [rv, id] = Get(o, CKA_UNIQUE_ID);
    EXPECT_EQ(rv, CKR_OK);
    EXPECT_TRUE(UuidFromText(id).has_value());
    EXPECT_TRUE(ids.insert(id).second);
  }
  Bytes id = Get(priv, CKA_UNIQUE_ID).second;
  auto found = hsm_->FindObjects(*c_, s_, {{CKA_UNIQUE_ID, id}}, 0);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, std::vector<CK_OBJECT_HANDLE>{priv});
  // PKCS#11 3.0 §4.4.1: set by the token, never by a template.
  EXPECT_EQ(CreateRv({{CKA_CLASS, UlongBytes(CKO_DATA)}, {CKA_UNIQUE_ID, id}}),
            CKR_ATTRIBUTE_READ_ONLY);
  EXPECT_EQ(SetRv(*data, {{CKA_UNIQUE_ID, id}}), CKR_ATTRIBUTE_READ_ONLY);
  EXPECT_NE(CopyRv(*data, {{CKA_UNIQUE_ID, id}}), CKR_OK);
  auto copy = hsm_->CopyObject(*c_, s_, *data, {});
  ASSERT_TRUE(copy.ok());
  EXPECT_NE(Get(*copy, CKA_UNIQUE_ID).second, Get(*data, CKA_UNIQUE_ID).second);
}

TEST_F(ObjectModelTest, KeysCarryTheirSubjectPublicKeyInfo) {
  auto [pub, priv] = P256();
  Bytes point_der = Get(pub, CKA_EC_POINT).second;
  ASSERT_EQ(point_der.size(), 67u);
  for (CK_OBJECT_HANDLE h : {pub, priv}) {
    Bytes spki = Get(h, CKA_PUBLIC_KEY_INFO).second;
    ASSERT_FALSE(spki.empty());
    // OpenSSL's own parser: the same point as CKA_EC_POINT.
    const unsigned char* p = spki.data();
    EVP_PKEY* parsed = d2i_PUBKEY(nullptr, &p, static_cast<long>(spki.size()));
    ASSERT_NE(parsed, nullptr);
    unsigned char raw[65];
    std::size_t len = 0;
    ASSERT_EQ(EVP_PKEY_get_octet_string_param(parsed, OSSL_PKEY_PARAM_PUB_KEY, raw, sizeof raw,
                                              &len),
              1);
    EXPECT_EQ(Bytes(raw, raw + len), Bytes(point_der.begin() + 2, point_der.end()));
    EVP_PKEY_free(parsed);
  }
}

TEST(ObjectClasses, OldRecordsGetTheirDefaultsWhenRead) {
  AttributeMap old = {{CKA_CLASS, UlongBytes(CKO_DATA)}, {CKA_TOKEN, BoolBytes(true)}};
  FillClassDefaults(old);
  EXPECT_EQ(old.at(CKA_APPLICATION), Bytes{});
  EXPECT_EQ(old.at(CKA_PRIVATE), BoolBytes(false));
  EXPECT_EQ(old.at(CKA_TOKEN), BoolBytes(true));  // kept
  EXPECT_EQ(old.count(CKA_SENSITIVE), 0u);
}

// --- point 5: read-only and one-way attributes

TEST_F(ObjectModelTest, CopyRefusesAttributesThatCannotChange) {
  auto data = Create({{CKA_CLASS, UlongBytes(CKO_DATA)}, {CKA_OBJECT_ID, Str("oid")}});
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(CopyRv(*data, {{CKA_OBJECT_ID, Str("other")}}), CKR_ATTRIBUTE_READ_ONLY);
  EXPECT_EQ(CopyRv(*data, {{CKA_CLASS, UlongBytes(CKO_CERTIFICATE)}}), CKR_ATTRIBUTE_READ_ONLY);
  EXPECT_EQ(CopyRv(*data, {{CKA_VALUE, Str("v")}}), CKR_ATTRIBUTE_READ_ONLY);
  EXPECT_EQ(CopyRv(*data, {{CKA_OBJECT_ID, Str("oid")}}), CKR_OK);  // no change
  EXPECT_EQ(CopyRv(*data, {{CKA_LABEL, Str("copy")}, {CKA_TOKEN, BoolBytes(true)}}), CKR_OK);
  EXPECT_EQ(CopyRv(*data, {{CKA_MODULUS, Str("n")}}), CKR_TEMPLATE_INCONSISTENT);

  CK_OBJECT_HANDLE key = Aes({{CKA_EXTRACTABLE, BoolBytes(false)}});
  EXPECT_EQ(CopyRv(key, {{CKA_KEY_TYPE, UlongBytes(CKK_GENERIC_SECRET)}}), CKR_ATTRIBUTE_READ_ONLY);
  EXPECT_EQ(CopyRv(key, {{CKA_SENSITIVE, BoolBytes(false)}}), CKR_ATTRIBUTE_READ_ONLY);
  EXPECT_EQ(CopyRv(key, {{CKA_EXTRACTABLE, BoolBytes(true)}}), CKR_ATTRIBUTE_READ_ONLY);
  EXPECT_EQ(CopyRv(key, {{CKA_PRIVATE, BoolBytes(true)}, {CKA_ENCRYPT, BoolBytes(false)}}), CKR_OK);
  EXPECT_EQ(CopyRv(key, {{CKA_MODIFIABLE, BoolBytes(false)}}), CKR_OK);

  CK_OBJECT_HANDLE fixed = Aes({{CKA_COPYABLE, BoolBytes(false)}});
  EXPECT_EQ(CopyRv(fixed, {}), CKR_ACTION_PROHIBITED);
}

TEST_F(ObjectModelTest, SetFollowsTheOneWayRules) {
  CK_OBJECT_HANDLE key =
      Aes({{CKA_SENSITIVE, BoolBytes(false)}, {CKA_EXTRACTABLE, BoolBytes(true)}});
  EXPECT_EQ(SetRv(key, {{CKA_SENSITIVE, BoolBytes(true)}}), CKR_OK);
  EXPECT_EQ(SetRv(key, {{CKA_SENSITIVE, BoolBytes(true)}}), CKR_OK);  // latched value again
  EXPECT_EQ(SetRv(key, {{CKA_SENSITIVE, BoolBytes(false)}}), CKR_ATTRIBUTE_READ_ONLY);
  EXPECT_EQ(SetRv(key, {{CKA_EXTRACTABLE, BoolBytes(false)}}), CKR_OK);
  EXPECT_EQ(SetRv(key, {{CKA_EXTRACTABLE, BoolBytes(false)}}), CKR_OK);
  EXPECT_EQ(SetRv(key, {{CKA_EXTRACTABLE, BoolBytes(true)}}), CKR_ATTRIBUTE_READ_ONLY);
  EXPECT_EQ(SetRv(key, {{CKA_KEY_TYPE, UlongBytes(CKK_GENERIC_SECRET)}}), CKR_ATTRIBUTE_READ_ONLY);
  EXPECT_EQ(SetRv(key, {{CKA_MODULUS, Str("n")}}), CKR_ATTRIBUTE_TYPE_INVALID);

  auto data = Create({{CKA_CLASS, UlongBytes(CKO_DATA)}, {CKA_OBJECT_ID, Str("oid")}});
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(SetRv(*data, {{CKA_OBJECT_ID, Str("other")}}), CKR_ATTRIBUTE_READ_ONLY);
  EXPECT_EQ(SetRv(*data, {{CKA_SENSITIVE, BoolBytes(true)}}), CKR_ATTRIBUTE_TYPE_INVALID);
  EXPECT_EQ(SetRv(*data, {{CKA_LABEL, Str("new")}}), CKR_OK);

  CK_OBJECT_HANDLE frozen = Aes({{CKA_MODIFIABLE, BoolBytes(false)}});
  EXPECT_EQ(SetRv(frozen, {{CKA_LABEL, Str("x")}}), CKR_ACTION_PROHIBITED);
}

// --- point 6: required attributes at C_CreateObject

TEST_F(ObjectModelTest, CreateNeedsTheClassRequiredAttributes) {
  Template cert = Certificate();
  EXPECT_EQ(CreateRv(cert), CKR_OK);
  for (CK_ATTRIBUTE_TYPE missing : {CKA_CERTIFICATE_TYPE, CKA_SUBJECT, CKA_VALUE}) {
    Template t;
    for (const Attribute& a : cert) {
      if (a.type != missing) t.push_back(a);
    }
    EXPECT_EQ(CreateRv(t), CKR_TEMPLATE_INCOMPLETE) << missing;
  }
  // An EC public key without its point, an RSA one without its exponent,
  // and a key without CKA_KEY_TYPE.
  EXPECT_EQ(CreateRv({{CKA_CLASS, UlongBytes(CKO_PUBLIC_KEY)},
                      {CKA_KEY_TYPE, UlongBytes(CKK_EC)},
                      {CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)}}),
            CKR_TEMPLATE_INCOMPLETE);
  EXPECT_EQ(CreateRv({{CKA_CLASS, UlongBytes(CKO_PUBLIC_KEY)},
                      {CKA_KEY_TYPE, UlongBytes(CKK_RSA)},
                      {CKA_MODULUS, Bytes(256, 0xc5)}}),
            CKR_TEMPLATE_INCOMPLETE);
  EXPECT_EQ(CreateRv({{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)}, {CKA_VALUE, Bytes(16, 1)}}),
            CKR_TEMPLATE_INCOMPLETE);
  EXPECT_EQ(
      CreateRv({{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)}, {CKA_KEY_TYPE, UlongBytes(CKK_AES)}}),
      CKR_TEMPLATE_INCOMPLETE);
  EXPECT_EQ(CreateRv({{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                      {CKA_KEY_TYPE, UlongBytes(CKK_AES)},
                      {CKA_VALUE, Bytes(16, 1)}}),
            CKR_OK);
  // An attribute of another class: inconsistent (§4.1.3's example).
  EXPECT_EQ(CreateRv({{CKA_CLASS, UlongBytes(CKO_DATA)}, {CKA_SENSITIVE, BoolBytes(true)}}),
            CKR_TEMPLATE_INCONSISTENT);
}

// --- point 13: CKA_ALLOWED_MECHANISMS and the templates

Bytes Mechanisms(std::initializer_list<CK_MECHANISM_TYPE> list) {
  Bytes out;
  for (CK_MECHANISM_TYPE m : list) {
    Bytes one = UlongBytes(m);
    out.insert(out.end(), one.begin(), one.end());
  }
  return out;
}

TEST_F(ObjectModelTest, AllowedMechanismsAreStoredAndEnforced) {
  Bytes allowed = Mechanisms({CKM_AES_KEY_WRAP_KWP});
  CK_OBJECT_HANDLE key = Aes({{CKA_ALLOWED_MECHANISMS, allowed}});
  EXPECT_EQ(Get(key, CKA_ALLOWED_MECHANISMS).second, allowed);
  GcmParams gcm{Bytes(12, 7), {}, 128};
  auto enc = hsm_->Encrypt(*c_, s_, key, Mechanism{CKM_AES_GCM, {}, gcm}, Str("data"));
  ASSERT_FALSE(enc.ok());
  EXPECT_EQ(enc.error().code, CKR_MECHANISM_INVALID);
  CK_OBJECT_HANDLE any = Aes({{CKA_ALLOWED_MECHANISMS, Bytes{}}});  // empty: any mechanism
  EXPECT_TRUE(hsm_->Encrypt(*c_, s_, any, Mechanism{CKM_AES_GCM, {}, gcm}, Str("data")).ok());

  auto [pub, priv] = P256({{CKA_ALLOWED_MECHANISMS, Mechanisms({CKM_ECDSA_SHA256})}});
  EXPECT_TRUE(hsm_->Sign(*c_, s_, priv, Mechanism{CKM_ECDSA_SHA256, {}, {}}, Str("m")).ok());
  auto sig = hsm_->Sign(*c_, s_, priv, Mechanism{CKM_ECDSA, {}, {}}, Bytes(32, 1));
  ASSERT_FALSE(sig.ok());
  EXPECT_EQ(sig.error().code, CKR_MECHANISM_INVALID);
}

Bytes TemplateValue(std::vector<NestedAttribute> attrs) {
  std::vector<std::uint8_t> v = EncodeAttributeArray(attrs);
  return Bytes(v.begin(), v.end());
}

TEST_F(ObjectModelTest, WrapTemplateLimitsWhatWraps) {
  Bytes wrap_template = TemplateValue({{CKA_KEY_TYPE, UlongBytes(CKK_AES)}});
  CK_OBJECT_HANDLE kek = Kek({{CKA_WRAP_TEMPLATE, wrap_template}});
  EXPECT_EQ(Get(kek, CKA_WRAP_TEMPLATE).second, wrap_template);
  CK_OBJECT_HANDLE secret = Aes({{CKA_EXTRACTABLE, BoolBytes(true)}});
  Mechanism kwp{CKM_AES_KEY_WRAP_KWP, {}, {}};
  EXPECT_TRUE(hsm_->WrapKey(*c_, s_, kwp, kek, secret).ok());
  auto [pub, priv] = P256({{CKA_EXTRACTABLE, BoolBytes(true)}});
  auto wrapped = hsm_->WrapKey(*c_, s_, kwp, kek, priv);
  ASSERT_FALSE(wrapped.ok());
  EXPECT_EQ(wrapped.error().code, CKR_KEY_NOT_WRAPPABLE);
  // A malformed template value is refused at creation.
  auto bad = hsm_->GenerateKey(*c_, s_, Mechanism{CKM_AES_KEY_GEN, {}, {}},
                               {{CKA_VALUE_LEN, UlongBytes(16)}, {CKA_WRAP_TEMPLATE, Bytes{1, 2}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, CKR_ATTRIBUTE_VALUE_INVALID);
}

TEST_F(ObjectModelTest, UnwrapTemplateIsAppliedAndMustAgree) {
  CK_OBJECT_HANDLE kek =
      Kek({{CKA_UNWRAP_TEMPLATE,
            TemplateValue({{CKA_SENSITIVE, BoolBytes(true)}, {CKA_LABEL, Str("from-template")}})}});
  CK_OBJECT_HANDLE secret = Aes({{CKA_EXTRACTABLE, BoolBytes(true)}});
  Mechanism kwp{CKM_AES_KEY_WRAP_KWP, {}, {}};
  auto wrapped = hsm_->WrapKey(*c_, s_, kwp, kek, secret);
  ASSERT_TRUE(wrapped.ok()) << wrapped.error().message;
  Template cls = {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)}, {CKA_KEY_TYPE, UlongBytes(CKK_AES)}};
  auto h = hsm_->UnwrapKey(*c_, s_, kwp, kek, *wrapped, cls);
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(Get(*h, CKA_LABEL).second, Str("from-template"));
  Template clash = cls;
  clash.push_back({CKA_SENSITIVE, BoolBytes(false)});
  auto refused = hsm_->UnwrapKey(*c_, s_, kwp, kek, *wrapped, clash);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, CKR_TEMPLATE_INCONSISTENT);
}

TEST_F(ObjectModelTest, OnlyTheSoMakesTrustedObjectsAndTrustedWrappingIsEnforced) {
  Template trusted = Certificate();
  trusted.push_back({CKA_TRUSTED, BoolBytes(true)});
  EXPECT_EQ(CreateRv(trusted), CKR_ATTRIBUTE_READ_ONLY);  // the user may not
  ASSERT_TRUE(hsm_->Logout(*c_, s_).ok());  // the SO may not log in beside the user
  auto so = hsm_->NewClient();
  auto so_session = hsm_->OpenSession(*so, 0, kRw);
  ASSERT_TRUE(so_session.ok());
  Status so_login = hsm_->Login(*so, *so_session, CKU_SO, AsBytes(kSoPin));
  ASSERT_TRUE(so_login.ok()) << so_login.error().message;
  EXPECT_TRUE(hsm_->CreateObject(*so, *so_session, trusted).ok());
  hsm_->Disconnect(*so);
  ASSERT_TRUE(hsm_->Login(*c_, s_, CKU_USER, AsBytes(kUserPin)).ok());

  CK_OBJECT_HANDLE kek = Kek();
  CK_OBJECT_HANDLE guarded =
      Aes({{CKA_EXTRACTABLE, BoolBytes(true)}, {CKA_WRAP_WITH_TRUSTED, BoolBytes(true)}});
  Mechanism kwp{CKM_AES_KEY_WRAP_KWP, {}, {}};
  auto wrapped = hsm_->WrapKey(*c_, s_, kwp, kek, guarded);
  ASSERT_FALSE(wrapped.ok());
  EXPECT_EQ(wrapped.error().code, CKR_KEY_NOT_WRAPPABLE);
  EXPECT_EQ(SetRv(guarded, {{CKA_WRAP_WITH_TRUSTED, BoolBytes(false)}}), CKR_ATTRIBUTE_READ_ONLY);
}

// --- point 14: a non-sensitive, extractable key's components are readable

BIGNUM* Bn(const Bytes& b) { return BN_bin2bn(b.data(), static_cast<int>(b.size()), nullptr); }

TEST_F(ObjectModelTest, NonSensitiveRsaKeyRevealsItsComponents) {
  Template pub = {{CKA_MODULUS_BITS, UlongBytes(2048)}};
  Template priv = {{CKA_SENSITIVE, BoolBytes(false)}, {CKA_EXTRACTABLE, BoolBytes(true)}};
  auto pair =
      hsm_->GenerateKeyPair(*c_, s_, Mechanism{CKM_RSA_PKCS_KEY_PAIR_GEN, {}, {}}, pub, priv);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  auto [d_rv, d] = Get(pair->second, CKA_PRIVATE_EXPONENT);
  ASSERT_EQ(d_rv, CKR_OK);
  auto [p_rv, p] = Get(pair->second, CKA_PRIME_1);
  auto [q_rv, q] = Get(pair->second, CKA_PRIME_2);
  ASSERT_EQ(p_rv, CKR_OK);
  ASSERT_EQ(q_rv, CKR_OK);
  Bytes n = Get(pair->first, CKA_MODULUS).second;
  Bytes e = Get(pair->first, CKA_PUBLIC_EXPONENT).second;
  // OpenSSL's BIGNUM arithmetic: p*q == n and (m^e)^d == m mod n.
  BN_CTX* ctx = BN_CTX_new();
  BIGNUM *bn_n = Bn(n), *bn_e = Bn(e), *bn_d = Bn(d), *bn_p = Bn(p), *bn_q = Bn(q);
  BIGNUM *pq = BN_new(), *m = BN_new(), *c = BN_new(), *back = BN_new();
  ASSERT_EQ(BN_mul(pq, bn_p, bn_q, ctx), 1);
  EXPECT_EQ(BN_cmp(pq, bn_n), 0);
  BN_set_word(m, 0x1234567);
  BN_mod_exp(c, m, bn_e, bn_n, ctx);
  BN_mod_exp(back, c, bn_d, bn_n, ctx);
  EXPECT_EQ(BN_cmp(back, m), 0);
  for (BIGNUM* b : {bn_n, bn_e, bn_d, bn_p, bn_q, pq, m, c, back}) BN_clear_free(b);
  BN_CTX_free(ctx);
}

TEST_F(ObjectModelTest, NonSensitiveEcKeyRevealsItsScalarAndSensitiveOneDoesNot) {
  auto [pub, priv] = P256({{CKA_SENSITIVE, BoolBytes(false)}, {CKA_EXTRACTABLE, BoolBytes(true)}});
  auto [rv, value] = Get(priv, CKA_VALUE);
  ASSERT_EQ(rv, CKR_OK);
  ASSERT_EQ(value.size(), 32u);
  Bytes point_der = Get(pub, CKA_EC_POINT).second;
  ASSERT_EQ(point_der.size(), 67u);  // 04 41 || 04 X Y
  // OpenSSL's EC arithmetic: d * G is the public point.
  EC_GROUP* group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
  EC_POINT* point = EC_POINT_new(group);
  BIGNUM* d = Bn(value);
  ASSERT_EQ(EC_POINT_mul(group, point, d, nullptr, nullptr, nullptr), 1);
  unsigned char raw[65];
  ASSERT_EQ(
      EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, raw, sizeof raw, nullptr),
      65u);
  EXPECT_EQ(Bytes(raw, raw + 65), Bytes(point_der.begin() + 2, point_der.end()));
  BN_clear_free(d);
  EC_POINT_free(point);
  EC_GROUP_free(group);

  auto [sensitive_pub, sensitive_priv] = P256();
  EXPECT_EQ(Get(sensitive_priv, CKA_VALUE).first, CKR_ATTRIBUTE_SENSITIVE);
  auto [hidden_pub, hidden_priv] =
      P256({{CKA_SENSITIVE, BoolBytes(false)}, {CKA_EXTRACTABLE, BoolBytes(false)}});
  EXPECT_EQ(Get(hidden_priv, CKA_VALUE).first, CKR_ATTRIBUTE_SENSITIVE);
}

}  // namespace
}  // namespace signet::core
