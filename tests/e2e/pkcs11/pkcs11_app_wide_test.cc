// PKCS#11 v2.40 §5.6 / §6.7: object handles, session objects and login
// belong to the application, not to one session. Handles and login states
// obtained in one session are used in another, against a real signetd;
// every signature is checked by OpenSSL (EVP).
#include <cstring>
#include <string>
#include <vector>

#include "ec_verify.h"
#include "module_fixture.h"

namespace signet::e2e {
namespace {

using AppWideTest = ModuleTest;

// FindOne returns the single object of `cls` labelled `label` (0 when
// there is not exactly one).
CK_OBJECT_HANDLE FindOne(CK_FUNCTION_LIST_PTR p11, CK_SESSION_HANDLE s, CK_OBJECT_CLASS cls,
                         const std::string& label) {
  CK_ATTRIBUTE tmpl[] = {
      {CKA_CLASS, &cls, sizeof(cls)},
      {CKA_LABEL, const_cast<char*>(label.data()), label.size()},
  };
  if (p11->C_FindObjectsInit(s, tmpl, 2) != CKR_OK) return 0;
  CK_OBJECT_HANDLE found[2] = {0, 0};
  CK_ULONG count = 0;
  const CK_RV rv = p11->C_FindObjects(s, found, 2, &count);
  p11->C_FindObjectsFinal(s);
  return rv == CKR_OK && count == 1 ? found[0] : 0;
}

// SignIn signs `msg` with ECDSA-SHA256 in session `s` (empty on failure,
// with the failing code in *rv).
std::vector<CK_BYTE> SignIn(CK_FUNCTION_LIST_PTR p11, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key,
                            const std::string& msg, CK_RV* rv) {
  CK_MECHANISM mech = {CKM_ECDSA_SHA256, nullptr, 0};
  *rv = p11->C_SignInit(s, &mech, key);
  if (*rv != CKR_OK) return {};
  std::vector<CK_BYTE> sig(64);
  CK_ULONG len = sig.size();
  *rv = p11->C_Sign(s, (CK_BYTE_PTR)msg.data(), msg.size(), sig.data(), &len);
  if (*rv != CKR_OK) return {};
  sig.resize(len);
  return sig;
}

TEST_F(AppWideTest, HandleFoundInOneSessionSignsInAnother) {
  CK_SESSION_HANDLE one = OpenSession();
  CK_SESSION_HANDLE two = OpenSession();
  LoginUser(one);
  CK_OBJECT_HANDLE made_pub = 0, made_priv = 0;
  MakeEcKey(one, "app-token-key", true, &made_pub, &made_priv);
  const CK_OBJECT_HANDLE priv = FindOne(p11(), one, CKO_PRIVATE_KEY, "app-token-key");
  const CK_OBJECT_HANDLE pub = FindOne(p11(), one, CKO_PUBLIC_KEY, "app-token-key");
  ASSERT_NE(priv, 0u);
  ASSERT_NE(pub, 0u);
  const std::string msg = "found in one, signed in two";
  CK_RV rv = CKR_GENERAL_ERROR;
  std::vector<CK_BYTE> sig = SignIn(p11(), two, priv, msg, &rv);
  ASSERT_EQ(rv, CKR_OK);
  EXPECT_TRUE(VerifyEcdsaP256(EcPublicKeyPem(two, pub), {msg.begin(), msg.end()}, sig));
  // Corrupting the message must make OpenSSL refuse: the check can fail.
  EXPECT_FALSE(VerifyEcdsaP256(EcPublicKeyPem(one, pub), {msg.begin(), msg.end() - 1}, sig));
}

TEST_F(AppWideTest, SessionObjectIsVisibleToEverySessionUntilItsSessionCloses) {
  CK_SESSION_HANDLE one = OpenSession();
  CK_SESSION_HANDLE two = OpenSession();
  LoginUser(one);
  CK_OBJECT_HANDLE pub = 0, priv = 0;
  MakeEcKey(one, "app-session-key", false, &pub, &priv);
  EXPECT_EQ(FindOne(p11(), two, CKO_PRIVATE_KEY, "app-session-key"), priv);
  const std::string msg = "session object, other session";
  CK_RV rv = CKR_GENERAL_ERROR;
  std::vector<CK_BYTE> sig = SignIn(p11(), two, priv, msg, &rv);
  ASSERT_EQ(rv, CKR_OK);
  EXPECT_TRUE(VerifyEcdsaP256(EcPublicKeyPem(two, pub), {msg.begin(), msg.end()}, sig));
  // Session objects die with the session that made them (§6.7), even for a
  // session that already used (and the module already checked) the key.
  ASSERT_EQ(p11()->C_CloseSession(one), CKR_OK);
  EXPECT_EQ(FindOne(p11(), two, CKO_PRIVATE_KEY, "app-session-key"), 0u);
  SignIn(p11(), two, priv, msg, &rv);
  EXPECT_EQ(rv, CKR_KEY_HANDLE_INVALID);
}

TEST_F(AppWideTest, LoginInOneSessionAppliesToEverySession) {
  CK_SESSION_HANDLE one = OpenSession();
  CK_SESSION_HANDLE two = OpenSession();
  CK_SESSION_INFO info;
  ASSERT_EQ(p11()->C_GetSessionInfo(two, &info), CKR_OK);
  EXPECT_EQ(info.state, CKS_RW_PUBLIC_SESSION);
  LoginUser(one);
  ASSERT_EQ(p11()->C_GetSessionInfo(two, &info), CKR_OK);
  EXPECT_EQ(info.state, CKS_RW_USER_FUNCTIONS);
  EXPECT_EQ(info.slotID, TokenSlot());
  EXPECT_EQ(info.flags, static_cast<CK_FLAGS>(CKF_SERIAL_SESSION | CKF_RW_SESSION));
  CK_SESSION_HANDLE ro = CK_INVALID_HANDLE;
  ASSERT_EQ(p11()->C_OpenSession(TokenSlot(), CKF_SERIAL_SESSION, nullptr, nullptr, &ro), CKR_OK);
  ASSERT_EQ(p11()->C_GetSessionInfo(ro, &info), CKR_OK);
  EXPECT_EQ(info.state, CKS_RO_USER_FUNCTIONS);
  // Logout in another session logs every session out.
  ASSERT_EQ(p11()->C_Logout(two), CKR_OK);
  ASSERT_EQ(p11()->C_GetSessionInfo(one, &info), CKR_OK);
  EXPECT_EQ(info.state, CKS_RW_PUBLIC_SESSION);
  EXPECT_EQ(p11()->C_Logout(one), CKR_USER_NOT_LOGGED_IN);
  // Closing the application's last session on the token logs it out.
  LoginUser(one);
  ASSERT_EQ(p11()->C_CloseAllSessions(TokenSlot()), CKR_OK);
  EXPECT_EQ(p11()->C_GetSessionInfo(one, &info), CKR_SESSION_HANDLE_INVALID);
  CK_SESSION_HANDLE fresh = OpenSession();
  ASSERT_EQ(p11()->C_GetSessionInfo(fresh, &info), CKR_OK);
  EXPECT_EQ(info.state, CKS_RW_PUBLIC_SESSION);
}

}  // namespace
}  // namespace signet::e2e
