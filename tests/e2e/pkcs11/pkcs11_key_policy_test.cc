// The published PKCS#11 key-extraction attacks, each played through the
// module against a real signetd as an application with the user's PIN
// would play it: Clulow 2003; Delaune, Kremer and Steel 2008; Bortolozzo,
// Centenaro, Focardi and Steel 2010 ("Tookan"). Each ends by showing the
// sensitive key's value was not revealed: its CKA_VALUE stays unreadable,
// and the step that would have handed it out is refused (docs/PKCS11.md
// "Key-management policy").
#include <cstring>
#include <vector>

#include "module_fixture.h"

namespace signet::e2e {
namespace {

constexpr CK_BBOOL kTrue = CK_TRUE;
constexpr CK_BBOOL kFalse = CK_FALSE;
constexpr CK_ULONG kAesLen = 32;

CK_ATTRIBUTE Attr(CK_ATTRIBUTE_TYPE type, const void* value, CK_ULONG len) {
  return CK_ATTRIBUTE{type, const_cast<void*>(value), len};
}

class KeyExtractionTest : public ModuleTest {
 protected:
  void SetUp() override {
    ModuleTest::SetUp();
    if (HasFatalFailure()) return;
    s_ = OpenSession();
    LoginUser(s_);
    // The target: sensitive, but extractable (it may leave wrapped).
    secret_ = Generate({Attr(CKA_EXTRACTABLE, &kTrue, 1)});
  }

  // TryGenerate makes a session AES-256 key with `extra` attributes.
  CK_RV TryGenerate(std::vector<CK_ATTRIBUTE> extra, CK_OBJECT_HANDLE* key) {
    CK_MECHANISM gen = {CKM_AES_KEY_GEN, nullptr, 0};
    extra.push_back(Attr(CKA_VALUE_LEN, &kAesLen, sizeof kAesLen));
    return p11()->C_GenerateKey(s_, &gen, extra.data(), extra.size(), key);
  }
  CK_OBJECT_HANDLE Generate(std::vector<CK_ATTRIBUTE> extra) {
    CK_OBJECT_HANDLE key = 0;
    EXPECT_EQ(TryGenerate(std::move(extra), &key), CKR_OK);
    return key;
  }
  // Import creates an AES key whose value the attacker chose.
  CK_OBJECT_HANDLE Import(const std::vector<CK_BYTE>& value, std::vector<CK_ATTRIBUTE> extra) {
    CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
    CK_KEY_TYPE type = CKK_AES;
    extra.push_back(Attr(CKA_CLASS, &cls, sizeof cls));
    extra.push_back(Attr(CKA_KEY_TYPE, &type, sizeof type));
    extra.push_back(Attr(CKA_VALUE, value.data(), value.size()));
    CK_OBJECT_HANDLE key = 0;
    EXPECT_EQ(p11()->C_CreateObject(s_, extra.data(), extra.size(), &key), CKR_OK);
    return key;
  }
  // Wrap wraps `key` under `kek` with RFC 3394 into `out`.
  CK_RV Wrap(CK_OBJECT_HANDLE kek, CK_OBJECT_HANDLE key, std::vector<CK_BYTE>* out) {
    CK_MECHANISM kw = {CKM_AES_KEY_WRAP, nullptr, 0};
    out->assign(64, 0);
    CK_ULONG len = out->size();
    CK_RV rv = p11()->C_WrapKey(s_, &kw, kek, key, out->data(), &len);
    out->resize(rv == CKR_OK ? len : 0);
    return rv;
  }
  // Unwrap unwraps an AES key with `extra` attributes from `blob`.
  CK_RV Unwrap(CK_OBJECT_HANDLE kek, const std::vector<CK_BYTE>& blob,
               std::vector<CK_ATTRIBUTE> extra, CK_OBJECT_HANDLE* key) {
    CK_MECHANISM kw = {CKM_AES_KEY_WRAP, nullptr, 0};
    CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
    CK_KEY_TYPE type = CKK_AES;
    extra.push_back(Attr(CKA_CLASS, &cls, sizeof cls));
    extra.push_back(Attr(CKA_KEY_TYPE, &type, sizeof type));
    return p11()->C_UnwrapKey(s_, &kw, kek, const_cast<CK_BYTE*>(blob.data()), blob.size(),
                              extra.data(), extra.size(), key);
  }
  // ExpectValueHidden: `key`'s CKA_VALUE cannot be read.
  void ExpectValueHidden(CK_OBJECT_HANDLE key) {
    CK_BYTE value[64];
    CK_ATTRIBUTE get = {CKA_VALUE, value, sizeof value};
    EXPECT_EQ(p11()->C_GetAttributeValue(s_, key, &get, 1), CKR_ATTRIBUTE_SENSITIVE);
    EXPECT_EQ(get.ulValueLen, CK_UNAVAILABLE_INFORMATION);
  }

  CK_SESSION_HANDLE s_ = 0;
  CK_OBJECT_HANDLE secret_ = 0;
};

// Clulow 2003: wrap the secret under K, then C_Decrypt the blob with K.
TEST_F(KeyExtractionTest, WrapThenDecryptWithTheSameKey) {
  CK_OBJECT_HANDLE both = 0;
  EXPECT_EQ(TryGenerate({Attr(CKA_WRAP, &kTrue, 1), Attr(CKA_DECRYPT, &kTrue, 1)}, &both),
            CKR_TEMPLATE_INCONSISTENT);
  const CK_OBJECT_HANDLE kek = Generate({Attr(CKA_WRAP, &kTrue, 1)});
  std::vector<CK_BYTE> blob;
  ASSERT_EQ(Wrap(kek, secret_, &blob), CKR_OK);
  CK_MECHANISM ecb = {CKM_AES_ECB, nullptr, 0};
  EXPECT_EQ(p11()->C_DecryptInit(s_, &ecb, kek), CKR_KEY_FUNCTION_NOT_PERMITTED);
  ExpectValueHidden(secret_);
}

// Tookan: the same, after giving the wrapping key the decrypt role by
// C_SetAttributeValue or in a copy.
TEST_F(KeyExtractionTest, RoleChangeByAttributeOrCopy) {
  const CK_OBJECT_HANDLE kek = Generate({Attr(CKA_WRAP, &kTrue, 1)});
  CK_ATTRIBUTE decrypt = Attr(CKA_DECRYPT, &kTrue, 1);
  EXPECT_EQ(p11()->C_SetAttributeValue(s_, kek, &decrypt, 1), CKR_TEMPLATE_INCONSISTENT);
  CK_OBJECT_HANDLE copy = 0;
  EXPECT_EQ(p11()->C_CopyObject(s_, kek, &decrypt, 1, &copy), CKR_TEMPLATE_INCONSISTENT);
  // Nor the other way: an encryption key does not become a wrapping key.
  const CK_OBJECT_HANDLE data_key = Generate({});
  CK_ATTRIBUTE wrap = Attr(CKA_WRAP, &kTrue, 1);
  EXPECT_EQ(p11()->C_SetAttributeValue(s_, data_key, &wrap, 1), CKR_TEMPLATE_INCONSISTENT);
  std::vector<CK_BYTE> blob;
  EXPECT_EQ(Wrap(data_key, secret_, &blob), CKR_KEY_FUNCTION_NOT_PERMITTED);
  ExpectValueHidden(secret_);
}

// Delaune, Kremer and Steel 2008: wrap the secret under a key whose value
// the attacker knows (imported, or generated extractable and read), then
// unwrap the blob offline.
TEST_F(KeyExtractionTest, WrapUnderAKeyWhoseValueIsKnown) {
  const CK_OBJECT_HANDLE known =
      Import(std::vector<CK_BYTE>(32, 0x42), {Attr(CKA_WRAP, &kTrue, 1)});
  std::vector<CK_BYTE> blob;
  EXPECT_EQ(Wrap(known, secret_, &blob), CKR_KEY_NOT_WRAPPABLE);
  const CK_OBJECT_HANDLE exported =
      Generate({Attr(CKA_WRAP, &kTrue, 1), Attr(CKA_SENSITIVE, &kFalse, 1),
                Attr(CKA_EXTRACTABLE, &kTrue, 1)});
  EXPECT_EQ(ReadAttribute(s_, exported, CKA_VALUE).size(), 32u);  // the attacker has it
  EXPECT_EQ(Wrap(exported, secret_, &blob), CKR_KEY_NOT_WRAPPABLE);
  EXPECT_TRUE(blob.empty());
  ExpectValueHidden(secret_);
}

// Delaune, Kremer and Steel 2008: encrypt a chosen value under an
// unwrapping key and unwrap it, planting a wrapping key the attacker knows.
TEST_F(KeyExtractionTest, EncryptAKnownValueThenUnwrapIt) {
  const CK_OBJECT_HANDLE kek = Generate({Attr(CKA_UNWRAP, &kTrue, 1)});
  CK_MECHANISM ecb = {CKM_AES_ECB, nullptr, 0};
  EXPECT_EQ(p11()->C_EncryptInit(s_, &ecb, kek), CKR_KEY_FUNCTION_NOT_PERMITTED);
  // A blob the attacker made offline under a key they imported unwraps to
  // a key they know; that key wraps no sensitive key.
  const CK_OBJECT_HANDLE known = Import(std::vector<CK_BYTE>(32, 0x17),
                                        {Attr(CKA_UNWRAP, &kTrue, 1), Attr(CKA_WRAP, &kTrue, 1)});
  const CK_OBJECT_HANDLE carrier =
      Generate({Attr(CKA_SENSITIVE, &kFalse, 1), Attr(CKA_EXTRACTABLE, &kTrue, 1)});
  std::vector<CK_BYTE> blob;
  ASSERT_EQ(Wrap(known, carrier, &blob), CKR_OK);
  CK_OBJECT_HANDLE planted = 0;
  ASSERT_EQ(Unwrap(known, blob, {Attr(CKA_WRAP, &kTrue, 1)}, &planted), CKR_OK);
  EXPECT_EQ(Wrap(planted, secret_, &blob), CKR_KEY_NOT_WRAPPABLE);
  ExpectValueHidden(secret_);
}

// Tookan, re-import: wrap the secret under a legitimate wrapping key,
// unwrap it under the same key as CKA_SENSITIVE FALSE, read CKA_VALUE.
TEST_F(KeyExtractionTest, ReimportAsNonSensitive) {
  const CK_OBJECT_HANDLE kek = Generate({Attr(CKA_WRAP, &kTrue, 1), Attr(CKA_UNWRAP, &kTrue, 1)});
  std::vector<CK_BYTE> blob;
  ASSERT_EQ(Wrap(kek, secret_, &blob), CKR_OK);
  CK_OBJECT_HANDLE copy = 0;
  EXPECT_EQ(Unwrap(kek, blob, {Attr(CKA_SENSITIVE, &kFalse, 1)}, &copy), CKR_TEMPLATE_INCONSISTENT);
  ASSERT_EQ(Unwrap(kek, blob, {}, &copy), CKR_OK);
  ExpectValueHidden(copy);
  CK_ATTRIBUTE clear = Attr(CKA_SENSITIVE, &kFalse, 1);
  EXPECT_NE(p11()->C_SetAttributeValue(s_, copy, &clear, 1), CKR_OK);
  ExpectValueHidden(copy);
  ExpectValueHidden(secret_);
}

}  // namespace
}  // namespace signet::e2e
