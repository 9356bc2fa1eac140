// ModuleTest: DaemonTest (a real signetd on a temporary token) plus the
// PKCS#11 module loaded with dlopen(), as a real application would load it,
// pointed at the daemon through SIGNET_SOCKET and initialised with
// CKF_OS_LOCKING_OK. Helpers open logged-in sessions and make keys.
// Test bodies may use `p11()` from any thread; the fixture's own state
// belongs to the main thread.
#pragma once

#include <p11-kit/pkcs11.h>

#include <string>
#include <vector>

#include "../daemon_fixture.h"

namespace signet::e2e {

// ModulePath: the freshly built libsignet-pkcs11.so.
std::string ModulePath();

// Bytes of a PIN / label for the C ABI.
inline CK_UTF8CHAR_PTR Utf8(const char* text) {
  return reinterpret_cast<CK_UTF8CHAR_PTR>(const_cast<char*>(text));
}

class ModuleTest : public DaemonTest {
 protected:
  void SetUp() override;
  void TearDown() override;

  CK_FUNCTION_LIST_PTR p11() const { return functions_; }

  // TokenSlot: the slot of the fixture's token.
  CK_SLOT_ID TokenSlot();

  // OpenSession opens a read-write session on the token (asserting success).
  CK_SESSION_HANDLE OpenSession();

  // LoginUser logs the application in as the user.
  void LoginUser(CK_SESSION_HANDLE session);

  // MakeEcKey generates a P-256 key pair (session objects unless `token`).
  void MakeEcKey(CK_SESSION_HANDLE session, const std::string& label, bool token,
                 CK_OBJECT_HANDLE* pub, CK_OBJECT_HANDLE* priv);

  // ReadAttribute returns an attribute's value (asserting success).
  std::vector<CK_BYTE> ReadAttribute(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE object,
                                     CK_ATTRIBUTE_TYPE type);

  // EcPublicKeyPem turns a public key object into PEM that OpenSSL reads.
  std::string EcPublicKeyPem(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE pub);

  void* library_ = nullptr;
  CK_FUNCTION_LIST_PTR functions_ = nullptr;
};

}  // namespace signet::e2e
