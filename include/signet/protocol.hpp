// signet protocol constants shared by the daemon, the client library and the
// PKCS#11 module: signet's vendor-defined CK_RV codes and the PKCS#11 3.0
// attribute, mechanism, key type and flag numbers that p11-kit 0.24's pkcs11.h lacks. Plain
// constants; no state.
#pragma once

#include <p11-kit/pkcs11.h>

// CKM_AES_KEY_WRAP_KWP: AES key wrap with padding (RFC 5649), PKCS#11 3.0
// §2.14.4. p11-kit 0.24 only names the older CKM_AES_KEY_WRAP_PAD (0x210A).
#ifndef CKM_AES_KEY_WRAP_KWP
#define CKM_AES_KEY_WRAP_KWP (0x210BUL)
#endif

// CKA_UNIQUE_ID: the token-assigned, read-only name of an object, PKCS#11
// 3.0 §4.4.1 (core/unique_id.h).
#ifndef CKA_UNIQUE_ID
#define CKA_UNIQUE_ID (0x4UL)
#endif

// CKM_SIGNET_RSA_PKCS_AES_KEY_WRAP: CKM_RSA_AES_KEY_WRAP as Cryptech's
// libhal exports keys: a one-time 256-bit AES key under PKCS#1 v1.5 (not
// OAEP), then RFC 5649 of the key; no parameter. The Cryptech listener's
// pkey_export / pkey_import (docs/CRYPTECH.md).
#define CKM_SIGNET_RSA_PKCS_AES_KEY_WRAP (CKM_VENDOR_DEFINED | 0x5347UL)

// PKCS#11 3.0 key types and mechanisms for Montgomery curves (X25519,
// X448) and HKDF (§2.3.10, §2.43), also missing from p11-kit 0.24.
#ifndef CKK_EC_MONTGOMERY
#define CKK_EC_MONTGOMERY (0x41UL)
#endif
#ifndef CKK_HKDF
#define CKK_HKDF (0x42UL)
#endif
#ifndef CKM_EC_MONTGOMERY_KEY_PAIR_GEN
#define CKM_EC_MONTGOMERY_KEY_PAIR_GEN (0x1056UL)
#endif
#ifndef CKM_HKDF_DERIVE
// SIGNET_FILLS_PKCS11_V3: this header supplied the 3.0 numbers, so the
// module's pkcs11_v3.h supplies the 3.0 parameter structures too.
#define SIGNET_FILLS_PKCS11_V3 1
#define CKM_HKDF_DERIVE (0x402AUL)
#define CKM_HKDF_DATA (0x402BUL)
#define CKM_HKDF_KEY_GEN (0x402CUL)
#endif
#ifndef CKF_HKDF_SALT_NULL
#define CKF_HKDF_SALT_NULL (0x1UL)
#define CKF_HKDF_SALT_DATA (0x2UL)
#define CKF_HKDF_SALT_KEY (0x4UL)
#endif

// SIGNET_MAX_SEED_LEN: the most bytes one SeedRandomRequest (C_SeedRandom)
// may carry; the daemon answers CKR_ARGUMENTS_BAD beyond, and the module
// refuses longer seeds before sending them.
#define SIGNET_MAX_SEED_LEN (64UL * 1024UL)

// SIGNET_RV_BUSY: the daemon's work queue is full; retry later. Nothing was
// done for the request.
#define SIGNET_RV_BUSY (CKR_VENDOR_DEFINED | 1UL)

// SIGNET_RV_UNSUPPORTED_VERSION: the request's protocol version is not one
// the daemon speaks; the message names the supported version.
#define SIGNET_RV_UNSUPPORTED_VERSION (CKR_VENDOR_DEFINED | 2UL)

// SIGNET_RV_MALFORMED_MESSAGE: the frame's payload is not a valid Request
// (FlatBuffers verifier failed). The reply's id is 0 since none could be read.
#define SIGNET_RV_MALFORMED_MESSAGE (CKR_VENDOR_DEFINED | 3UL)

// SIGNET_RV_FRAME_TOO_LARGE: the frame's length field exceeds the limit; the
// daemon sends this reply (id 0) and then closes the connection.
#define SIGNET_RV_FRAME_TOO_LARGE (CKR_VENDOR_DEFINED | 4UL)

// SIGNET_RV_SHUTTING_DOWN: the daemon is stopping and takes no new work.
#define SIGNET_RV_SHUTTING_DOWN (CKR_VENDOR_DEFINED | 5UL)
