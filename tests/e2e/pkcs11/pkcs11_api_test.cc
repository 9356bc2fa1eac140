// The module's PKCS#11 behaviour against a real signetd: C_Initialize rules,
// login states and their errors, §5.2 output-buffer rules, §5.7 attribute
// rules, multi-part signing, digests, AES-GCM and AES-KWP. Results are
// checked against OpenSSL (EVP) or published vectors.
#include <dlfcn.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdlib.h>

#include <algorithm>
#include <cstring>

#include "ec_verify.h"
#include "module_fixture.h"
#include "signet/version.hpp"

namespace signet::e2e {
namespace {

using ApiTest = ModuleTest;

CK_RV PartialCallbacksInit(CK_FUNCTION_LIST_PTR p11) {
  CK_C_INITIALIZE_ARGS args = {};
  args.CreateMutex = [](CK_VOID_PTR_PTR) -> CK_RV { return CKR_OK; };
  return p11->C_Initialize(&args);
}

TEST_F(ApiTest, InitializeArgumentRules) {
  EXPECT_EQ(p11()->C_Initialize(nullptr), CKR_CRYPTOKI_ALREADY_INITIALIZED);
  ASSERT_EQ(p11()->C_Finalize(nullptr), CKR_OK);
  EXPECT_EQ(p11()->C_Finalize(nullptr), CKR_CRYPTOKI_NOT_INITIALIZED);
  CK_ULONG count = 0;
  EXPECT_EQ(p11()->C_GetSlotList(CK_TRUE, nullptr, &count), CKR_CRYPTOKI_NOT_INITIALIZED);
  EXPECT_EQ(PartialCallbacksInit(p11()), CKR_ARGUMENTS_BAD);
  CK_C_INITIALIZE_ARGS reserved = {};
  reserved.pReserved = &count;
  EXPECT_EQ(p11()->C_Initialize(&reserved), CKR_ARGUMENTS_BAD);
  // All four callbacks without CKF_OS_LOCKING_OK: accepted.
  CK_C_INITIALIZE_ARGS callbacks = {};
  callbacks.CreateMutex = [](CK_VOID_PTR_PTR) -> CK_RV { return CKR_OK; };
  callbacks.DestroyMutex = [](CK_VOID_PTR) -> CK_RV { return CKR_OK; };
  callbacks.LockMutex = [](CK_VOID_PTR) -> CK_RV { return CKR_OK; };
  callbacks.UnlockMutex = [](CK_VOID_PTR) -> CK_RV { return CKR_OK; };
  ASSERT_EQ(p11()->C_Initialize(&callbacks), CKR_OK);
  EXPECT_EQ(p11()->C_GetSlotList(CK_TRUE, nullptr, &count), CKR_OK);
  EXPECT_GE(count, 1u);
}

TEST_F(ApiTest, OnlyTheEntryPointsAreExported) {
  EXPECT_NE(dlsym(library_, "C_GetFunctionList"), nullptr);
  EXPECT_NE(dlsym(library_, "C_GetInterfaceList"), nullptr);
  EXPECT_NE(dlsym(library_, "C_GetInterface"), nullptr);
  EXPECT_EQ(dlsym(library_, "C_Sign"), nullptr);
  EXPECT_EQ(dlsym(library_, "C_Initialize"), nullptr);
}

TEST_F(ApiTest, InterfaceListOffersPkcs11V240) {
  struct Interface {  // CK_INTERFACE (PKCS#11 3.0 §3.6)
    CK_UTF8CHAR* name;
    void* functions;
    CK_FLAGS flags;
  };
  using ListFn = CK_RV (*)(Interface*, CK_ULONG*);
  using GetFn = CK_RV (*)(CK_UTF8CHAR*, CK_VERSION*, Interface**, CK_FLAGS);
  auto list = reinterpret_cast<ListFn>(dlsym(library_, "C_GetInterfaceList"));
  auto get = reinterpret_cast<GetFn>(dlsym(library_, "C_GetInterface"));
  ASSERT_NE(list, nullptr);
  ASSERT_NE(get, nullptr);
  CK_ULONG count = 0;
  ASSERT_EQ(list(nullptr, &count), CKR_OK);
  ASSERT_EQ(count, 1u);
  Interface one = {};
  CK_ULONG none = 0;
  EXPECT_EQ(list(&one, &none), CKR_BUFFER_TOO_SMALL);
  ASSERT_EQ(list(&one, &count), CKR_OK);
  EXPECT_STREQ(reinterpret_cast<char*>(one.name), "PKCS 11");
  EXPECT_EQ(one.functions, p11());
  Interface* found = nullptr;
  ASSERT_EQ(get(nullptr, nullptr, &found, 0), CKR_OK);
  EXPECT_EQ(found->functions, p11());
  CK_VERSION v240 = {2, 40};
  ASSERT_EQ(get(Utf8("PKCS 11"), &v240, &found, 0), CKR_OK);
  CK_VERSION v30 = {3, 0};
  EXPECT_NE(get(Utf8("PKCS 11"), &v30, &found, 0), CKR_OK);
  EXPECT_NE(get(Utf8("Vendor"), nullptr, &found, 0), CKR_OK);
  EXPECT_EQ(get(nullptr, nullptr, nullptr, 0), CKR_ARGUMENTS_BAD);
}

TEST_F(ApiTest, SlotsTokenInfoAndFreeSlot) {
  CK_ULONG all = 0, with_token = 0;
  ASSERT_EQ(p11()->C_GetSlotList(CK_FALSE, nullptr, &all), CKR_OK);
  ASSERT_EQ(p11()->C_GetSlotList(CK_TRUE, nullptr, &with_token), CKR_OK);
  // The free slot holds a present, uninitialised token (as SoftHSMv2's does).
  EXPECT_EQ(all, with_token);
  EXPECT_EQ(all, 2u);
  CK_SLOT_ID slots[8];
  CK_ULONG small = 0;
  EXPECT_EQ(p11()->C_GetSlotList(CK_FALSE, slots, &small), CKR_BUFFER_TOO_SMALL);
  EXPECT_EQ(small, all);
  CK_TOKEN_INFO info;
  ASSERT_EQ(p11()->C_GetTokenInfo(TokenSlot(), &info), CKR_OK);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(info.label), std::strlen(kTokenLabel)),
            kTokenLabel);
  EXPECT_TRUE(info.flags & CKF_TOKEN_INITIALIZED);
  // The library, hardware and firmware versions are signet's major.minor
  // (signet/version.hpp, from CMakeLists.txt's project VERSION).
  EXPECT_EQ(info.firmwareVersion.major, kVersionMajor);
  EXPECT_EQ(info.firmwareVersion.minor, kVersionMinor);
  EXPECT_EQ(p11()->C_GetTokenInfo(9999, &info), CKR_SLOT_ID_INVALID);
  CK_INFO library;
  ASSERT_EQ(p11()->C_GetInfo(&library), CKR_OK);
  EXPECT_EQ(library.libraryVersion.major, kVersionMajor);
  EXPECT_EQ(library.libraryVersion.minor, kVersionMinor);
}

// FreeSlot: the slot whose token is not initialised (the last one).
CK_SLOT_ID FreeSlot(CK_FUNCTION_LIST_PTR p11) {
  CK_SLOT_ID slots[16];
  CK_ULONG count = 16;
  EXPECT_EQ(p11->C_GetSlotList(CK_TRUE, slots, &count), CKR_OK);
  for (CK_ULONG i = 0; i < count; ++i) {
    CK_TOKEN_INFO info;
    if (p11->C_GetTokenInfo(slots[i], &info) == CKR_OK && !(info.flags & CKF_TOKEN_INITIALIZED)) {
      return slots[i];
    }
  }
  ADD_FAILURE() << "no free slot";
  return 0;
}

TEST_F(ApiTest, SoInitPinThenUserSetPin) {
  CK_SESSION_HANDLE s = OpenSession();
  EXPECT_EQ(p11()->C_InitPIN(s, Utf8("user-two"), 8), CKR_USER_NOT_LOGGED_IN);
  ASSERT_EQ(p11()->C_Login(s, CKU_SO, Utf8(kSoPin), std::strlen(kSoPin)), CKR_OK);
  ASSERT_EQ(p11()->C_InitPIN(s, Utf8("user-two"), 8), CKR_OK);
  ASSERT_EQ(p11()->C_Logout(s), CKR_OK);
  EXPECT_EQ(p11()->C_Login(s, CKU_USER, Utf8(kUserPin), std::strlen(kUserPin)),
            CKR_PIN_INCORRECT);
  ASSERT_EQ(p11()->C_Login(s, CKU_USER, Utf8("user-two"), 8), CKR_OK);
  // Login is application-wide: a session opened after C_SetPIN is logged in.
  ASSERT_EQ(p11()->C_SetPIN(s, Utf8("user-two"), 8, Utf8("user-three"), 10), CKR_OK);
  CK_SESSION_HANDLE other = OpenSession();
  CK_SESSION_INFO info;
  ASSERT_EQ(p11()->C_GetSessionInfo(other, &info), CKR_OK);
  EXPECT_EQ(info.state, CKS_RW_USER_FUNCTIONS);
  CK_BYTE random[8];
  EXPECT_EQ(p11()->C_GenerateRandom(other, random, sizeof(random)), CKR_OK);
  ASSERT_EQ(p11()->C_Logout(s), CKR_OK);
  EXPECT_EQ(p11()->C_Login(s, CKU_USER, Utf8("user-two"), 8), CKR_PIN_INCORRECT);
  EXPECT_EQ(p11()->C_Login(s, CKU_USER, Utf8("user-three"), 10), CKR_OK);
}

// Issue 11 point 16: the free slot's token is present and uninitialised
// (CKF_TOKEN_PRESENT, CKF_TOKEN_INITIALIZED clear); sessions on it are
// CKR_TOKEN_NOT_RECOGNIZED until C_InitToken makes it a token, and then a
// new free slot appears.
TEST_F(ApiTest, InitTokenOnFreeSlot) {
  const CK_SLOT_ID free_slot = FreeSlot(p11());
  CK_SLOT_INFO slot_info;
  ASSERT_EQ(p11()->C_GetSlotInfo(free_slot, &slot_info), CKR_OK);
  EXPECT_TRUE(slot_info.flags & CKF_TOKEN_PRESENT);
  CK_TOKEN_INFO info;
  ASSERT_EQ(p11()->C_GetTokenInfo(free_slot, &info), CKR_OK);
  EXPECT_EQ(info.flags & (CKF_TOKEN_INITIALIZED | CKF_USER_PIN_INITIALIZED), 0u);
  EXPECT_EQ(info.ulMinPinLen, 4u);
  CK_ULONG mechanisms = 0;
  EXPECT_EQ(p11()->C_GetMechanismList(free_slot, nullptr, &mechanisms), CKR_OK);
  EXPECT_GT(mechanisms, 0u);
  CK_SESSION_HANDLE s = CK_INVALID_HANDLE;
  EXPECT_EQ(
      p11()->C_OpenSession(free_slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, nullptr, nullptr, &s),
      CKR_TOKEN_NOT_RECOGNIZED);
  EXPECT_EQ(p11()->C_CloseAllSessions(free_slot), CKR_OK);
  CK_ULONG before = 0;
  ASSERT_EQ(p11()->C_GetSlotList(CK_TRUE, nullptr, &before), CKR_OK);
  CK_UTF8CHAR label[32];
  std::memset(label, ' ', sizeof(label));
  std::memcpy(label, "second", 6);
  ASSERT_EQ(p11()->C_InitToken(free_slot, Utf8("so-two"), 6, label), CKR_OK);
  ASSERT_EQ(p11()->C_GetTokenInfo(free_slot, &info), CKR_OK);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(info.label), 7), "second ");
  EXPECT_TRUE(info.flags & CKF_TOKEN_INITIALIZED);
  // C_InitToken sets only the SO PIN (PKCS#11 section 5.6).
  EXPECT_EQ(info.flags & CKF_USER_PIN_INITIALIZED, 0u);
  CK_ULONG after = 0;
  ASSERT_EQ(p11()->C_GetSlotList(CK_TRUE, nullptr, &after), CKR_OK);
  EXPECT_EQ(after, before + 1);
  EXPECT_NE(FreeSlot(p11()), free_slot);
  ASSERT_EQ(p11()->C_OpenSession(free_slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, nullptr, nullptr,
                                 &s),
            CKR_OK);
  ASSERT_EQ(p11()->C_Login(s, CKU_SO, Utf8("so-two"), 6), CKR_OK);
  ASSERT_EQ(p11()->C_InitPIN(s, Utf8("user-two"), 8), CKR_OK);
  // Sessions exist on the token now: re-initialising it is refused.
  EXPECT_EQ(p11()->C_InitToken(free_slot, Utf8("so-two"), 6, label), CKR_SESSION_EXISTS);
}

// C_InitToken on a token that exists (PKCS#11 section 5.5): every object is
// destroyed, the label changes, and the normal user is locked out until the
// SO sets a new user PIN.
TEST_F(ApiTest, InitTokenReinitialisesAnExistingToken) {
  const CK_SLOT_ID slot = TokenSlot();
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  CK_OBJECT_CLASS data_class = CKO_DATA;
  CK_BBOOL yes = CK_TRUE;
  CK_ATTRIBUTE data[] = {{CKA_CLASS, &data_class, sizeof(data_class)},
                         {CKA_TOKEN, &yes, sizeof(yes)}};
  CK_OBJECT_HANDLE object = CK_INVALID_HANDLE;
  ASSERT_EQ(p11()->C_CreateObject(s, data, 2, &object), CKR_OK);
  CK_UTF8CHAR label[32];
  std::memset(label, ' ', sizeof(label));
  std::memcpy(label, "relabelled", 10);
  EXPECT_EQ(p11()->C_InitToken(slot, Utf8(kSoPin), std::strlen(kSoPin), label),
            CKR_SESSION_EXISTS);
  ASSERT_EQ(p11()->C_CloseAllSessions(slot), CKR_OK);
  EXPECT_EQ(p11()->C_InitToken(slot, Utf8("wrong-so-pin"), 12, label), CKR_PIN_INCORRECT);
  ASSERT_EQ(p11()->C_InitToken(slot, Utf8(kSoPin), std::strlen(kSoPin), label), CKR_OK);

  CK_TOKEN_INFO info;
  ASSERT_EQ(p11()->C_GetTokenInfo(slot, &info), CKR_OK);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(info.label), 11), "relabelled ");
  EXPECT_EQ(info.flags & CKF_USER_PIN_INITIALIZED, 0u);
  s = OpenSession();
  EXPECT_EQ(p11()->C_Login(s, CKU_USER, Utf8(kUserPin), std::strlen(kUserPin)),
            CKR_USER_PIN_NOT_INITIALIZED);
  ASSERT_EQ(p11()->C_Login(s, CKU_SO, Utf8(kSoPin), std::strlen(kSoPin)), CKR_OK);
  ASSERT_EQ(p11()->C_InitPIN(s, Utf8(kUserPin), std::strlen(kUserPin)), CKR_OK);
  ASSERT_EQ(p11()->C_Logout(s), CKR_OK);
  LoginUser(s);
  ASSERT_EQ(p11()->C_FindObjectsInit(s, nullptr, 0), CKR_OK);
  CK_OBJECT_HANDLE found[4];
  CK_ULONG count = 99;
  ASSERT_EQ(p11()->C_FindObjects(s, found, 4, &count), CKR_OK);
  EXPECT_EQ(count, 0u) << "objects survived C_InitToken";
  ASSERT_EQ(p11()->C_FindObjectsFinal(s), CKR_OK);
}

TEST_F(ApiTest, LoginStatesAndErrors) {
  CK_SESSION_HANDLE a = OpenSession();
  CK_SESSION_HANDLE b = OpenSession();
  EXPECT_EQ(p11()->C_Login(a, CKU_USER, Utf8("wrong-pin"), 9), CKR_PIN_INCORRECT);
  EXPECT_EQ(p11()->C_Logout(a), CKR_USER_NOT_LOGGED_IN);
  EXPECT_EQ(p11()->C_Login(a, 77, Utf8(kUserPin), std::strlen(kUserPin)), CKR_USER_TYPE_INVALID);
  LoginUser(a);
  EXPECT_EQ(p11()->C_Login(b, CKU_USER, Utf8(kUserPin), std::strlen(kUserPin)),
            CKR_USER_ALREADY_LOGGED_IN);
  EXPECT_EQ(p11()->C_Login(b, CKU_SO, Utf8(kSoPin), std::strlen(kSoPin)),
            CKR_USER_ANOTHER_ALREADY_LOGGED_IN);
  CK_SESSION_INFO info;
  ASSERT_EQ(p11()->C_GetSessionInfo(b, &info), CKR_OK);  // login is application-wide
  EXPECT_EQ(info.state, CKS_RW_USER_FUNCTIONS);
  ASSERT_EQ(p11()->C_Logout(b), CKR_OK);
  ASSERT_EQ(p11()->C_GetSessionInfo(a, &info), CKR_OK);
  EXPECT_EQ(info.state, CKS_RW_PUBLIC_SESSION);
  CK_SESSION_HANDLE ro = CK_INVALID_HANDLE;
  ASSERT_EQ(p11()->C_OpenSession(TokenSlot(), CKF_SERIAL_SESSION, nullptr, nullptr, &ro), CKR_OK);
  EXPECT_EQ(p11()->C_Login(a, CKU_SO, Utf8(kSoPin), std::strlen(kSoPin)),
            CKR_SESSION_READ_ONLY_EXISTS);
  ASSERT_EQ(p11()->C_CloseSession(ro), CKR_OK);
  EXPECT_EQ(p11()->C_CloseSession(ro), CKR_SESSION_HANDLE_INVALID);
  ASSERT_EQ(p11()->C_Login(a, CKU_SO, Utf8(kSoPin), std::strlen(kSoPin)), CKR_OK);
  EXPECT_EQ(p11()->C_OpenSession(TokenSlot(), CKF_SERIAL_SESSION, nullptr, nullptr, &ro),
            CKR_SESSION_READ_WRITE_SO_EXISTS);
  EXPECT_EQ(p11()->C_OpenSession(TokenSlot(), CKF_RW_SESSION, nullptr, nullptr, &ro),
            CKR_SESSION_PARALLEL_NOT_SUPPORTED);
}

TEST_F(ApiTest, SignLengthQueryAndShortBufferKeepOperation) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  CK_OBJECT_HANDLE pub = 0, priv = 0;
  MakeEcKey(s, "len-query", false, &pub, &priv);
  CK_MECHANISM mech = {CKM_ECDSA_SHA256, nullptr, 0};
  CK_BYTE msg[] = "length rules";
  ASSERT_EQ(p11()->C_SignInit(s, &mech, priv), CKR_OK);
  EXPECT_EQ(p11()->C_SignInit(s, &mech, priv), CKR_OPERATION_ACTIVE);
  CK_ULONG len = 0;
  ASSERT_EQ(p11()->C_Sign(s, msg, sizeof(msg), nullptr, &len), CKR_OK);
  EXPECT_EQ(len, 64u);
  std::vector<CK_BYTE> sig(64);
  len = 10;
  EXPECT_EQ(p11()->C_Sign(s, msg, sizeof(msg), sig.data(), &len), CKR_BUFFER_TOO_SMALL);
  EXPECT_EQ(len, 64u);
  ASSERT_EQ(p11()->C_Sign(s, msg, sizeof(msg), sig.data(), &len), CKR_OK);
  EXPECT_EQ(p11()->C_Sign(s, msg, sizeof(msg), sig.data(), &len), CKR_OPERATION_NOT_INITIALIZED);
  EXPECT_TRUE(VerifyEcdsaP256(EcPublicKeyPem(s, pub), {msg, msg + sizeof(msg)}, sig));
}

TEST_F(ApiTest, MultiPartSignVerifiesWithModuleAndOpenSsl) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  CK_OBJECT_HANDLE pub = 0, priv = 0;
  MakeEcKey(s, "multi", false, &pub, &priv);
  CK_MECHANISM mech = {CKM_ECDSA_SHA256, nullptr, 0};
  const std::string parts[] = {"alpha ", "beta ", "gamma"};
  ASSERT_EQ(p11()->C_SignInit(s, &mech, priv), CKR_OK);
  for (const std::string& p : parts) {
    ASSERT_EQ(p11()->C_SignUpdate(s, (CK_BYTE_PTR)p.data(), p.size()), CKR_OK);
  }
  std::vector<CK_BYTE> sig(64);
  CK_ULONG len = sig.size();
  ASSERT_EQ(p11()->C_SignFinal(s, sig.data(), &len), CKR_OK);
  const std::string whole = "alpha beta gamma";
  EXPECT_TRUE(VerifyEcdsaP256(EcPublicKeyPem(s, pub), {whole.begin(), whole.end()}, sig));
  ASSERT_EQ(p11()->C_VerifyInit(s, &mech, pub), CKR_OK);
  EXPECT_EQ(p11()->C_Verify(s, (CK_BYTE_PTR)whole.data(), whole.size(), sig.data(), len), CKR_OK);
  sig[5] ^= 1;
  ASSERT_EQ(p11()->C_VerifyInit(s, &mech, pub), CKR_OK);
  ASSERT_EQ(p11()->C_VerifyUpdate(s, (CK_BYTE_PTR)whole.data(), whole.size()), CKR_OK);
  EXPECT_EQ(p11()->C_VerifyFinal(s, sig.data(), len), CKR_SIGNATURE_INVALID);
  // Wrong key kind and missing usage flag are reported at init.
  EXPECT_EQ(p11()->C_SignInit(s, &mech, pub), CKR_KEY_FUNCTION_NOT_PERMITTED);
  CK_MECHANISM rsa = {CKM_SHA256_RSA_PKCS, nullptr, 0};
  EXPECT_EQ(p11()->C_SignInit(s, &rsa, priv), CKR_KEY_TYPE_INCONSISTENT);
  EXPECT_EQ(p11()->C_SignInit(s, &mech, 0x7fff1234), CKR_KEY_HANDLE_INVALID);
}

TEST_F(ApiTest, AttributeRulesSensitiveAndLengthQuery) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  CK_OBJECT_HANDLE pub = 0, priv = 0;
  MakeEcKey(s, "attrs", false, &pub, &priv);
  char label[16];
  CK_BBOOL sensitive = CK_FALSE;
  CK_ATTRIBUTE tmpl[] = {{CKA_LABEL, label, sizeof(label)},
                         {CKA_VALUE, nullptr, 0},
                         {CKA_SENSITIVE, &sensitive, 1}};
  EXPECT_EQ(p11()->C_GetAttributeValue(s, priv, tmpl, 3), CKR_ATTRIBUTE_SENSITIVE);
  EXPECT_EQ(std::string(label, tmpl[0].ulValueLen), "attrs");
  EXPECT_EQ(tmpl[1].ulValueLen, CK_UNAVAILABLE_INFORMATION);
  EXPECT_EQ(sensitive, CK_TRUE);
  CK_ATTRIBUTE tiny = {CKA_LABEL, label, 2};
  EXPECT_EQ(p11()->C_GetAttributeValue(s, priv, &tiny, 1), CKR_BUFFER_TOO_SMALL);
  EXPECT_EQ(tiny.ulValueLen, CK_UNAVAILABLE_INFORMATION);
  CK_ATTRIBUTE query = {CKA_EC_PARAMS, nullptr, 0};
  ASSERT_EQ(p11()->C_GetAttributeValue(s, pub, &query, 1), CKR_OK);
  EXPECT_EQ(query.ulValueLen, 10u);
  // Sensitive cannot be turned off (PKCS#11 §4.9), a label can change.
  CK_ATTRIBUTE unsensitive = {CKA_SENSITIVE, &sensitive, 1};
  sensitive = CK_FALSE;
  EXPECT_NE(p11()->C_SetAttributeValue(s, priv, &unsensitive, 1), CKR_OK);
  char renamed[] = "renamed";
  CK_ATTRIBUTE relabel = {CKA_LABEL, renamed, 7};
  EXPECT_EQ(p11()->C_SetAttributeValue(s, priv, &relabel, 1), CKR_OK);
  EXPECT_EQ(ReadAttribute(s, priv, CKA_LABEL).size(), 7u);
}

TEST_F(ApiTest, DigestMatchesPublishedVector) {
  CK_SESSION_HANDLE s = OpenSession();
  CK_MECHANISM mech = {CKM_SHA256, nullptr, 0};
  CK_BYTE abc[] = {'a', 'b', 'c'};
  const CK_BYTE expected[] = {0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40,
                              0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17,
                              0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};
  CK_BYTE out[32];
  CK_ULONG len = sizeof(out);
  ASSERT_EQ(p11()->C_DigestInit(s, &mech), CKR_OK);
  ASSERT_EQ(p11()->C_DigestUpdate(s, abc, 1), CKR_OK);
  ASSERT_EQ(p11()->C_DigestUpdate(s, abc + 1, 2), CKR_OK);
  ASSERT_EQ(p11()->C_DigestFinal(s, out, &len), CKR_OK);
  EXPECT_EQ(std::memcmp(out, expected, 32), 0);
  CK_MECHANISM bogus = {CKM_RIPEMD160, nullptr, 0};  // not offered
  EXPECT_EQ(p11()->C_DigestInit(s, &bogus), CKR_MECHANISM_INVALID);
  EXPECT_EQ(p11()->C_DigestFinal(s, out, &len), CKR_OPERATION_NOT_INITIALIZED);
  // MD5 is offered as legacy (docs/PKCS11.md): RFC 1321's "abc".
  CK_MECHANISM md5 = {CKM_MD5, nullptr, 0};
  const CK_BYTE md5_abc[] = {0x90, 0x01, 0x50, 0x98, 0x3c, 0xd2, 0x4f, 0xb0,
                             0xd6, 0x96, 0x3f, 0x7d, 0x28, 0xe1, 0x7f, 0x72};
  len = sizeof(out);
  ASSERT_EQ(p11()->C_DigestInit(s, &md5), CKR_OK);
  ASSERT_EQ(p11()->C_Digest(s, abc, sizeof(abc), out, &len), CKR_OK);
  ASSERT_EQ(len, 16u);
  EXPECT_EQ(std::memcmp(out, md5_abc, 16), 0);
}

// OpenSslGcmEncrypt: the independent AES-256-GCM reference.
std::vector<CK_BYTE> OpenSslGcmEncrypt(const std::vector<CK_BYTE>& key, const CK_BYTE* iv,
                                       const std::string& plain) {
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  std::vector<CK_BYTE> out(plain.size() + 16);
  int len = 0, fin = 0;
  EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nullptr, key.data(), iv);
  EVP_EncryptUpdate(ctx, out.data(), &len, (const CK_BYTE*)plain.data(), plain.size());
  EVP_EncryptFinal_ex(ctx, out.data() + len, &fin);
  EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, out.data() + plain.size());
  EVP_CIPHER_CTX_free(ctx);
  return out;
}

// OpenSslCipher runs `cipher` (EVP, the independent reference) over `in`;
// `pad` turns PKCS#7 padding on, `wrap` allows the key-wrap ciphers.
std::vector<CK_BYTE> OpenSslCipher(const EVP_CIPHER* cipher, const std::vector<CK_BYTE>& key,
                                   const CK_BYTE* iv, const std::vector<CK_BYTE>& in, bool pad,
                                   bool wrap = false) {
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  if (wrap) EVP_CIPHER_CTX_set_flags(ctx, EVP_CIPHER_CTX_FLAG_WRAP_ALLOW);
  std::vector<CK_BYTE> out(in.size() + 32);
  int len = 0, fin = 0;
  EVP_EncryptInit_ex(ctx, cipher, nullptr, key.data(), iv);
  EVP_CIPHER_CTX_set_padding(ctx, pad ? 1 : 0);
  EVP_EncryptUpdate(ctx, out.data(), &len, in.data(), static_cast<int>(in.size()));
  EVP_EncryptFinal_ex(ctx, out.data() + len, &fin);
  EVP_CIPHER_CTX_free(ctx);
  out.resize(static_cast<std::size_t>(len + fin));
  return out;
}

TEST_F(ApiTest, AesBlockModesAndKeyWrapAgreeWithOpenSsl) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
  CK_ULONG bytes = 32;
  CK_MECHANISM gen = {CKM_AES_KEY_GEN, nullptr, 0};
  CK_ATTRIBUTE tmpl[] = {{CKA_VALUE_LEN, &bytes, sizeof(bytes)},
                         {CKA_ENCRYPT, &yes, 1},
                         {CKA_DECRYPT, &yes, 1},
                         {CKA_EXTRACTABLE, &yes, 1},
                         {CKA_SENSITIVE, &no, 1},
                         {CKA_TOKEN, &no, 1}};
  CK_OBJECT_HANDLE key = 0;
  ASSERT_EQ(p11()->C_GenerateKey(s, &gen, tmpl, 6, &key), CKR_OK);
  const std::vector<CK_BYTE> value = ReadAttribute(s, key, CKA_VALUE);
  ASSERT_EQ(value.size(), 32u);

  CK_BYTE iv[16] = {0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7,
                    0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff};
  CK_AES_CTR_PARAMS ctr = {128, {}};
  std::memcpy(ctr.cb, iv, sizeof iv);
  struct Case {
    const char* name;
    CK_MECHANISM mechanism;
    const EVP_CIPHER* cipher;
    const CK_BYTE* iv;
    bool pad;
    std::size_t size;
  };
  const Case cases[] = {
      {"CBC_PAD 4 KiB + 1", {CKM_AES_CBC_PAD, iv, sizeof iv}, EVP_aes_256_cbc(), iv, true, 4097},
      {"CBC", {CKM_AES_CBC, iv, sizeof iv}, EVP_aes_256_cbc(), iv, false, 64},
      {"ECB", {CKM_AES_ECB, nullptr, 0}, EVP_aes_256_ecb(), nullptr, false, 48},
      {"CTR", {CKM_AES_CTR, &ctr, sizeof ctr}, EVP_aes_256_ctr(), iv, false, 1000},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<CK_BYTE> plain(c.size);
    for (std::size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<CK_BYTE>(i * 7 + 1);
    CK_MECHANISM m = c.mechanism;
    ASSERT_EQ(p11()->C_EncryptInit(s, &m, key), CKR_OK);
    CK_ULONG len = 0;
    ASSERT_EQ(p11()->C_Encrypt(s, plain.data(), plain.size(), nullptr, &len), CKR_OK);
    std::vector<CK_BYTE> ct(len);
    ASSERT_EQ(p11()->C_Encrypt(s, plain.data(), plain.size(), ct.data(), &len), CKR_OK);
    ct.resize(len);
    EXPECT_EQ(ct, OpenSslCipher(c.cipher, value, c.iv, plain, c.pad));
    ASSERT_EQ(p11()->C_DecryptInit(s, &m, key), CKR_OK);
    std::vector<CK_BYTE> back(ct.size());
    CK_ULONG back_len = back.size();
    ASSERT_EQ(p11()->C_Decrypt(s, ct.data(), ct.size(), back.data(), &back_len), CKR_OK);
    back.resize(back_len);
    EXPECT_EQ(back, plain);
  }

  // RFC 3394 key wrap of the first key under a second one in the wrapping
  // role (a key either encrypts or wraps: docs/PKCS11.md "Key-management
  // policy").
  CK_ATTRIBUTE kek_tmpl[6];
  std::copy(std::begin(tmpl), std::end(tmpl), kek_tmpl);
  kek_tmpl[1].type = CKA_WRAP;
  kek_tmpl[2].type = CKA_UNWRAP;
  CK_OBJECT_HANDLE kek = 0;
  ASSERT_EQ(p11()->C_GenerateKey(s, &gen, kek_tmpl, 6, &kek), CKR_OK);
  CK_MECHANISM kw = {CKM_AES_KEY_WRAP, nullptr, 0};
  CK_ULONG wrapped_len = 0;
  ASSERT_EQ(p11()->C_WrapKey(s, &kw, kek, key, nullptr, &wrapped_len), CKR_OK);
  std::vector<CK_BYTE> wrapped(wrapped_len);
  ASSERT_EQ(p11()->C_WrapKey(s, &kw, kek, key, wrapped.data(), &wrapped_len), CKR_OK);
  const CK_BYTE default_iv[8] = {0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6};
  EXPECT_EQ(wrapped, OpenSslCipher(EVP_aes_256_wrap(), ReadAttribute(s, kek, CKA_VALUE), default_iv,
                                   value, false, true));
}

// Multi-part operations keep their state in signetd: an input three times
// the size of a protocol frame passes through C_EncryptUpdate /
// C_DecryptUpdate / C_SignUpdate (HMAC) / C_DigestUpdate in parts, every part returning its
// output at once, and the result is EVP's. A C_EncryptUpdate length query
// (NULL output) followed by the real call feeds the part only once.
TEST_F(ApiTest, MultiPartOperationsPassInputsLargerThanAFrame) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
  CK_ULONG bytes = 32;
  CK_MECHANISM gen = {CKM_AES_KEY_GEN, nullptr, 0};
  CK_ATTRIBUTE tmpl[] = {{CKA_VALUE_LEN, &bytes, sizeof(bytes)},
                         {CKA_ENCRYPT, &yes, 1},
                         {CKA_DECRYPT, &yes, 1},
                         {CKA_EXTRACTABLE, &yes, 1},
                         {CKA_SENSITIVE, &no, 1},
                         {CKA_TOKEN, &no, 1}};
  CK_OBJECT_HANDLE key = 0;
  ASSERT_EQ(p11()->C_GenerateKey(s, &gen, tmpl, 6, &key), CKR_OK);
  const std::vector<CK_BYTE> value = ReadAttribute(s, key, CKA_VALUE);
  std::vector<CK_BYTE> plain(3 * 1024 * 1024 + 5);
  for (std::size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<CK_BYTE>(i * 13 + i / 4096);
  CK_BYTE iv[16] = {};
  CK_AES_CTR_PARAMS ctr = {32, {}};
  constexpr std::size_t kPart = 100'000;

  // Runs C_<Op>Update over `in` in kPart pieces, then C_<Op>Final.
  auto in_parts = [&](bool encrypt, const std::vector<CK_BYTE>& in, bool query_first) {
    std::vector<CK_BYTE> out;
    for (std::size_t at = 0; at < in.size(); at += kPart) {
      CK_BYTE_PTR part = const_cast<CK_BYTE_PTR>(in.data() + at);
      const CK_ULONG part_len = std::min(kPart, in.size() - at);
      CK_ULONG len = part_len + 16;
      if (query_first) {
        EXPECT_EQ((encrypt ? p11()->C_EncryptUpdate : p11()->C_DecryptUpdate)(s, part, part_len,
                                                                              nullptr, &len),
                  CKR_OK);
      }
      std::vector<CK_BYTE> piece(len);
      EXPECT_EQ((encrypt ? p11()->C_EncryptUpdate : p11()->C_DecryptUpdate)(s, part, part_len,
                                                                            piece.data(), &len),
                CKR_OK);
      EXPECT_EQ(len, part_len);  // CTR releases every byte at once
      out.insert(out.end(), piece.begin(), piece.begin() + static_cast<std::ptrdiff_t>(len));
    }
    CK_BYTE last[16];
    CK_ULONG last_len = sizeof last;
    EXPECT_EQ((encrypt ? p11()->C_EncryptFinal : p11()->C_DecryptFinal)(s, last, &last_len),
              CKR_OK);
    out.insert(out.end(), last, last + last_len);
    return out;
  };
  CK_MECHANISM m = {CKM_AES_CTR, &ctr, sizeof ctr};
  ASSERT_EQ(p11()->C_EncryptInit(s, &m, key), CKR_OK);
  const std::vector<CK_BYTE> ct = in_parts(true, plain, true);
  EXPECT_EQ(ct, OpenSslCipher(EVP_aes_256_ctr(), value, iv, plain, false));
  ASSERT_EQ(p11()->C_DecryptInit(s, &m, key), CKR_OK);
  EXPECT_EQ(in_parts(false, ct, false), plain);

  // HMAC-SHA256 in parts, under the AES key's value imported as a generic
  // secret, equals OpenSSL's HMAC.
  CK_OBJECT_CLASS secret_class = CKO_SECRET_KEY;
  CK_KEY_TYPE generic = CKK_GENERIC_SECRET;
  CK_ATTRIBUTE mac_tmpl[] = {{CKA_CLASS, &secret_class, sizeof secret_class},
                             {CKA_KEY_TYPE, &generic, sizeof generic},
                             {CKA_VALUE, const_cast<CK_BYTE*>(value.data()), value.size()},
                             {CKA_SIGN, &yes, 1},
                             {CKA_TOKEN, &no, 1}};
  CK_OBJECT_HANDLE mac_key = 0;
  ASSERT_EQ(p11()->C_CreateObject(s, mac_tmpl, 5, &mac_key), CKR_OK);
  CK_MECHANISM hmac = {CKM_SHA256_HMAC, nullptr, 0};
  ASSERT_EQ(p11()->C_SignInit(s, &hmac, mac_key), CKR_OK);
  for (std::size_t at = 0; at < plain.size(); at += kPart) {
    ASSERT_EQ(p11()->C_SignUpdate(s, plain.data() + at, std::min(kPart, plain.size() - at)),
              CKR_OK);
  }
  CK_ULONG mac_len = 0;
  ASSERT_EQ(p11()->C_SignFinal(s, nullptr, &mac_len), CKR_OK);
  ASSERT_EQ(mac_len, 32u);
  CK_BYTE mac[32];
  ASSERT_EQ(p11()->C_SignFinal(s, mac, &mac_len), CKR_OK);
  CK_BYTE reference[32];
  unsigned int reference_len = 0;
  HMAC(EVP_sha256(), value.data(), static_cast<int>(value.size()), plain.data(), plain.size(),
       reference, &reference_len);
  EXPECT_EQ(std::vector<CK_BYTE>(mac, mac + mac_len),
            std::vector<CK_BYTE>(reference, reference + reference_len));

  CK_MECHANISM sha = {CKM_SHA256, nullptr, 0};
  ASSERT_EQ(p11()->C_DigestInit(s, &sha), CKR_OK);
  for (std::size_t at = 0; at < plain.size(); at += kPart) {
    ASSERT_EQ(p11()->C_DigestUpdate(s, plain.data() + at, std::min(kPart, plain.size() - at)),
              CKR_OK);
  }
  CK_BYTE digest[32];
  CK_ULONG digest_len = sizeof digest;
  ASSERT_EQ(p11()->C_DigestFinal(s, digest, &digest_len), CKR_OK);
  CK_BYTE expected[32];
  unsigned int expected_len = 0;
  EVP_Digest(plain.data(), plain.size(), expected, &expected_len, EVP_sha256(), nullptr);
  EXPECT_EQ(std::vector<CK_BYTE>(digest, digest + digest_len),
            std::vector<CK_BYTE>(expected, expected + expected_len));
}

TEST_F(ApiTest, AesGcmAndKeyWrapRoundTrip) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
  CK_ULONG bytes = 32;
  CK_MECHANISM gen = {CKM_AES_KEY_GEN, nullptr, 0};
  CK_ATTRIBUTE kek_tmpl[] = {{CKA_VALUE_LEN, &bytes, sizeof(bytes)}, {CKA_WRAP, &yes, 1},
                             {CKA_UNWRAP, &yes, 1}, {CKA_TOKEN, &no, 1}};
  CK_ATTRIBUTE data_tmpl[] = {{CKA_VALUE_LEN, &bytes, sizeof(bytes)}, {CKA_ENCRYPT, &yes, 1},
                              {CKA_DECRYPT, &yes, 1}, {CKA_EXTRACTABLE, &yes, 1},
                              {CKA_SENSITIVE, &no, 1}, {CKA_TOKEN, &no, 1}};
  CK_OBJECT_HANDLE kek = 0, key = 0, unwrapped = 0;
  ASSERT_EQ(p11()->C_GenerateKey(s, &gen, kek_tmpl, 4, &kek), CKR_OK);
  ASSERT_EQ(p11()->C_GenerateKey(s, &gen, data_tmpl, 6, &key), CKR_OK);

  CK_BYTE iv[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  CK_GCM_PARAMS gcm = {iv, sizeof(iv), 96, nullptr, 0, 128};
  CK_MECHANISM aes_gcm = {CKM_AES_GCM, &gcm, sizeof(gcm)};
  const std::string plain = "sixteen byte msg and a tail";
  ASSERT_EQ(p11()->C_EncryptInit(s, &aes_gcm, key), CKR_OK);
  CK_ULONG ct_len = 0;
  ASSERT_EQ(p11()->C_Encrypt(s, (CK_BYTE_PTR)plain.data(), plain.size(), nullptr, &ct_len), CKR_OK);
  std::vector<CK_BYTE> ct(ct_len);
  ASSERT_EQ(p11()->C_Encrypt(s, (CK_BYTE_PTR)plain.data(), plain.size(), ct.data(), &ct_len),
            CKR_OK);
  EXPECT_EQ(ct, OpenSslGcmEncrypt(ReadAttribute(s, key, CKA_VALUE), iv, plain));

  CK_MECHANISM kwp = {CKM_AES_KEY_WRAP_KWP, nullptr, 0};
  CK_ULONG wrapped_len = 0;
  ASSERT_EQ(p11()->C_WrapKey(s, &kwp, kek, key, nullptr, &wrapped_len), CKR_OK);
  std::vector<CK_BYTE> wrapped(wrapped_len);
  ASSERT_EQ(p11()->C_WrapKey(s, &kwp, kek, key, wrapped.data(), &wrapped_len), CKR_OK);
  CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
  CK_KEY_TYPE aes = CKK_AES;
  CK_ATTRIBUTE unwrap_tmpl[] = {{CKA_CLASS, &cls, sizeof(cls)}, {CKA_KEY_TYPE, &aes, sizeof(aes)},
                                {CKA_DECRYPT, &yes, 1}, {CKA_TOKEN, &no, 1}};
  ASSERT_EQ(p11()->C_UnwrapKey(s, &kwp, kek, wrapped.data(), wrapped_len, unwrap_tmpl, 4,
                               &unwrapped),
            CKR_OK);
  ASSERT_EQ(p11()->C_DecryptInit(s, &aes_gcm, unwrapped), CKR_OK);
  ASSERT_EQ(p11()->C_DecryptUpdate(s, ct.data(), ct.size(), nullptr, &ct_len), CKR_OK);
  std::vector<CK_BYTE> back(plain.size());
  CK_ULONG back_len = back.size();
  ASSERT_EQ(p11()->C_DecryptFinal(s, back.data(), &back_len), CKR_OK);
  EXPECT_EQ(std::string(back.begin(), back.begin() + back_len), plain);
  ct[0] ^= 1;  // a forged ciphertext fails the tag check
  ASSERT_EQ(p11()->C_DecryptInit(s, &aes_gcm, unwrapped), CKR_OK);
  back_len = back.size();
  EXPECT_NE(p11()->C_Decrypt(s, ct.data(), ct.size(), back.data(), &back_len), CKR_OK);
}

TEST_F(ApiTest, RandomAndSeed) {
  CK_SESSION_HANDLE s = OpenSession();
  std::vector<CK_BYTE> a(100000), b(100000);  // more than one 64 KiB request
  ASSERT_EQ(p11()->C_GenerateRandom(s, a.data(), a.size()), CKR_OK);
  ASSERT_EQ(p11()->C_GenerateRandom(s, b.data(), b.size()), CKR_OK);
  EXPECT_NE(a, b);
  CK_BYTE seed[4] = {};
  EXPECT_EQ(p11()->C_SeedRandom(s, seed, 4), CKR_OK);  // mixed in (issue 11 point 12)
  EXPECT_EQ(p11()->C_GenerateRandom(0x12345, a.data(), 4), CKR_SESSION_HANDLE_INVALID);
}

TEST_F(ApiTest, MissingDaemonIsDeviceError) {
  ASSERT_EQ(p11()->C_Finalize(nullptr), CKR_OK);
  setenv("SIGNET_SOCKET", Path("no-such.sock").c_str(), 1);
  ASSERT_EQ(p11()->C_Initialize(nullptr), CKR_OK);
  CK_ULONG count = 0;
  EXPECT_EQ(p11()->C_GetSlotList(CK_TRUE, nullptr, &count), CKR_DEVICE_ERROR);
  CK_SESSION_HANDLE s = 0;
  EXPECT_EQ(p11()->C_OpenSession(0, CKF_SERIAL_SESSION, nullptr, nullptr, &s), CKR_DEVICE_ERROR);
}

}  // namespace
}  // namespace signet::e2e
