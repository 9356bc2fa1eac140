// Ed448 and CK_EDDSA_PARAMS through the module against a real signetd:
// CKM_EC_EDWARDS_KEY_PAIR_GEN makes an Ed448 pair from the RFC 8410 OID or
// PKCS#11 3.0's printable "edwards448"; CKM_EDDSA signatures, without a
// parameter or with CK_EDDSA_PARAMS that ask for plain Ed448, verify with
// OpenSSL's EVP over the exported CKA_EC_POINT (an independent verifier).
// The instances OpenSSL 3.0 lacks (Ed25519ctx, Ed25519ph, Ed448 with a
// context, Ed448ph) give RFC 8032 section 7's exact signatures for its keys,
// imported with C_CreateObject, in one part and in several; the parameter
// rules hold (docs/PKCS11.md "EdDSA").
#include <openssl/evp.h>

#include <memory>
#include <string>
#include <string_view>

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

// Rfc8032Vector: one signature of RFC 8032 section 7 under an instance
// CK_EDDSA_PARAMS select.
struct Rfc8032Vector {
  const std::vector<CK_BYTE>* oid;
  bool prehash;
  const char *secret, *public_key, *message, *context, *signature;
};

std::vector<CK_BYTE> Hex(std::string_view hex) {
  std::vector<CK_BYTE> out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<CK_BYTE>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

const Rfc8032Vector kInstanceVectors[] = {
    // 7.2 Ed25519ctx "foo"
    {&kEd25519Oid, false, "0305334e381af78f141cb666f6199f57bc3495335a256a95bd2a55bf546663f6",
     "dfc9425e4f968f7f0c29f0259cf5f9aed6851c2bb4ad8bfb860cfee0ab248292",
     "f726936d19c800494e3fdaff20b276a8", "666f6f",
     "55a4cc2f70a54e04288c5f4cd1e45a7bb520b36292911876cada7323198dd87a8b36950b95130022907a7fb7c4e9b"
     "2"
     "d5f6cca685a587b4b21f4b888e4e7edb0d"},
    // 7.3 Ed25519ph "abc"
    {&kEd25519Oid, true, "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
     "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf", "616263", "",
     "98a70222f0b8121aa9d30f813d683f809e462b469c7ff87639499bb94e6dae4131f85042463c2a355a2003d062adf"
     "5"
     "aaa10b8c61e636062aaad11c2a26083406"},
    // 7.4 Ed448, "1 octet (with context)"
    {&kEd448Oid, false,
     "c4eab05d357007c632f3dbb48489924d552b08fe0c353a0d4a1f00acda2c463afbea67c5e8d2877c5e3bc397a6599"
     "4"
     "9ef8021e954e0a12274e",
     "43ba28f430cdff456ae531545f7ecd0ac834a55d9358c0372bfa0c6c6798c0866aea01eb00742802b8438ea4cb821"
     "6"
     "9c235160627b4c3a9480",
     "03", "666f6f",
     "d4f8f6131770dd46f40867d6fd5d5055de43541f8c5e35abbcd001b32a89f7d2151f7647f11d8ca2ae279fb842d60"
     "7"
     "217fce6e042f6815ea000c85741de5c8da1144a6a1aba7f96de42505d7a7298524fda538fccbbb754f578c1cad10d"
     "5"
     "4d0d5428407e85dcbc98a49155c13764e66c3c00"},
    // 7.5 Ed448ph "abc" with the context "foo"
    {&kEd448Oid, true,
     "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42ef7822e0d5104127dc05d6dbefde6"
     "9"
     "e3ab2cec7c867c6e2c49",
     "259b71c19f83ef77a7abd26524cbdb3161b590a48f7d17de3ee0ba9c52beb743c09428a131d6b1b57303d90d8132c"
     "2"
     "76d5ed3d5d01c0f53880",
     "616263", "666f6f",
     "c32299d46ec8ff02b54540982814dce9a05812f81962b649d528095916a2aa481065b1580423ef927ecf0af5888f9"
     "0"
     "da0f6a9a85ad5dc3f280d91224ba9911a3653d00e484e2ce232521481c8658df304bb7745a73514cdb9bf3e15784a"
     "b"
     "71284f8d0704a608c54a6b62d97beb511d132100"},
};

class EddsaInstanceTest : public EddsaTest {
 protected:
  // Import makes session objects of the vector's key pair.
  void Import(const Rfc8032Vector& v, CK_OBJECT_HANDLE* pub, CK_OBJECT_HANDLE* priv) {
    CK_OBJECT_CLASS priv_class = CKO_PRIVATE_KEY, pub_class = CKO_PUBLIC_KEY;
    CK_KEY_TYPE type = CKK_EC_EDWARDS;
    std::vector<CK_BYTE> secret = Hex(v.secret);
    std::vector<CK_BYTE> point = Hex(v.public_key);
    point.insert(point.begin(), {0x04, static_cast<CK_BYTE>(point.size())});
    auto* oid = const_cast<CK_BYTE*>(v.oid->data());
    CK_ATTRIBUTE priv_tmpl[] = {{CKA_CLASS, &priv_class, sizeof(priv_class)},
                                {CKA_KEY_TYPE, &type, sizeof(type)},
                                {CKA_EC_PARAMS, oid, v.oid->size()},
                                {CKA_VALUE, secret.data(), secret.size()},
                                {CKA_SIGN, const_cast<CK_BBOOL*>(&kTrue), 1}};
    ASSERT_EQ(p11()->C_CreateObject(session_, priv_tmpl, 5, priv), CKR_OK);
    CK_ATTRIBUTE pub_tmpl[] = {{CKA_CLASS, &pub_class, sizeof(pub_class)},
                               {CKA_KEY_TYPE, &type, sizeof(type)},
                               {CKA_EC_PARAMS, oid, v.oid->size()},
                               {CKA_EC_POINT, point.data(), point.size()},
                               {CKA_VERIFY, const_cast<CK_BBOOL*>(&kTrue), 1}};
    ASSERT_EQ(p11()->C_CreateObject(session_, pub_tmpl, 5, pub), CKR_OK);
  }

  // SignInParts signs `message` with C_SignUpdate one byte at a time.
  CK_RV SignInParts(CK_OBJECT_HANDLE priv, EddsaParams* params, const std::vector<CK_BYTE>& message,
                    std::vector<CK_BYTE>* sig) {
    CK_MECHANISM mech = {CKM_EDDSA, params, sizeof(EddsaParams)};
    CK_RV rv = p11()->C_SignInit(session_, &mech, priv);
    for (std::size_t i = 0; rv == CKR_OK && i < message.size(); ++i) {
      rv = p11()->C_SignUpdate(session_, const_cast<CK_BYTE*>(&message[i]), 1);
    }
    if (rv != CKR_OK) return rv;
    sig->assign(200, 0);
    CK_ULONG len = sig->size();
    rv = p11()->C_SignFinal(session_, sig->data(), &len);
    sig->resize(len);
    return rv;
  }

  CK_RV Verify(CK_OBJECT_HANDLE pub, EddsaParams* params, const std::vector<CK_BYTE>& message,
               std::vector<CK_BYTE> sig) {
    CK_MECHANISM mech = {CKM_EDDSA, params, sizeof(EddsaParams)};
    CK_RV rv = p11()->C_VerifyInit(session_, &mech, pub);
    if (rv != CKR_OK) return rv;
    return p11()->C_Verify(session_, const_cast<CK_BYTE*>(message.data()), message.size(),
                           sig.data(), sig.size());
  }
};

TEST_F(EddsaInstanceTest, SignaturesAreRfc8032Section7s) {
  for (const Rfc8032Vector& v : kInstanceVectors) {
    SCOPED_TRACE(std::string(v.signature).substr(0, 16));
    CK_OBJECT_HANDLE pub = 0, priv = 0;
    Import(v, &pub, &priv);
    std::vector<CK_BYTE> context = Hex(v.context);
    EddsaParams params = {static_cast<CK_BBOOL>(v.prehash), context.size(),
                          context.empty() ? nullptr : context.data()};
    const std::vector<CK_BYTE> message = Hex(v.message);
    const std::vector<CK_BYTE> expected = Hex(v.signature);
    std::vector<CK_BYTE> sig;
    ASSERT_EQ(Sign(priv, &params, message, &sig), CKR_OK);
    EXPECT_EQ(sig, expected);
    ASSERT_EQ(SignInParts(priv, &params, message, &sig), CKR_OK);
    EXPECT_EQ(sig, expected);
    EXPECT_EQ(Verify(pub, &params, message, expected), CKR_OK);
    // The other prehash flag, another context, a tampered signature: refused.
    std::vector<CK_BYTE> other_context = {'b', 'a', 'r'};
    EddsaParams flipped = {static_cast<CK_BBOOL>(!v.prehash), other_context.size(),
                           other_context.data()};
    EddsaParams bar = {params.phFlag, other_context.size(), other_context.data()};
    EXPECT_EQ(Verify(pub, &flipped, message, expected), CKR_SIGNATURE_INVALID);
    EXPECT_EQ(Verify(pub, &bar, message, expected), CKR_SIGNATURE_INVALID);
    std::vector<CK_BYTE> tampered = expected;
    tampered[7] ^= 1;
    EXPECT_EQ(Verify(pub, &params, message, tampered), CKR_SIGNATURE_INVALID);
  }
}

TEST_F(EddsaTest, InstanceParametersAreChecked) {
  const std::vector<CK_BYTE> message = {1, 2, 3};
  CK_OBJECT_HANDLE pub448 = 0, priv448 = 0, pub25519 = 0, priv25519 = 0;
  ASSERT_EQ(Generate(kEd448Oid, &pub448, &priv448), CKR_OK);
  ASSERT_EQ(Generate(kEd25519Oid, &pub25519, &priv25519), CKR_OK);
  EddsaParams plain = {CK_FALSE, 0, nullptr};
  std::vector<CK_BYTE> sig;
  // For Ed25519, CK_EDDSA_PARAMS without prehash or context ask for
  // Ed25519ctx with an empty context, which RFC 8032 does not define.
  EXPECT_EQ(Sign(priv25519, &plain, message, &sig), CKR_MECHANISM_PARAM_INVALID);
  // A context of 256 bytes is one too many, for either curve.
  std::vector<CK_BYTE> long_context(256, 'c');
  EddsaParams too_long = {CK_TRUE, long_context.size(), long_context.data()};
  EXPECT_EQ(Sign(priv25519, &too_long, message, &sig), CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(Sign(priv448, &too_long, message, &sig), CKR_MECHANISM_PARAM_INVALID);
  too_long.ulContextDataLen = 255;
  ASSERT_EQ(Sign(priv448, &too_long, message, &sig), CKR_OK);
  EXPECT_EQ(sig.size(), 114u);
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
