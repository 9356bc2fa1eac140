// The operations besides signatures that `bench parallel --algo` measures
// (docs/PERFORMANCE.md "Ciphers, MACs, decryption and key agreement"):
// AES-GCM and AES-CBC encryption of 1 KiB and 16 KiB, HMAC-SHA256 of 1 KiB,
// RSA-2048 OAEP decryption, and ECDH P-256 / X25519 key agreement, each
// named, with its PKCS#11 mechanism and what one operation processes.
// Backends bind them: raw_backend.cc (crypto/ in-process), pkcs11_operations.cc
// (any PKCS#11 module: signet's, SoftHSMv2's), daemon_operations.cc (the
// client library against signetd). Immutable static data: safe
// from any thread.
#pragma once

#include <p11-kit/pkcs11.h>

#include <cstddef>
#include <span>
#include <string_view>

#include "crypto/keys.h"

namespace signet::bench {

// BenchOperationKind: what one operation does with the key.
//   kEncrypt: encrypt `data_size` bytes under an AES-256 key
//   kMac:     MAC `data_size` bytes under a 32-byte generic secret
//   kDecrypt: decrypt one RSA OAEP (SHA-1, what SoftHSMv2
//             offers) ciphertext of a 32-byte secret
//   kDerive:  derive a 32-byte secret from the key and a fixed peer key
enum class BenchOperationKind : std::uint8_t { kEncrypt, kMac, kDecrypt, kDerive };

struct BenchOperation {
  std::string_view id;     // "aes-gcm-1k": `bench parallel --algo`
  std::string_view label;  // "aes_gcm_1k": the parallel line's name
  BenchOperationKind kind;
  CK_MECHANISM_TYPE mechanism;  // CKM_AES_GCM, CKM_AES_CBC, CKM_SHA256_HMAC, ...
  crypto::KeySpec key;          // the key pair of kDecrypt / kDerive
  std::size_t data_size;        // bytes per kEncrypt / kMac operation
};

// AllBenchOperations lists them in table order.
std::span<const BenchOperation> AllBenchOperations();

// RawEcPoint strips the DER OCTET STRING that CKA_EC_POINT wraps a point
// in (short form: every point a kDerive operation uses is under 128 bytes);
// other input comes back as it is.
Bytes RawEcPoint(Bytes point);

// FindBenchOperation accepts an id or a label (any case); nullptr when no
// operation has that name.
const BenchOperation* FindBenchOperation(std::string_view name);

}  // namespace signet::bench
