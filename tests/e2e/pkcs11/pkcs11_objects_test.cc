// The object model through the module against a real signetd (issue 11,
// points 4, 6, 13 and 14): class defaults and required attributes,
// CKA_ALLOWED_MECHANISMS and the template-valued attributes through the C
// ABI (PKCS#11 v2.40 §4.1.4, §5.7's length rules for arrays), and a
// non-sensitive key's components checked with OpenSSL's own arithmetic.
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>

#include <cstring>

#include "module_fixture.h"
#include "signet/protocol.hpp"

namespace signet::e2e {
namespace {

using ObjectsTest = ModuleTest;

constexpr CK_BBOOL kTrue = CK_TRUE;
constexpr CK_BBOOL kFalse = CK_FALSE;
constexpr CK_ULONG kAesLen = 32;
const CK_BYTE kP256Params[] = {0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};

CK_ATTRIBUTE Attr(CK_ATTRIBUTE_TYPE type, const void* value, CK_ULONG len) {
  return CK_ATTRIBUTE{type, const_cast<void*>(value), len};
}

// GenerateAes makes a session AES-256 key with `extra` attributes.
CK_OBJECT_HANDLE GenerateAes(CK_FUNCTION_LIST_PTR p11, CK_SESSION_HANDLE s,
                             std::vector<CK_ATTRIBUTE> extra, CK_RV* rv_out = nullptr) {
  CK_MECHANISM gen = {CKM_AES_KEY_GEN, nullptr, 0};
  extra.push_back(Attr(CKA_VALUE_LEN, &kAesLen, sizeof kAesLen));
  CK_OBJECT_HANDLE key = 0;
  CK_RV rv = p11->C_GenerateKey(s, &gen, extra.data(), extra.size(), &key);
  if (rv_out != nullptr) {
    *rv_out = rv;
  } else {
    EXPECT_EQ(rv, CKR_OK);
  }
  return key;
}

TEST_F(ObjectsTest, DataObjectAttributesHaveDefaultsAndForeignOnesAreInvalid) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  CK_OBJECT_CLASS data = CKO_DATA;
  CK_ATTRIBUTE tmpl[] = {Attr(CKA_CLASS, &data, sizeof data)};
  CK_OBJECT_HANDLE obj = 0;
  ASSERT_EQ(p11()->C_CreateObject(s, tmpl, 1, &obj), CKR_OK);
  CK_ATTRIBUTE get[] = {{CKA_APPLICATION, nullptr, 99},
                        {CKA_OBJECT_ID, nullptr, 99},
                        {CKA_LABEL, nullptr, 99},
                        {CKA_VALUE, nullptr, 99}};
  ASSERT_EQ(p11()->C_GetAttributeValue(s, obj, get, 4), CKR_OK);
  for (const CK_ATTRIBUTE& a : get) EXPECT_EQ(a.ulValueLen, 0u) << a.type;
  CK_ATTRIBUTE modulus = {CKA_MODULUS, nullptr, 0};
  EXPECT_EQ(p11()->C_GetAttributeValue(s, obj, &modulus, 1), CKR_ATTRIBUTE_TYPE_INVALID);
  EXPECT_EQ(modulus.ulValueLen, CK_UNAVAILABLE_INFORMATION);
}

TEST_F(ObjectsTest, CertificateWithoutItsTypeIsIncomplete) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  CK_OBJECT_CLASS cert = CKO_CERTIFICATE;
  CK_CERTIFICATE_TYPE x509 = CKC_X_509;
  const char subject[] = "subject";
  const char value[] = "value";
  CK_ATTRIBUTE tmpl[] = {
      Attr(CKA_CLASS, &cert, sizeof cert), Attr(CKA_SUBJECT, subject, sizeof subject),
      Attr(CKA_VALUE, value, sizeof value), Attr(CKA_CERTIFICATE_TYPE, &x509, sizeof x509)};
  CK_OBJECT_HANDLE obj = 0;
  EXPECT_EQ(p11()->C_CreateObject(s, tmpl, 3, &obj), CKR_TEMPLATE_INCOMPLETE);
  EXPECT_EQ(p11()->C_CreateObject(s, tmpl, 4, &obj), CKR_OK);
}

TEST_F(ObjectsTest, AllowedMechanismsAreAcceptedReturnedAndEnforcedAtInit) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  CK_MECHANISM_TYPE allowed[] = {CKM_AES_KEY_WRAP_KWP};
  CK_RV rv = CKR_OK;
  CK_OBJECT_HANDLE key =
      GenerateAes(p11(), s, {Attr(CKA_ALLOWED_MECHANISMS, allowed, sizeof allowed)}, &rv);
  ASSERT_EQ(rv, CKR_OK);
  CK_MECHANISM_TYPE back[4] = {};
  CK_ATTRIBUTE get = {CKA_ALLOWED_MECHANISMS, back, sizeof back};
  ASSERT_EQ(p11()->C_GetAttributeValue(s, key, &get, 1), CKR_OK);
  ASSERT_EQ(get.ulValueLen, sizeof allowed);
  EXPECT_EQ(back[0], allowed[0]);
  CK_BYTE iv[12] = {};
  CK_GCM_PARAMS gcm = {iv, sizeof iv, sizeof iv * 8, nullptr, 0, 128};
  CK_MECHANISM mech = {CKM_AES_GCM, &gcm, sizeof gcm};
  EXPECT_EQ(p11()->C_EncryptInit(s, &mech, key), CKR_MECHANISM_INVALID);
  CK_OBJECT_HANDLE free_key = GenerateAes(p11(), s, {});
  EXPECT_EQ(p11()->C_EncryptInit(s, &mech, free_key), CKR_OK);
}

TEST_F(ObjectsTest, WrapTemplateRoundTripsWithTheArrayLengthRules) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  CK_KEY_TYPE aes = CKK_AES;
  CK_ATTRIBUTE nested[] = {Attr(CKA_KEY_TYPE, &aes, sizeof aes),
                           Attr(CKA_EXTRACTABLE, &kTrue, sizeof kTrue)};
  CK_RV rv = CKR_OK;
  CK_OBJECT_HANDLE kek = GenerateAes(
      p11(), s, {Attr(CKA_WRAP_TEMPLATE, nested, sizeof nested), Attr(CKA_WRAP, &kTrue, 1)}, &rv);
  ASSERT_EQ(rv, CKR_OK);
  // 1: the length of the array; 2: each element's type and length; 3: values.
  CK_ATTRIBUTE get = {CKA_WRAP_TEMPLATE, nullptr, 0};
  ASSERT_EQ(p11()->C_GetAttributeValue(s, kek, &get, 1), CKR_OK);
  ASSERT_EQ(get.ulValueLen, sizeof nested);
  CK_ATTRIBUTE out[2] = {};
  get.pValue = out;
  ASSERT_EQ(p11()->C_GetAttributeValue(s, kek, &get, 1), CKR_OK);
  EXPECT_EQ(out[0].type, CKA_KEY_TYPE);
  EXPECT_EQ(out[0].ulValueLen, sizeof(CK_KEY_TYPE));
  EXPECT_EQ(out[1].type, CKA_EXTRACTABLE);
  CK_KEY_TYPE type_back = 0;
  CK_BBOOL bool_back = CK_FALSE;
  out[0].pValue = &type_back;
  out[1].pValue = &bool_back;
  ASSERT_EQ(p11()->C_GetAttributeValue(s, kek, &get, 1), CKR_OK);
  EXPECT_EQ(type_back, CKK_AES);
  EXPECT_EQ(bool_back, CK_TRUE);
  // Too small an array: CKR_BUFFER_TOO_SMALL and CK_UNAVAILABLE_INFORMATION.
  get.ulValueLen = sizeof(CK_ATTRIBUTE);
  EXPECT_EQ(p11()->C_GetAttributeValue(s, kek, &get, 1), CKR_BUFFER_TOO_SMALL);
  EXPECT_EQ(get.ulValueLen, CK_UNAVAILABLE_INFORMATION);

  // Enforced on C_WrapKey: an extractable AES key matches, an extractable
  // private key does not (CKR_KEY_NOT_WRAPPABLE).
  CK_OBJECT_HANDLE target = GenerateAes(p11(), s, {Attr(CKA_EXTRACTABLE, &kTrue, 1)});
  CK_MECHANISM kwp = {CKM_AES_KEY_WRAP_KWP, nullptr, 0};
  CK_ULONG len = 0;
  EXPECT_EQ(p11()->C_WrapKey(s, &kwp, kek, target, nullptr, &len), CKR_OK);
  CK_MECHANISM ec_gen = {CKM_EC_KEY_PAIR_GEN, nullptr, 0};
  CK_ATTRIBUTE pub_t[] = {Attr(CKA_EC_PARAMS, kP256Params, sizeof kP256Params)};
  CK_ATTRIBUTE priv_t[] = {Attr(CKA_EXTRACTABLE, &kTrue, 1)};
  CK_OBJECT_HANDLE pub = 0, priv = 0;
  ASSERT_EQ(p11()->C_GenerateKeyPair(s, &ec_gen, pub_t, 1, priv_t, 1, &pub, &priv), CKR_OK);
  EXPECT_EQ(p11()->C_WrapKey(s, &kwp, kek, priv, nullptr, &len), CKR_KEY_NOT_WRAPPABLE);
}

TEST_F(ObjectsTest, UnwrapTemplateContradictedIsInconsistent) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  CK_ATTRIBUTE nested[] = {Attr(CKA_SENSITIVE, &kTrue, 1)};
  CK_RV rv = CKR_OK;
  CK_OBJECT_HANDLE kek = GenerateAes(p11(), s,
                                     {Attr(CKA_UNWRAP_TEMPLATE, nested, sizeof nested),
                                      Attr(CKA_WRAP, &kTrue, 1), Attr(CKA_UNWRAP, &kTrue, 1)},
                                     &rv);
  ASSERT_EQ(rv, CKR_OK);
  CK_OBJECT_HANDLE target = GenerateAes(p11(), s, {Attr(CKA_EXTRACTABLE, &kTrue, 1)});
  CK_MECHANISM kwp = {CKM_AES_KEY_WRAP_KWP, nullptr, 0};
  CK_BYTE wrapped[128];
  CK_ULONG len = sizeof wrapped;
  ASSERT_EQ(p11()->C_WrapKey(s, &kwp, kek, target, wrapped, &len), CKR_OK);
  CK_OBJECT_CLASS secret = CKO_SECRET_KEY;
  CK_KEY_TYPE aes = CKK_AES;
  CK_ATTRIBUTE tmpl[] = {Attr(CKA_CLASS, &secret, sizeof secret),
                         Attr(CKA_KEY_TYPE, &aes, sizeof aes), Attr(CKA_SENSITIVE, &kFalse, 1)};
  CK_OBJECT_HANDLE out = 0;
  EXPECT_EQ(p11()->C_UnwrapKey(s, &kwp, kek, wrapped, len, tmpl, 3, &out),
            CKR_TEMPLATE_INCONSISTENT);
  EXPECT_EQ(p11()->C_UnwrapKey(s, &kwp, kek, wrapped, len, tmpl, 2, &out), CKR_OK);
  CK_BBOOL sensitive = CK_FALSE;
  CK_ATTRIBUTE get = {CKA_SENSITIVE, &sensitive, 1};
  ASSERT_EQ(p11()->C_GetAttributeValue(s, out, &get, 1), CKR_OK);
  EXPECT_EQ(sensitive, CK_TRUE);
}

BIGNUM* Bn(const std::vector<CK_BYTE>& b) {
  return BN_bin2bn(b.data(), static_cast<int>(b.size()), nullptr);
}

TEST_F(ObjectsTest, NonSensitiveKeysRevealTheirComponents) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  CK_MECHANISM ec_gen = {CKM_EC_KEY_PAIR_GEN, nullptr, 0};
  CK_ATTRIBUTE pub_t[] = {Attr(CKA_EC_PARAMS, kP256Params, sizeof kP256Params)};
  CK_ATTRIBUTE priv_t[] = {Attr(CKA_SENSITIVE, &kFalse, 1), Attr(CKA_EXTRACTABLE, &kTrue, 1)};
  CK_OBJECT_HANDLE pub = 0, priv = 0;
  ASSERT_EQ(p11()->C_GenerateKeyPair(s, &ec_gen, pub_t, 1, priv_t, 2, &pub, &priv), CKR_OK);
  std::vector<CK_BYTE> d = ReadAttribute(s, priv, CKA_VALUE);
  std::vector<CK_BYTE> point = ReadAttribute(s, pub, CKA_EC_POINT);
  ASSERT_EQ(point.size(), 67u);
  EC_GROUP* group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
  EC_POINT* computed = EC_POINT_new(group);
  BIGNUM* scalar = Bn(d);
  ASSERT_EQ(EC_POINT_mul(group, computed, scalar, nullptr, nullptr, nullptr), 1);
  unsigned char raw[65];
  ASSERT_EQ(
      EC_POINT_point2oct(group, computed, POINT_CONVERSION_UNCOMPRESSED, raw, sizeof raw, nullptr),
      65u);
  EXPECT_EQ(0, std::memcmp(raw, point.data() + 2, 65));
  BN_clear_free(scalar);
  EC_POINT_free(computed);
  EC_GROUP_free(group);

  // RSA: (m^e)^d == m mod n with the revealed d.
  CK_MECHANISM rsa_gen = {CKM_RSA_PKCS_KEY_PAIR_GEN, nullptr, 0};
  CK_ULONG bits = 2048;
  CK_ATTRIBUTE rsa_pub_t[] = {Attr(CKA_MODULUS_BITS, &bits, sizeof bits)};
  ASSERT_EQ(p11()->C_GenerateKeyPair(s, &rsa_gen, rsa_pub_t, 1, priv_t, 2, &pub, &priv), CKR_OK);
  BIGNUM* n = Bn(ReadAttribute(s, pub, CKA_MODULUS));
  BIGNUM* e = Bn(ReadAttribute(s, pub, CKA_PUBLIC_EXPONENT));
  BIGNUM* dd = Bn(ReadAttribute(s, priv, CKA_PRIVATE_EXPONENT));
  BN_CTX* ctx = BN_CTX_new();
  BIGNUM *m = BN_new(), *c = BN_new(), *back = BN_new();
  BN_set_word(m, 0xabcdef);
  BN_mod_exp(c, m, e, n, ctx);
  BN_mod_exp(back, c, dd, n, ctx);
  EXPECT_EQ(BN_cmp(back, m), 0);
  for (BIGNUM* b : {n, e, dd, m, c, back}) BN_clear_free(b);
  BN_CTX_free(ctx);

  // A sensitive key still refuses.
  CK_ATTRIBUTE sensitive_t[] = {Attr(CKA_SENSITIVE, &kTrue, 1)};
  ASSERT_EQ(p11()->C_GenerateKeyPair(s, &ec_gen, pub_t, 1, sensitive_t, 1, &pub, &priv), CKR_OK);
  CK_ATTRIBUTE get = {CKA_VALUE, nullptr, 0};
  EXPECT_EQ(p11()->C_GetAttributeValue(s, priv, &get, 1), CKR_ATTRIBUTE_SENSITIVE);
  EXPECT_EQ(get.ulValueLen, CK_UNAVAILABLE_INFORMATION);
}

}  // namespace
}  // namespace signet::e2e
