// What a plain PKCS#11 application (a test host program that links no
// signet library but base/) does first: load the module with dlopen,
// initialise it with CKF_OS_LOCKING_OK, and log in as the user on a session
// of the first token. Shared by pkcs11_module_probe and pkcs11_sign_load.
// Each helper prints the failing call and its CK_RV on stderr.
#pragma once

#include <p11-kit/pkcs11.h>

#include <string>

namespace signet::e2e {

// Check: true when `rv` is CKR_OK; otherwise says "<what> failed" on stderr.
bool Check(const char* what, CK_RV rv);

// LoadModule: the module's function list, initialised; nullptr on failure.
CK_FUNCTION_LIST_PTR LoadModule(const char* path);

// UserSessionOnFirstToken opens a session (`flags`) on the first slot with a
// token and logs the user in with `pin`; false on failure (no token
// included).
bool UserSessionOnFirstToken(CK_FUNCTION_LIST_PTR p11, CK_FLAGS flags, const std::string& pin,
                             CK_SLOT_ID* slot, CK_SESSION_HANDLE* session);

}  // namespace signet::e2e
