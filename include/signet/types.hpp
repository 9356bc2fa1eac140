// The value types that the daemon's core and the client library both speak:
// bytes, mechanisms with their parameters, session and attribute results.
// Defined once here so that a mechanism or an attribute read means the same
// thing on both sides of the wire (src/daemon/wire_convert.* and
// src/client/encode.* translate them to and from the FlatBuffers schema).
// Plain values: not synchronised, safe to copy and move between threads.
#pragma once

#include <p11-kit/pkcs11.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

namespace signet {

using Bytes = std::vector<std::uint8_t>;
using ByteView = std::span<const std::uint8_t>;

// PssParams: CK_RSA_PKCS_PSS_PARAMS.
struct PssParams {
  CK_MECHANISM_TYPE hash_alg = CKM_SHA256;
  CK_RSA_PKCS_MGF_TYPE mgf = CKG_MGF1_SHA256;
  CK_ULONG salt_len = 32;
};

// GcmParams: CK_GCM_PARAMS (the IV length is iv.size()).
struct GcmParams {
  Bytes iv;
  Bytes aad;
  CK_ULONG tag_bits = 128;
};

// AesCtrParams: CK_AES_CTR_PARAMS (counter_block is cb[16]).
struct AesCtrParams {
  CK_ULONG counter_bits = 128;
  Bytes counter_block;
};

// OaepParams: CK_RSA_PKCS_OAEP_PARAMS. `source` is CKZ_DATA_SPECIFIED or 0
// (no label); the label is source_data.
struct OaepParams {
  CK_MECHANISM_TYPE hash_alg = CKM_SHA_1;
  CK_RSA_PKCS_MGF_TYPE mgf = CKG_MGF1_SHA1;
  CK_RSA_PKCS_OAEP_SOURCE_TYPE source = CKZ_DATA_SPECIFIED;
  Bytes source_data;
};

// EcdhParams: CK_ECDH1_DERIVE_PARAMS; public_data is the other party's
// public value.
struct EcdhParams {
  CK_ULONG kdf = CKD_NULL;  // CKD_NULL, CKD_SHA256_KDF ...
  Bytes shared_data;
  Bytes public_data;
};

// EddsaParams: CK_EDDSA_PARAMS.
struct EddsaParams {
  bool prehash = false;
  Bytes context;
};

// HkdfParams: CK_HKDF_PARAMS; salt_type is CKF_HKDF_SALT_NULL, _DATA (salt)
// or _KEY (the value of salt_key).
struct HkdfParams {
  bool extract = false;
  bool expand = false;
  CK_MECHANISM_TYPE prf_hash = CKM_SHA256;
  CK_ULONG salt_type = 0;
  Bytes salt;
  CK_OBJECT_HANDLE salt_key = 0;
  Bytes info;
};

// RsaAesWrapParams: CK_RSA_AES_KEY_WRAP_PARAMS.
struct RsaAesWrapParams {
  CK_ULONG aes_key_bits = 0;
  OaepParams oaep;
};

// DerivationData: CK_KEY_DERIVATION_STRING_DATA (iv empty), and
// CK_AES_CBC_ENCRYPT_DATA_PARAMS / CK_DES_CBC_ENCRYPT_DATA_PARAMS.
struct DerivationData {
  Bytes iv;
  Bytes data;
};

// Mechanism: CK_MECHANISM with its parameter in typed form; raw_params for a
// parameter that is plain bytes (an IV, a DH public value) or has no typed
// form.
struct Mechanism {
  CK_MECHANISM_TYPE type = 0;
  std::optional<PssParams> pss;
  std::optional<GcmParams> gcm;
  Bytes raw_params;
  std::optional<AesCtrParams> ctr;
  std::optional<OaepParams> oaep;
  std::optional<CK_ULONG> mac_length;  // CK_MAC_GENERAL_PARAMS
  std::optional<EcdhParams> ecdh;
  std::optional<EddsaParams> eddsa;
  std::optional<HkdfParams> hkdf;
  std::optional<RsaAesWrapParams> rsa_aes;
  std::optional<DerivationData> derivation;
  std::optional<CK_OBJECT_HANDLE> other_key;  // CKM_CONCATENATE_BASE_AND_KEY
};

// OperationKind: the operations that may run in several parts (C_*Update),
// one of each active per session. The wire's OperationKind has the same
// values.
enum class OperationKind : std::uint8_t { kSign, kVerify, kDigest, kEncrypt, kDecrypt };
inline constexpr std::size_t kOperationKindCount = 5;

// SessionInfo: CK_SESSION_INFO.
struct SessionInfo {
  CK_SLOT_ID slot_id = 0;
  CK_STATE state = 0;
  CK_FLAGS flags = 0;
  CK_ULONG device_error = 0;
};

// AttributeValue: one attribute as C_GetAttributeValue reports it: its
// value, or in `rv` why it has none (CKR_ATTRIBUTE_SENSITIVE,
// CKR_ATTRIBUTE_TYPE_INVALID).
struct AttributeValue {
  CK_ATTRIBUTE_TYPE type = 0;
  CK_RV rv = CKR_OK;
  Bytes value;
};

// The C ABI byte form of attribute values, as CK_ATTRIBUTE carries them and
// the wire and the token store keep them: a CK_ULONG in host byte order and
// size, a CK_BBOOL as one byte. *Bytes turns a value into that form;
// *FromBytes reads it back, nullopt when the size is wrong.
inline Bytes UlongBytes(CK_ULONG value) {
  Bytes out(sizeof value);
  std::memcpy(out.data(), &value, sizeof value);
  return out;
}
inline Bytes BoolBytes(bool value) {
  return Bytes{static_cast<std::uint8_t>(value ? CK_TRUE : CK_FALSE)};
}
inline std::optional<CK_ULONG> UlongFromBytes(ByteView bytes) {
  if (bytes.size() != sizeof(CK_ULONG)) return std::nullopt;
  CK_ULONG value;
  std::memcpy(&value, bytes.data(), sizeof value);
  return value;
}
inline std::optional<bool> BoolFromBytes(ByteView bytes) {
  if (bytes.size() != sizeof(CK_BBOOL)) return std::nullopt;
  return bytes[0] != CK_FALSE;
}

}  // namespace signet
