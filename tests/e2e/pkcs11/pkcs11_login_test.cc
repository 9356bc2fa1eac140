// Login states through the module, as an application sees them (issue 11):
// C_Logout destroys private session objects and invalidates private
// handles (point 1, PKCS#11 §5.6.4), and a CKA_ALWAYS_AUTHENTICATE key
// signs only after C_Login(CKU_CONTEXT_SPECIFIC) (point 15, §5.6.3), the
// signature checked by OpenSSL.
#include <gtest/gtest.h>

#include <cstring>

#include "ec_verify.h"
#include "module_fixture.h"

namespace signet::e2e {
namespace {

class LoginTest : public ModuleTest {
 protected:
  CK_RV ContextLogin(CK_SESSION_HANDLE s, const char* pin) {
    return p11()->C_Login(s, CKU_CONTEXT_SPECIFIC, Utf8(pin), std::strlen(pin));
  }
};

TEST_F(LoginTest, LogoutDestroysPrivateSessionObjects) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  CK_OBJECT_CLASS data = CKO_DATA;
  CK_BBOOL yes = CK_TRUE;
  char label[] = "private-session-data";
  CK_ATTRIBUTE tmpl[] = {{CKA_CLASS, &data, sizeof data},
                         {CKA_PRIVATE, &yes, sizeof yes},
                         {CKA_LABEL, label, sizeof label - 1}};
  CK_OBJECT_HANDLE object = 0;
  ASSERT_EQ(p11()->C_CreateObject(s, tmpl, 3, &object), CKR_OK);
  ASSERT_EQ(p11()->C_Logout(s), CKR_OK);
  LoginUser(s);

  CK_ATTRIBUTE read = {CKA_LABEL, nullptr, 0};
  EXPECT_EQ(p11()->C_GetAttributeValue(s, object, &read, 1), CKR_OBJECT_HANDLE_INVALID);
  EXPECT_EQ(p11()->C_DestroyObject(s, object), CKR_OBJECT_HANDLE_INVALID);
  CK_ATTRIBUTE find = {CKA_LABEL, label, sizeof label - 1};
  ASSERT_EQ(p11()->C_FindObjectsInit(s, &find, 1), CKR_OK);
  CK_OBJECT_HANDLE found[4];
  CK_ULONG count = 99;
  ASSERT_EQ(p11()->C_FindObjects(s, found, 4, &count), CKR_OK);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(p11()->C_FindObjectsFinal(s), CKR_OK);
}

TEST_F(LoginTest, AlwaysAuthenticateKeySignsAfterContextSpecificLogin) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  CK_MECHANISM gen = {CKM_EC_KEY_PAIR_GEN, nullptr, 0};
  // DER OID of prime256v1.
  CK_BYTE p256[] = {0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};
  CK_BBOOL yes = CK_TRUE;
  CK_ATTRIBUTE pub_tmpl[] = {{CKA_EC_PARAMS, p256, sizeof p256}, {CKA_VERIFY, &yes, sizeof yes}};
  CK_ATTRIBUTE priv_tmpl[] = {{CKA_SIGN, &yes, sizeof yes},
                              {CKA_ALWAYS_AUTHENTICATE, &yes, sizeof yes}};
  CK_OBJECT_HANDLE pub = 0, priv = 0;
  ASSERT_EQ(p11()->C_GenerateKeyPair(s, &gen, pub_tmpl, 2, priv_tmpl, 2, &pub, &priv), CKR_OK);

  CK_MECHANISM mech = {CKM_ECDSA_SHA256, nullptr, 0};
  CK_BYTE msg[] = "context-specific";
  std::vector<CK_BYTE> sig(64);
  CK_ULONG len = sig.size();
  EXPECT_EQ(ContextLogin(s, kUserPin), CKR_OPERATION_NOT_INITIALIZED) << "no operation yet";
  ASSERT_EQ(p11()->C_SignInit(s, &mech, priv), CKR_OK);
  EXPECT_EQ(p11()->C_Sign(s, msg, sizeof msg, sig.data(), &len), CKR_USER_NOT_LOGGED_IN);

  ASSERT_EQ(p11()->C_SignInit(s, &mech, priv), CKR_OK) << "the refusal ended the operation";
  EXPECT_EQ(ContextLogin(s, "wrong-pin"), CKR_PIN_INCORRECT);
  ASSERT_EQ(ContextLogin(s, kUserPin), CKR_OK);
  len = sig.size();
  ASSERT_EQ(p11()->C_Sign(s, msg, sizeof msg, sig.data(), &len), CKR_OK);
  EXPECT_TRUE(VerifyEcdsaP256(EcPublicKeyPem(s, pub), {msg, msg + sizeof msg}, sig));
  EXPECT_EQ(ContextLogin(s, kUserPin), CKR_OPERATION_NOT_INITIALIZED) << "the signature is done";

  CK_BBOOL always = CK_FALSE;
  CK_ATTRIBUTE read = {CKA_ALWAYS_AUTHENTICATE, &always, sizeof always};
  ASSERT_EQ(p11()->C_GetAttributeValue(s, priv, &read, 1), CKR_OK);
  EXPECT_EQ(always, CK_TRUE);
}

}  // namespace
}  // namespace signet::e2e
