#include "module_fixture.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <cstring>

#include "ec_verify.h"

namespace signet::e2e {
namespace {

// DER OID of prime256v1 (CKA_EC_PARAMS).
const CK_BYTE kP256Params[] = {0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};

}  // namespace

std::string ModulePath() { return std::string(SIGNET_BINARY_DIR) + "/lib/libsignet-pkcs11.so"; }

void ModuleTest::SetUp() {
  DaemonTest::SetUp();
  if (HasFatalFailure()) return;
  setenv("SIGNET_SOCKET", socket_path().c_str(), 1);
  library_ = dlopen(ModulePath().c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library_, nullptr) << dlerror();
  auto get_list = reinterpret_cast<CK_C_GetFunctionList>(dlsym(library_, "C_GetFunctionList"));
  ASSERT_NE(get_list, nullptr);
  ASSERT_EQ(get_list(&functions_), CKR_OK);
  CK_C_INITIALIZE_ARGS args = {};
  args.flags = CKF_OS_LOCKING_OK;
  ASSERT_EQ(functions_->C_Initialize(&args), CKR_OK);
}

void ModuleTest::TearDown() {
  if (functions_ != nullptr) functions_->C_Finalize(nullptr);
  if (library_ != nullptr) dlclose(library_);
  unsetenv("SIGNET_SOCKET");
  DaemonTest::TearDown();
}

CK_SLOT_ID ModuleTest::TokenSlot() {
  CK_SLOT_ID slots[16];
  CK_ULONG count = 16;
  EXPECT_EQ(p11()->C_GetSlotList(CK_TRUE, slots, &count), CKR_OK);
  EXPECT_GE(count, 1u);
  return slots[0];
}

CK_SESSION_HANDLE ModuleTest::OpenSession() {
  CK_SESSION_HANDLE session = CK_INVALID_HANDLE;
  EXPECT_EQ(p11()->C_OpenSession(TokenSlot(), CKF_SERIAL_SESSION | CKF_RW_SESSION, nullptr,
                                 nullptr, &session),
            CKR_OK);
  return session;
}

void ModuleTest::LoginUser(CK_SESSION_HANDLE session) {
  ASSERT_EQ(p11()->C_Login(session, CKU_USER, Utf8(kUserPin), std::strlen(kUserPin)), CKR_OK);
}

void ModuleTest::MakeEcKey(CK_SESSION_HANDLE session, const std::string& label, bool token,
                           CK_OBJECT_HANDLE* pub, CK_OBJECT_HANDLE* priv) {
  CK_BBOOL yes = CK_TRUE;
  CK_BBOOL on_token = token ? CK_TRUE : CK_FALSE;
  CK_MECHANISM mech = {CKM_EC_KEY_PAIR_GEN, nullptr, 0};
  CK_ATTRIBUTE pub_tmpl[] = {
      {CKA_EC_PARAMS, const_cast<CK_BYTE*>(kP256Params), sizeof(kP256Params)},
      {CKA_TOKEN, &on_token, 1},
      {CKA_VERIFY, &yes, 1},
      {CKA_LABEL, const_cast<char*>(label.data()), label.size()},
  };
  CK_ATTRIBUTE priv_tmpl[] = {
      {CKA_TOKEN, &on_token, 1},
      {CKA_SIGN, &yes, 1},
      {CKA_PRIVATE, &yes, 1},
      {CKA_SENSITIVE, &yes, 1},
      {CKA_LABEL, const_cast<char*>(label.data()), label.size()},
  };
  ASSERT_EQ(p11()->C_GenerateKeyPair(session, &mech, pub_tmpl, 4, priv_tmpl, 5, pub, priv),
            CKR_OK);
}

std::vector<CK_BYTE> ModuleTest::ReadAttribute(CK_SESSION_HANDLE session,
                                               CK_OBJECT_HANDLE object, CK_ATTRIBUTE_TYPE type) {
  CK_ATTRIBUTE attr = {type, nullptr, 0};
  EXPECT_EQ(p11()->C_GetAttributeValue(session, object, &attr, 1), CKR_OK);
  std::vector<CK_BYTE> value(attr.ulValueLen);
  attr.pValue = value.data();
  EXPECT_EQ(p11()->C_GetAttributeValue(session, object, &attr, 1), CKR_OK);
  return value;
}

std::string ModuleTest::EcPublicKeyPem(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE pub) {
  std::vector<CK_BYTE> point = ReadAttribute(session, pub, CKA_EC_POINT);
  EXPECT_EQ(point.size(), 67u);
  return P256PointToPem(point);
}

}  // namespace signet::e2e
