// The module's exported surface: C_GetFunctionList and the PKCS#11 3.0
// C_GetInterfaceList / C_GetInterface (the only symbols exports.map lets
// out), the CK_FUNCTION_LIST (v2.40) they hand out, and the functions signet
// does not offer (CKR_FUNCTION_NOT_SUPPORTED, or CKR_FUNCTION_NOT_PARALLEL
// for the legacy parallel-function calls, as PKCS#11 v2.40 §5.16 names).
#include <cstring>

#include "pkcs11/entry_points.h"
#include "pkcs11/guard.h"
#include "pkcs11/pkcs11_v3.h"
#include "pkcs11/session_ops.h"

namespace signet::pkcs11::entry {
namespace {

// NotSupported: one stub for every unoffered function that takes a
// session, whatever its other parameters. Like every function it answers
// CKR_CRYPTOKI_NOT_INITIALIZED before C_Initialize (§5.4), then checks the
// session (§5.1.2's codes take precedence over §5.1.6's, which
// CKR_FUNCTION_NOT_SUPPORTED is one of), then says it is not offered.
template <typename... Args>
CK_RV NotSupported(CK_SESSION_HANDLE session, Args...) {
  return WithSession(session, [](ModuleState&, Session&) { return CKR_FUNCTION_NOT_SUPPORTED; });
}

// NotParallel: C_GetFunctionStatus / C_CancelFunction, legacy functions
// that answer CKR_FUNCTION_NOT_PARALLEL (§5.16) for a valid session.
CK_RV NotParallel(CK_SESSION_HANDLE session) {
  return WithSession(session, [](ModuleState&, Session&) { return CKR_FUNCTION_NOT_PARALLEL; });
}

// WaitForSlotEvent: slot events are not offered (no session to check).
CK_RV WaitForSlotEvent(CK_FLAGS, CK_SLOT_ID_PTR, CK_VOID_PTR) {
  return WithState([](ModuleState&) { return CKR_FUNCTION_NOT_SUPPORTED; });
}

CK_RV GetFunctionListEntry(CK_FUNCTION_LIST_PTR_PTR list);

CK_FUNCTION_LIST kFunctionList = {
    {2, 40},
    C_Initialize,
    C_Finalize,
    C_GetInfo,
    GetFunctionListEntry,
    C_GetSlotList,
    C_GetSlotInfo,
    C_GetTokenInfo,
    C_GetMechanismList,
    C_GetMechanismInfo,
    C_InitToken,
    C_InitPIN,
    C_SetPIN,
    C_OpenSession,
    C_CloseSession,
    C_CloseAllSessions,
    C_GetSessionInfo,
    NotSupported<CK_BYTE_PTR, CK_ULONG_PTR>,  // C_GetOperationState
    NotSupported<CK_BYTE_PTR, CK_ULONG, CK_OBJECT_HANDLE,
                 CK_OBJECT_HANDLE>,  // C_SetOperationState
    C_Login,
    C_Logout,
    C_CreateObject,
    C_CopyObject,
    C_DestroyObject,
    C_GetObjectSize,
    C_GetAttributeValue,
    C_SetAttributeValue,
    C_FindObjectsInit,
    C_FindObjects,
    C_FindObjectsFinal,
    C_EncryptInit,
    C_Encrypt,
    C_EncryptUpdate,
    C_EncryptFinal,
    C_DecryptInit,
    C_Decrypt,
    C_DecryptUpdate,
    C_DecryptFinal,
    C_DigestInit,
    C_Digest,
    C_DigestUpdate,
    NotSupported<CK_OBJECT_HANDLE>,  // C_DigestKey
    C_DigestFinal,
    C_SignInit,
    C_Sign,
    C_SignUpdate,
    C_SignFinal,
    NotSupported<CK_MECHANISM_PTR, CK_OBJECT_HANDLE>,  // C_SignRecoverInit
    NotSupported<CK_BYTE_PTR, CK_ULONG, CK_BYTE_PTR,
                 CK_ULONG_PTR>,  // C_SignRecover
    C_VerifyInit,
    C_Verify,
    C_VerifyUpdate,
    C_VerifyFinal,
    NotSupported<CK_MECHANISM_PTR, CK_OBJECT_HANDLE>,  // C_VerifyRecoverInit
    NotSupported<CK_BYTE_PTR, CK_ULONG, CK_BYTE_PTR,
                 CK_ULONG_PTR>,  // C_VerifyRecover
    NotSupported<CK_BYTE_PTR, CK_ULONG, CK_BYTE_PTR,
                 CK_ULONG_PTR>,  // C_DigestEncryptUpdate
    NotSupported<CK_BYTE_PTR, CK_ULONG, CK_BYTE_PTR,
                 CK_ULONG_PTR>,  // C_DecryptDigestUpdate
    NotSupported<CK_BYTE_PTR, CK_ULONG, CK_BYTE_PTR,
                 CK_ULONG_PTR>,  // C_SignEncryptUpdate
    NotSupported<CK_BYTE_PTR, CK_ULONG, CK_BYTE_PTR,
                 CK_ULONG_PTR>,  // C_DecryptVerifyUpdate
    C_GenerateKey,
    C_GenerateKeyPair,
    C_WrapKey,
    C_UnwrapKey,
    C_DeriveKey,
    C_SeedRandom,
    C_GenerateRandom,
    NotParallel,       // C_GetFunctionStatus
    NotParallel,       // C_CancelFunction
    WaitForSlotEvent,  // C_WaitForSlotEvent
};

CK_UTF8CHAR kInterfaceName[] = "PKCS 11";

CK_INTERFACE kInterface = {kInterfaceName, &kFunctionList, 0};

CK_RV GetFunctionListEntry(CK_FUNCTION_LIST_PTR_PTR list) {
  if (list == nullptr) return CKR_ARGUMENTS_BAD;
  *list = &kFunctionList;
  return CKR_OK;
}

}  // namespace

// GetInterfaceList / GetInterface: PKCS#11 v3.0 §5.2. signet offers one
// interface, "PKCS 11" with the v2.40 function list.
CK_RV GetInterfaceList(CK_INTERFACE_PTR list, CK_ULONG_PTR count) {
  if (count == nullptr) return CKR_ARGUMENTS_BAD;
  if (list == nullptr) {
    *count = 1;
    return CKR_OK;
  }
  const CK_ULONG room = *count;
  *count = 1;
  if (room < 1) return CKR_BUFFER_TOO_SMALL;
  list[0] = kInterface;
  return CKR_OK;
}

CK_RV GetInterface(CK_UTF8CHAR_PTR name, CK_VERSION_PTR version, CK_INTERFACE_PTR_PTR out,
                   CK_FLAGS flags) {
  if (out == nullptr) return CKR_ARGUMENTS_BAD;
  const bool name_ok =
      name == nullptr || std::strcmp(reinterpret_cast<const char*>(name), "PKCS 11") == 0;
  const bool version_ok = version == nullptr || (version->major == kFunctionList.version.major &&
                                                 version->minor == kFunctionList.version.minor);
  const bool flags_ok = (flags & ~kInterface.flags) == 0;
  if (!name_ok || !version_ok || !flags_ok) return CKR_ARGUMENTS_BAD;
  *out = &kInterface;
  return CKR_OK;
}

CK_RV GetFunctionList(CK_FUNCTION_LIST_PTR_PTR list) { return GetFunctionListEntry(list); }

}  // namespace signet::pkcs11::entry

extern "C" {

#define SIGNET_EXPORT __attribute__((visibility("default")))

SIGNET_EXPORT CK_RV C_GetFunctionList(CK_FUNCTION_LIST_PTR_PTR list) {
  return signet::pkcs11::Guard([&] { return signet::pkcs11::entry::GetFunctionList(list); });
}

SIGNET_EXPORT CK_RV C_GetInterfaceList(CK_INTERFACE_PTR list, CK_ULONG_PTR count) {
  return signet::pkcs11::Guard([&] { return signet::pkcs11::entry::GetInterfaceList(list, count); });
}

SIGNET_EXPORT CK_RV C_GetInterface(CK_UTF8CHAR_PTR name, CK_VERSION_PTR version,
                                   CK_INTERFACE_PTR_PTR out, CK_FLAGS flags) {
  return signet::pkcs11::Guard(
      [&] { return signet::pkcs11::entry::GetInterface(name, version, out, flags); });
}

}  // extern "C"
