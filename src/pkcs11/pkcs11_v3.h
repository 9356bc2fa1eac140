// The few PKCS#11 3.0 declarations signet's module needs that p11-kit 0.24's
// pkcs11.h lacks: CK_INTERFACE and the C_GetInterfaceList / C_GetInterface
// entry points (PKCS#11 3.0 §5.2), and the parameter structures of the 3.0
// mechanisms whose numbers signet/protocol.hpp supplies. Everything else comes from p11-kit's
// header; this file only fills the gap and is a no-op once p11-kit grows them.
// Plain declarations; no state.
#pragma once

#include <p11-kit/pkcs11.h>

#include "signet/protocol.hpp"

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

// The mechanism parameter structures of PKCS#11 3.0 that p11-kit 0.24 lacks
// (§2.3.13 CK_EDDSA_PARAMS, §2.43.3 CK_HKDF_PARAMS, §2.1.21
// CK_RSA_AES_KEY_WRAP_PARAMS), laid out as the specification declares them.
#ifdef SIGNET_FILLS_PKCS11_V3
typedef struct CK_EDDSA_PARAMS {
  CK_BBOOL phFlag;
  CK_ULONG ulContextDataLen;
  CK_BYTE_PTR pContextData;
} CK_EDDSA_PARAMS;

typedef struct CK_HKDF_PARAMS {
  CK_BBOOL bExtract;
  CK_BBOOL bExpand;
  CK_MECHANISM_TYPE prfHashMechanism;
  CK_ULONG ulSaltType;
  CK_BYTE_PTR pSalt;
  CK_ULONG ulSaltLen;
  CK_OBJECT_HANDLE hSaltKey;
  CK_BYTE_PTR pInfo;
  CK_ULONG ulInfoLen;
} CK_HKDF_PARAMS;

typedef struct CK_RSA_AES_KEY_WRAP_PARAMS {
  CK_ULONG ulAESKeyBits;
  CK_RSA_PKCS_OAEP_PARAMS* pOAEPParams;
} CK_RSA_AES_KEY_WRAP_PARAMS;
#endif  // SIGNET_FILLS_PKCS11_V3
