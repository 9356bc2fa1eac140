// C_DeriveKey from secret keys through the module against a real signetd,
// each derived value checked against an independent computation: OpenSSL's
// EVP_KDF "HKDF" (and RFC 5869's published test case 1) for CKM_HKDF_DERIVE.
// Then what C_GetMechanismInfo reports and the errors a caller of the C ABI
// can hit.
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>

#include <string>

#include "module_fixture.h"

namespace signet::e2e {
namespace {

constexpr CK_BBOOL kTrue = CK_TRUE;
constexpr CK_BBOOL kFalse = CK_FALSE;

// HkdfParams: CK_HKDF_PARAMS as PKCS#11 3.0 section 2.43.3 lays it out
// (p11-kit 0.24's header lacks it; the module's own copy is not visible to
// a test that plays the application).
struct HkdfParams {
  CK_BBOOL bExtract;
  CK_BBOOL bExpand;
  CK_MECHANISM_TYPE prfHashMechanism;
  CK_ULONG ulSaltType;
  CK_BYTE_PTR pSalt;
  CK_ULONG ulSaltLen;
  CK_OBJECT_HANDLE hSaltKey;
  CK_BYTE_PTR pInfo;
  CK_ULONG ulInfoLen;
};

std::vector<CK_BYTE> Unhex(const std::string& hex) {
  std::vector<CK_BYTE> out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<CK_BYTE>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

// OpensslHkdf: OpenSSL's HKDF (extract and expand) with `digest`.
std::vector<CK_BYTE> OpensslHkdf(const char* digest, std::vector<CK_BYTE> key,
                                 std::vector<CK_BYTE> salt, std::vector<CK_BYTE> info,
                                 std::size_t len) {
  EVP_KDF* kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
  EVP_KDF_CTX* ctx = EVP_KDF_CTX_new(kdf);
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>(digest), 0),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, key.data(), key.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, salt.data(), salt.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info.data(), info.size()),
      OSSL_PARAM_END};
  std::vector<CK_BYTE> out(len);
  EXPECT_EQ(EVP_KDF_derive(ctx, out.data(), out.size(), params), 1);
  EVP_KDF_CTX_free(ctx);
  EVP_KDF_free(kdf);
  return out;
}

class DeriveSecretTest : public ModuleTest {
 protected:
  void SetUp() override {
    ModuleTest::SetUp();
    session_ = OpenSession();
    LoginUser(session_);
  }

  // Secret imports a session secret key of `type` that may derive.
  CK_OBJECT_HANDLE Secret(std::vector<CK_BYTE> value, CK_KEY_TYPE type = CKK_GENERIC_SECRET) {
    CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
    CK_ATTRIBUTE tmpl[] = {{CKA_CLASS, &cls, sizeof(cls)},
                           {CKA_KEY_TYPE, &type, sizeof(type)},
                           {CKA_VALUE, value.data(), value.size()},
                           {CKA_TOKEN, const_cast<CK_BBOOL*>(&kFalse), 1},
                           {CKA_DERIVE, const_cast<CK_BBOOL*>(&kTrue), 1}};
    CK_OBJECT_HANDLE h = 0;
    EXPECT_EQ(p11()->C_CreateObject(session_, tmpl, 5, &h), CKR_OK);
    return h;
  }

  // Derive runs C_DeriveKey for a readable generic secret of `len` bytes
  // (none given when 0).
  CK_RV Derive(CK_MECHANISM mech, CK_OBJECT_HANDLE base, CK_ULONG len, CK_OBJECT_HANDLE* key) {
    CK_ATTRIBUTE tmpl[] = {{CKA_SENSITIVE, const_cast<CK_BBOOL*>(&kFalse), 1},
                           {CKA_EXTRACTABLE, const_cast<CK_BBOOL*>(&kTrue), 1},
                           {CKA_VALUE_LEN, &len, sizeof(len)}};
    return p11()->C_DeriveKey(session_, &mech, base, tmpl, len == 0 ? 2 : 3, key);
  }

  std::vector<CK_BYTE> Value(CK_OBJECT_HANDLE key) {
    return ReadAttribute(session_, key, CKA_VALUE);
  }

  CK_SESSION_HANDLE session_ = 0;
};

TEST_F(DeriveSecretTest, HkdfMatchesRfc5869AndOpenssl) {
  std::vector<CK_BYTE> ikm(22, 0x0b);
  std::vector<CK_BYTE> salt = Unhex("000102030405060708090a0b0c");
  std::vector<CK_BYTE> info = Unhex("f0f1f2f3f4f5f6f7f8f9");
  const CK_OBJECT_HANDLE base = Secret(ikm);
  HkdfParams p = {CK_TRUE,     CK_TRUE, CKM_SHA256,  CKF_HKDF_SALT_DATA, salt.data(),
                  salt.size(), 0,       info.data(), info.size()};
  CK_MECHANISM mech = {CKM_HKDF_DERIVE, &p, sizeof(p)};
  CK_OBJECT_HANDLE key = 0;
  ASSERT_EQ(Derive(mech, base, 42, &key), CKR_OK);
  EXPECT_EQ(Value(key), Unhex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
                              "34007208d5b887185865"));
  // Every PRF hash, the salt as a CKK_HKDF key, against OpenSSL.
  p.ulSaltType = CKF_HKDF_SALT_KEY;
  p.pSalt = nullptr;
  p.ulSaltLen = 0;
  p.hSaltKey = Secret(salt, CKK_HKDF);
  const std::pair<CK_MECHANISM_TYPE, const char*> hashes[] = {{CKM_SHA_1, "SHA1"},
                                                              {CKM_SHA224, "SHA224"},
                                                              {CKM_SHA256, "SHA256"},
                                                              {CKM_SHA384, "SHA384"},
                                                              {CKM_SHA512, "SHA512"}};
  for (const auto& [prf, name] : hashes) {
    SCOPED_TRACE(name);
    p.prfHashMechanism = prf;
    ASSERT_EQ(Derive(mech, base, 100, &key), CKR_OK);
    EXPECT_EQ(Value(key), OpensslHkdf(name, ikm, salt, info, 100));
  }
  // Another info string, another key (the comparison can fail).
  info[0] ^= 1;
  EXPECT_NE(Value(key), OpensslHkdf("SHA512", ikm, salt, info, 100));
}

TEST_F(DeriveSecretTest, MechanismInfoAndErrorsReachTheCaller) {
  CK_MECHANISM_INFO info{};
  ASSERT_EQ(p11()->C_GetMechanismInfo(TokenSlot(), CKM_HKDF_DERIVE, &info), CKR_OK);
  EXPECT_EQ(info.flags & ~CKF_HW, static_cast<CK_FLAGS>(CKF_DERIVE));
  ASSERT_EQ(p11()->C_GetMechanismInfo(TokenSlot(), CKM_HKDF_KEY_GEN, &info), CKR_OK);
  EXPECT_EQ(info.flags & ~CKF_HW, static_cast<CK_FLAGS>(CKF_GENERATE));

  const CK_OBJECT_HANDLE base = Secret(std::vector<CK_BYTE>(32, 7));
  HkdfParams p = {CK_TRUE, CK_TRUE, CKM_SHA256, CKF_HKDF_SALT_NULL, nullptr, 0, 0, nullptr, 0};
  CK_OBJECT_HANDLE key = 0;
  // A parameter of the wrong size, none at all, an unknown salt key.
  EXPECT_EQ(Derive({CKM_HKDF_DERIVE, &p, sizeof(p) - 1}, base, 32, &key),
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(Derive({CKM_HKDF_DERIVE, nullptr, 0}, base, 32, &key), CKR_MECHANISM_PARAM_INVALID);
  p.ulSaltType = CKF_HKDF_SALT_KEY;
  p.hSaltKey = 0x7ffffff0;
  EXPECT_EQ(Derive({CKM_HKDF_DERIVE, &p, sizeof(p)}, base, 32, &key), CKR_KEY_HANDLE_INVALID);
  // Expanding needs a length.
  p.ulSaltType = CKF_HKDF_SALT_NULL;
  EXPECT_EQ(Derive({CKM_HKDF_DERIVE, &p, sizeof(p)}, base, 0, &key), CKR_TEMPLATE_INCOMPLETE);
  ASSERT_EQ(Derive({CKM_HKDF_DERIVE, &p, sizeof(p)}, base, 32, &key), CKR_OK);
}

}  // namespace
}  // namespace signet::e2e
