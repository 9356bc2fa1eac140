// C_DeriveKey from secret keys through the module against a real signetd,
// each derived value checked against an independent computation: OpenSSL's
// EVP_KDF "HKDF" (and RFC 5869's published test case 1) for CKM_HKDF_DERIVE,
// OpenSSL's EVP ciphers (no padding) for the AES and triple-DES
// encrypt-data derivations, plain byte arithmetic for concatenation and
// XOR (their definition). Then what C_GetMechanismInfo reports and the
// errors a caller of the C ABI can hit.
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

// OpensslEncrypt: `cipher` (an EVP name) over `data` without padding.
std::vector<CK_BYTE> OpensslEncrypt(const char* cipher, const std::vector<CK_BYTE>& key,
                                    const std::vector<CK_BYTE>& iv,
                                    const std::vector<CK_BYTE>& data) {
  EVP_CIPHER* c = EVP_CIPHER_fetch(nullptr, cipher, nullptr);
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  std::vector<CK_BYTE> out(data.size() + 32);
  int len = 0, tail = 0;
  EXPECT_NE(c, nullptr) << cipher;
  EXPECT_EQ(EVP_EncryptInit_ex2(ctx, c, key.data(), iv.empty() ? nullptr : iv.data(), nullptr), 1);
  EVP_CIPHER_CTX_set_padding(ctx, 0);
  EXPECT_EQ(EVP_EncryptUpdate(ctx, out.data(), &len, data.data(), static_cast<int>(data.size())),
            1);
  EXPECT_EQ(EVP_EncryptFinal_ex(ctx, out.data() + len, &tail), 1);
  out.resize(static_cast<std::size_t>(len + tail));
  EVP_CIPHER_CTX_free(ctx);
  EVP_CIPHER_free(c);
  return out;
}

class DeriveSecretTest : public ModuleTest {
 protected:
  void SetUp() override {
    ModuleTest::SetUp();
    session_ = OpenSession();
    LoginUser(session_);
  }

  // Secret imports a session secret key of `type` that may derive, readable
  // (keys derived from a sensitive or unextractable key are so too).
  CK_OBJECT_HANDLE Secret(std::vector<CK_BYTE> value, CK_KEY_TYPE type = CKK_GENERIC_SECRET) {
    CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
    CK_ATTRIBUTE tmpl[] = {{CKA_CLASS, &cls, sizeof(cls)},
                           {CKA_KEY_TYPE, &type, sizeof(type)},
                           {CKA_VALUE, value.data(), value.size()},
                           {CKA_TOKEN, const_cast<CK_BBOOL*>(&kFalse), 1},
                           {CKA_SENSITIVE, const_cast<CK_BBOOL*>(&kFalse), 1},
                           {CKA_EXTRACTABLE, const_cast<CK_BBOOL*>(&kTrue), 1},
                           {CKA_DERIVE, const_cast<CK_BBOOL*>(&kTrue), 1}};
    CK_OBJECT_HANDLE h = 0;
    EXPECT_EQ(p11()->C_CreateObject(session_, tmpl, 7, &h), CKR_OK);
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

// CKM_HKDF_DATA: the same HKDF, its output a data object's CKA_VALUE.
TEST_F(DeriveSecretTest, HkdfDataMakesADataObjectOfRfc5869sOutput) {
  const CK_OBJECT_HANDLE base = Secret(std::vector<CK_BYTE>(22, 0x0b));
  std::vector<CK_BYTE> salt = Unhex("000102030405060708090a0b0c");
  std::vector<CK_BYTE> info = Unhex("f0f1f2f3f4f5f6f7f8f9");
  HkdfParams p = {CK_TRUE,     CK_TRUE, CKM_SHA256,  CKF_HKDF_SALT_DATA, salt.data(),
                  salt.size(), 0,       info.data(), info.size()};
  CK_MECHANISM mech = {CKM_HKDF_DATA, &p, sizeof(p)};
  CK_OBJECT_CLASS cls = CKO_DATA;
  CK_ULONG len = 42;
  CK_ATTRIBUTE tmpl[] = {{CKA_CLASS, &cls, sizeof(cls)}, {CKA_VALUE_LEN, &len, sizeof(len)}};
  CK_OBJECT_HANDLE data = 0;
  ASSERT_EQ(p11()->C_DeriveKey(session_, &mech, base, tmpl, 2, &data), CKR_OK);
  EXPECT_EQ(ReadAttribute(session_, data, CKA_CLASS),
            std::vector<CK_BYTE>(reinterpret_cast<CK_BYTE*>(&cls),
                                 reinterpret_cast<CK_BYTE*>(&cls) + sizeof(cls)));
  EXPECT_EQ(Value(data), Unhex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
                               "34007208d5b887185865"));
  CK_MECHANISM_INFO mech_info{};
  ASSERT_EQ(p11()->C_GetMechanismInfo(TokenSlot(), CKM_HKDF_DATA, &mech_info), CKR_OK);
  EXPECT_EQ(mech_info.flags & ~CKF_HW, static_cast<CK_FLAGS>(CKF_DERIVE));
  // A secret key template is refused.
  cls = CKO_SECRET_KEY;
  EXPECT_EQ(p11()->C_DeriveKey(session_, &mech, base, tmpl, 2, &data), CKR_TEMPLATE_INCONSISTENT);
}

TEST_F(DeriveSecretTest, EncryptDataMatchesOpensslCiphers) {
  std::vector<CK_BYTE> data(48);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<CK_BYTE>(i * 7 + 1);
  struct Case {
    const char* name;
    CK_KEY_TYPE type;
    std::size_t key_len;
    CK_MECHANISM_TYPE ecb, cbc;
    const char *ecb_cipher, *cbc_cipher;
    std::size_t block;
  };
  const Case cases[] = {
      {"aes-128", CKK_AES, 16, CKM_AES_ECB_ENCRYPT_DATA, CKM_AES_CBC_ENCRYPT_DATA, "AES-128-ECB",
       "AES-128-CBC", 16},
      {"aes-256", CKK_AES, 32, CKM_AES_ECB_ENCRYPT_DATA, CKM_AES_CBC_ENCRYPT_DATA, "AES-256-ECB",
       "AES-256-CBC", 16},
      {"des3", CKK_DES3, 24, CKM_DES3_ECB_ENCRYPT_DATA, CKM_DES3_CBC_ENCRYPT_DATA, "DES-EDE3-ECB",
       "DES-EDE3-CBC", 8},
      {"des2", CKK_DES2, 16, CKM_DES3_ECB_ENCRYPT_DATA, CKM_DES3_CBC_ENCRYPT_DATA, "DES-EDE-ECB",
       "DES-EDE-CBC", 8},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<CK_BYTE> key(c.key_len);
    for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<CK_BYTE>(0xa1 + i * 13);
    const CK_OBJECT_HANDLE base = Secret(key, c.type);
    CK_KEY_DERIVATION_STRING_DATA string_data = {data.data(), data.size()};
    CK_OBJECT_HANDLE ecb_key = 0;
    ASSERT_EQ(Derive({c.ecb, &string_data, sizeof(string_data)}, base, 0, &ecb_key), CKR_OK);
    EXPECT_EQ(Value(ecb_key), OpensslEncrypt(c.ecb_cipher, key, {}, data));
    std::vector<CK_BYTE> iv(c.block);
    for (std::size_t i = 0; i < iv.size(); ++i) iv[i] = static_cast<CK_BYTE>(0xf0 - i);
    CK_OBJECT_HANDLE cbc_key = 0;
    if (c.type == CKK_AES) {
      CK_AES_CBC_ENCRYPT_DATA_PARAMS p = {};
      std::copy(iv.begin(), iv.end(), p.iv);
      p.pData = data.data();
      p.length = data.size();
      ASSERT_EQ(Derive({c.cbc, &p, sizeof(p)}, base, 0, &cbc_key), CKR_OK);
    } else {
      CK_DES_CBC_ENCRYPT_DATA_PARAMS p = {};
      std::copy(iv.begin(), iv.end(), p.iv);
      p.pData = data.data();
      p.length = data.size();
      ASSERT_EQ(Derive({c.cbc, &p, sizeof(p)}, base, 0, &cbc_key), CKR_OK);
    }
    const std::vector<CK_BYTE> cbc = OpensslEncrypt(c.cbc_cipher, key, iv, data);
    EXPECT_EQ(Value(cbc_key), cbc);
    // ECB and CBC differ after the first block (the comparison can fail).
    EXPECT_NE(Value(ecb_key), cbc);
  }
}

TEST_F(DeriveSecretTest, ConcatenationAndXorAreTheirDefinitions) {
  std::vector<CK_BYTE> a = Unhex("00112233445566778899aabbccddeeff");
  std::vector<CK_BYTE> b = Unhex("fedcba9876543210");
  std::vector<CK_BYTE> d = Unhex("0f1e2d3c4b5a69788796a5b4c3d2e1f0ff");
  const CK_OBJECT_HANDLE base = Secret(a);
  auto cat = [](std::vector<CK_BYTE> x, const std::vector<CK_BYTE>& y) {
    x.insert(x.end(), y.begin(), y.end());
    return x;
  };
  CK_OBJECT_HANDLE other = Secret(b);
  CK_OBJECT_HANDLE key = 0;
  ASSERT_EQ(Derive({CKM_CONCATENATE_BASE_AND_KEY, &other, sizeof(other)}, base, 0, &key), CKR_OK);
  EXPECT_EQ(Value(key), cat(a, b));
  CK_KEY_DERIVATION_STRING_DATA string_data = {d.data(), d.size()};
  CK_MECHANISM with_data = {CKM_CONCATENATE_BASE_AND_DATA, &string_data, sizeof(string_data)};
  ASSERT_EQ(Derive(with_data, base, 0, &key), CKR_OK);
  EXPECT_EQ(Value(key), cat(a, d));
  with_data.mechanism = CKM_CONCATENATE_DATA_AND_BASE;
  ASSERT_EQ(Derive(with_data, base, 0, &key), CKR_OK);
  EXPECT_EQ(Value(key), cat(d, a));
  with_data.mechanism = CKM_XOR_BASE_AND_DATA;
  ASSERT_EQ(Derive(with_data, base, 0, &key), CKR_OK);
  std::vector<CK_BYTE> x = a;
  for (std::size_t i = 0; i < x.size(); ++i) x[i] ^= d[i];
  EXPECT_EQ(Value(key), x);
  // A sensitive base key: its child is sensitive too, and a shortened one
  // is refused (docs/PKCS11.md "Derived keys").
  CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
  CK_KEY_TYPE generic = CKK_GENERIC_SECRET;
  CK_ATTRIBUTE sensitive_tmpl[] = {{CKA_CLASS, &cls, sizeof(cls)},
                                   {CKA_KEY_TYPE, &generic, sizeof(generic)},
                                   {CKA_VALUE, a.data(), a.size()},
                                   {CKA_DERIVE, const_cast<CK_BBOOL*>(&kTrue), 1}};
  CK_OBJECT_HANDLE sensitive = 0;
  ASSERT_EQ(p11()->C_CreateObject(session_, sensitive_tmpl, 4, &sensitive), CKR_OK);
  with_data.mechanism = CKM_CONCATENATE_BASE_AND_DATA;
  EXPECT_EQ(Derive(with_data, sensitive, 1, &key), CKR_TEMPLATE_INCONSISTENT);
  ASSERT_EQ(Derive(with_data, sensitive, 0, &key), CKR_OK);
  CK_BBOOL is_sensitive = CK_FALSE;
  CK_ATTRIBUTE get = {CKA_SENSITIVE, &is_sensitive, sizeof(is_sensitive)};
  ASSERT_EQ(p11()->C_GetAttributeValue(session_, key, &get, 1), CKR_OK);
  EXPECT_EQ(is_sensitive, CK_TRUE);
  CK_BYTE value[64];
  CK_ATTRIBUTE read = {CKA_VALUE, value, sizeof(value)};
  EXPECT_EQ(p11()->C_GetAttributeValue(session_, key, &read, 1), CKR_ATTRIBUTE_SENSITIVE);
}

TEST_F(DeriveSecretTest, MechanismInfoAndErrorsReachTheCaller) {
  CK_MECHANISM_INFO info{};
  ASSERT_EQ(p11()->C_GetMechanismInfo(TokenSlot(), CKM_HKDF_DERIVE, &info), CKR_OK);
  EXPECT_EQ(info.flags & ~CKF_HW, static_cast<CK_FLAGS>(CKF_DERIVE));
  ASSERT_EQ(p11()->C_GetMechanismInfo(TokenSlot(), CKM_HKDF_KEY_GEN, &info), CKR_OK);
  EXPECT_EQ(info.flags & ~CKF_HW, static_cast<CK_FLAGS>(CKF_GENERATE));
  for (CK_MECHANISM_TYPE type :
       {CKM_CONCATENATE_BASE_AND_KEY, CKM_CONCATENATE_BASE_AND_DATA, CKM_CONCATENATE_DATA_AND_BASE,
        CKM_XOR_BASE_AND_DATA, CKM_AES_ECB_ENCRYPT_DATA, CKM_AES_CBC_ENCRYPT_DATA,
        CKM_DES3_ECB_ENCRYPT_DATA, CKM_DES3_CBC_ENCRYPT_DATA}) {
    ASSERT_EQ(p11()->C_GetMechanismInfo(TokenSlot(), type, &info), CKR_OK) << type;
    EXPECT_EQ(info.flags & ~CKF_HW, static_cast<CK_FLAGS>(CKF_DERIVE)) << type;
  }
  ASSERT_EQ(p11()->C_GetMechanismInfo(TokenSlot(), CKM_AES_CBC_ENCRYPT_DATA, &info), CKR_OK);
  EXPECT_EQ(info.ulMinKeySize, 16u);
  EXPECT_EQ(info.ulMaxKeySize, 32u);

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
  // CONCATENATE_BASE_AND_KEY with an unknown other key; encrypt-data with
  // data that is not whole blocks, or a base key of another type.
  CK_OBJECT_HANDLE unknown = 0x7ffffff0;
  EXPECT_EQ(Derive({CKM_CONCATENATE_BASE_AND_KEY, &unknown, sizeof(unknown)}, base, 0, &key),
            CKR_KEY_HANDLE_INVALID);
  CK_BYTE odd[15] = {};
  CK_KEY_DERIVATION_STRING_DATA string_data = {odd, sizeof(odd)};
  const CK_OBJECT_HANDLE aes = Secret(std::vector<CK_BYTE>(16, 1), CKK_AES);
  EXPECT_EQ(Derive({CKM_AES_ECB_ENCRYPT_DATA, &string_data, sizeof(string_data)}, aes, 0, &key),
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(Derive({CKM_AES_ECB_ENCRYPT_DATA, &string_data, sizeof(string_data)}, base, 0, &key),
            CKR_KEY_TYPE_INCONSISTENT);
}

}  // namespace
}  // namespace signet::e2e
