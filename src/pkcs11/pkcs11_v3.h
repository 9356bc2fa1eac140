// The few PKCS#11 3.0 declarations signet's module needs that p11-kit 0.24's
// pkcs11.h lacks: CK_INTERFACE and the C_GetInterfaceList / C_GetInterface
// entry points (PKCS#11 3.0 §5.2). Everything else comes from p11-kit's
// header; this file only fills the gap and is a no-op once p11-kit grows them.
// Plain declarations; no state.
#pragma once

#include <p11-kit/pkcs11.h>

#ifndef CKF_INTERFACE_FORK_SAFE
// CK_INTERFACE: one interface a module offers, named e.g. "PKCS 11"; its
// function list is a CK_FUNCTION_LIST (or a 3.0 list) whose version field
// says which.
typedef struct CK_INTERFACE {
  CK_UTF8CHAR* pInterfaceName;
  CK_VOID_PTR pFunctionList;
  CK_FLAGS flags;
} CK_INTERFACE;
typedef CK_INTERFACE* CK_INTERFACE_PTR;
typedef CK_INTERFACE_PTR* CK_INTERFACE_PTR_PTR;

// CKF_INTERFACE_FORK_SAFE: the interface's functions may be used in a child
// after fork() without re-initialising. signet's module is NOT fork safe in
// this sense (the child must call C_Initialize), so it never sets the flag.
#define CKF_INTERFACE_FORK_SAFE (0x00000001UL)
#endif
