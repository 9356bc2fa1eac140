// Ed448 and CK_EDDSA_PARAMS through the module against a real signetd:
// CKM_EC_EDWARDS_KEY_PAIR_GEN makes an Ed448 pair from the RFC 8410 OID or
// PKCS#11 3.0's printable "edwards448"; CKM_EDDSA signatures, without a
// parameter or with CK_EDDSA_PARAMS that ask for plain Ed448, verify with
// OpenSSL's EVP over the exported CKA_EC_POINT (an independent verifier).
// The forms OpenSSL 3.0 lacks (Ed25519ctx, Ed25519ph, Ed448 with a context,
// Ed448ph) are CKR_MECHANISM_PARAM_INVALID (docs/PKCS11.md "EdDSA").
#include <openssl/evp.h>

#include <memory>

#include "module_fixture.h"

namespace signet::e2e {
namespace {

constexpr CK_BBOOL kTrue = CK_TRUE;
constexpr CK_BBOOL kFalse = CK_FALSE;
const std::vector<CK_BYTE> kEd448Oid = {0x06, 0x03, 0x2b, 0x65, 0x71};
const std::vector<CK_BYTE> kEd448Name = {0x13, 0x0a, 'e', 'd', 'w', 'a',
                                         'r',  'd',  's', '4', '4', '8'};
const std::vector<CK_BYTE> kEd25519Oid = {0x06, 0x03, 0x2b, 0x65, 0x70};

// EddsaParams: CK_EDDSA_PARAMS as PKCS#11 3.0 section 2.3.14 lays it out
// (p11-kit 0.24's header lacks it).
struct EddsaParams {
  CK_BBOOL phFlag;
  CK_ULONG ulContextDataLen;
  CK_BYTE_PTR pContextData;
};

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};

// OpensslVerifies: `sig` is an EdDSA signature of `message` under the raw
// public key `point` (a DER OCTET STRING, as CKA_EC_POINT holds it).
bool OpensslVerifies(const char* curve, const std::vector<CK_BYTE>& point,
                     const std::vector<CK_BYTE>& message, const std::vector<CK_BYTE>& sig) {
  if (point.size() < 2) return false;
  std::unique_ptr<EVP_PKEY, PkeyFree> key(
      EVP_PKEY_new_raw_public_key_ex(nullptr, curve, nullptr, point.data() + 2, point.size() - 2));
  if (!key) return false;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  bool ok =
      EVP_DigestVerifyInit_ex(ctx, nullptr, nullptr, nullptr, nullptr, key.get(), nullptr) == 1 &&
      EVP_DigestVerify(ctx, sig.data(), sig.size(), message.data(), message.size()) == 1;
  EVP_MD_CTX_free(ctx);
  return ok;
}

class EddsaTest : public ModuleTest {
 protected:
  void SetUp() override {
    ModuleTest::SetUp();
    session_ = OpenSession();
    LoginUser(session_);
  }

  // Generate makes an Edwards pair on the curve `params` names.
  CK_RV Generate(const std::vector<CK_BYTE>& params, CK_OBJECT_HANDLE* pub,
                 CK_OBJECT_HANDLE* priv) {
    CK_MECHANISM gen = {CKM_EC_EDWARDS_KEY_PAIR_GEN, nullptr, 0};
    CK_ATTRIBUTE pub_tmpl[] = {{CKA_EC_PARAMS, const_cast<CK_BYTE*>(params.data()), params.size()},
                               {CKA_TOKEN, const_cast<CK_BBOOL*>(&kFalse), 1}};
    CK_ATTRIBUTE priv_tmpl[] = {{CKA_TOKEN, const_cast<CK_BBOOL*>(&kFalse), 1},
                                {CKA_SIGN, const_cast<CK_BBOOL*>(&kTrue), 1}};
    return p11()->C_GenerateKeyPair(session_, &gen, pub_tmpl, 2, priv_tmpl, 2, pub, priv);
  }

  // Sign signs `message` with CKM_EDDSA and `params` (none when null).
  CK_RV Sign(CK_OBJECT_HANDLE priv, EddsaParams* params, const std::vector<CK_BYTE>& message,
             std::vector<CK_BYTE>* sig) {
    CK_MECHANISM mech = {CKM_EDDSA, params, params == nullptr ? 0 : sizeof(EddsaParams)};
    CK_RV rv = p11()->C_SignInit(session_, &mech, priv);
    if (rv != CKR_OK) return rv;
    sig->assign(200, 0);
    CK_ULONG len = sig->size();
    rv = p11()->C_Sign(session_, const_cast<CK_BYTE*>(message.data()), message.size(), sig->data(),
                       &len);
    sig->resize(len);
    return rv;
  }

  CK_SESSION_HANDLE session_ = 0;
};

TEST_F(EddsaTest, Ed448SignaturesVerifyWithOpenssl) {
  const std::vector<CK_BYTE> message = {'s', 'i', 'g', 'n', 'e', 't', ' ', '4', '4', '8'};
  for (const std::vector<CK_BYTE>* params : {&kEd448Oid, &kEd448Name}) {
    CK_OBJECT_HANDLE pub = 0, priv = 0;
    ASSERT_EQ(Generate(*params, &pub, &priv), CKR_OK);
    // Stored with the OID whichever name the template used.
    EXPECT_EQ(ReadAttribute(session_, pub, CKA_EC_PARAMS), kEd448Oid);
    const std::vector<CK_BYTE> point = ReadAttribute(session_, pub, CKA_EC_POINT);
    ASSERT_EQ(point.size(), 59u);  // 04 39, then 57 bytes
    EXPECT_EQ(point[0], 0x04);
    std::vector<CK_BYTE> sig;
    ASSERT_EQ(Sign(priv, nullptr, message, &sig), CKR_OK);
    EXPECT_EQ(sig.size(), 114u);
    EXPECT_TRUE(OpensslVerifies("ED448", point, message, sig));
    // CK_EDDSA_PARAMS asking for plain Ed448: the same (deterministic) signature.
    EddsaParams plain = {CK_FALSE, 0, nullptr};
    std::vector<CK_BYTE> again;
    ASSERT_EQ(Sign(priv, &plain, message, &again), CKR_OK);
    EXPECT_EQ(again, sig);
    // Another message does not verify (the check can fail).
    std::vector<CK_BYTE> other = message;
    other[0] ^= 1;
    EXPECT_FALSE(OpensslVerifies("ED448", point, other, sig));
  }
  CK_MECHANISM_INFO info{};
  ASSERT_EQ(p11()->C_GetMechanismInfo(TokenSlot(), CKM_EDDSA, &info), CKR_OK);
  EXPECT_EQ(info.ulMinKeySize, 255u);
  EXPECT_EQ(info.ulMaxKeySize, 448u);
}

TEST_F(EddsaTest, ContextAndPrehashFormsAreRefused) {
  const std::vector<CK_BYTE> message = {1, 2, 3};
  CK_OBJECT_HANDLE pub448 = 0, priv448 = 0, pub25519 = 0, priv25519 = 0;
  ASSERT_EQ(Generate(kEd448Oid, &pub448, &priv448), CKR_OK);
  ASSERT_EQ(Generate(kEd25519Oid, &pub25519, &priv25519), CKR_OK);
  CK_BYTE context[] = {'c', 't', 'x'};
  EddsaParams prehash = {CK_TRUE, 0, nullptr};
  EddsaParams with_context = {CK_FALSE, sizeof(context), context};
  EddsaParams plain = {CK_FALSE, 0, nullptr};
  std::vector<CK_BYTE> sig;
  EXPECT_EQ(Sign(priv448, &prehash, message, &sig), CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(Sign(priv448, &with_context, message, &sig), CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(Sign(priv25519, &prehash, message, &sig), CKR_MECHANISM_PARAM_INVALID);
  // For Ed25519 any CK_EDDSA_PARAMS mean Ed25519ctx or Ed25519ph.
  EXPECT_EQ(Sign(priv25519, &plain, message, &sig), CKR_MECHANISM_PARAM_INVALID);
  // A parameter of the wrong size.
  CK_MECHANISM short_param = {CKM_EDDSA, &plain, sizeof(plain) - 1};
  EXPECT_EQ(p11()->C_SignInit(session_, &short_param, priv448), CKR_MECHANISM_PARAM_INVALID);
  // Plain Ed25519 still signs.
  ASSERT_EQ(Sign(priv25519, nullptr, message, &sig), CKR_OK);
  EXPECT_TRUE(
      OpensslVerifies("ED25519", ReadAttribute(session_, pub25519, CKA_EC_POINT), message, sig));
}

}  // namespace
}  // namespace signet::e2e
