// Signing and verification for every signature scheme signet offers.
// Safe to call from many threads at once with the same key. RSA private
// operations are always blinded (OpenSSL's default, never turned off).
// Signing reuses initialised contexts from the key's pool
// (sign_context_pool.h), so a signature costs no algorithm fetch. ECDSA
// with secp256k1 keys goes through libsecp256k1 (secp256k1_ecdsa.h) unless
// the caller asks for OpenSSL (SignEngine).
#pragma once

#include <optional>

#include "crypto/digest.h"
#include "crypto/keys.h"

namespace signet::crypto {

// SignScheme: kEddsa is RFC 8032's EdDSA: Ed25519 or Ed448 by the key,
// PureEdDSA unless SignParams::eddsa asks for another instance.
enum class SignScheme { kRsaPkcs1, kRsaPss, kEcdsa, kEddsa };

// EcdsaFormat: DER (X9.62, what `openssl dgst -verify` reads) or raw r||s
// with each half padded to the curve size (PKCS#11 CKM_ECDSA form).
enum class EcdsaFormat { kDer, kRaw };

// SignEngine: the code that computes a signature. kDefault is the fastest
// signet has: libsecp256k1 for ECDSA with secp256k1 keys, OpenSSL for every
// other key. kOpenssl is OpenSSL's EVP code for every key, for secp256k1 its
// generic prime-curve code: the reference the benches set beside kDefault
// (`bench speed`'s "(OpenSSL)" row, `bench parallel --raw`). The two make
// signatures of the same form that each verifies from the other; a
// libsecp256k1 signature is always low-S.
enum class SignEngine { kDefault, kOpenssl };

// HasOwnEngine: true for the key types whose SignEngine::kDefault is not
// OpenSSL (secp256k1), for which the benches also measure kOpenssl.
bool HasOwnEngine(KeyType type);

// EddsaInstance: the RFC 8032 instance CK_EDDSA_PARAMS choose (PKCS#11 3.0
// section 2.3.14). `prehash` selects Ed25519ph / Ed448ph; a context,
// Ed25519ctx / Ed448 with that context (or the ph instance with it). An
// Ed25519 key with neither asks for Ed25519ctx with an empty context, which
// RFC 8032 section 5.1 does not define: CKR_MECHANISM_PARAM_INVALID. An Ed448
// key with neither is plain Ed448. A context longer than kMaxEddsaContext:
// CKR_MECHANISM_PARAM_INVALID.
struct EddsaInstance {
  bool prehash = false;
  Bytes context;
};
inline constexpr std::size_t kMaxEddsaContext = 255;

struct SignParams {
  SignScheme scheme = SignScheme::kRsaPkcs1;
  // Hash for the scheme. kNone with kRsaPkcs1 means "pad the input as given"
  // (PKCS#11 CKM_RSA_PKCS: the caller supplies the DigestInfo). Ignored for
  // EdDSA, which always signs the whole message.
  DigestAlg digest = DigestAlg::kSha256;
  // prehashed: the input is already the digest (PKCS#11 CKM_ECDSA,
  // CKM_RSA_PKCS_PSS); otherwise the message is hashed here.
  bool prehashed = false;
  EcdsaFormat ecdsa_format = EcdsaFormat::kDer;
  // PSS salt length in bytes; -1 means the digest length (PKCS#11's usual).
  int pss_salt_len = -1;
  // PSS MGF1 hash; kNone means the same as `digest`.
  DigestAlg pss_mgf1 = DigestAlg::kNone;
  // eddsa: the CK_EDDSA_PARAMS the caller gave (EddsaInstance); none for
  // plain Ed25519 / Ed448.
  std::optional<EddsaInstance> eddsa;
  // engine: who signs and verifies (SignEngine); only secp256k1 ECDSA has
  // a choice.
  SignEngine engine = SignEngine::kDefault;
};

// Sign returns the signature of `input` (message, or digest when prehashed).
// CKR_KEY_TYPE_INCONSISTENT when scheme and key disagree;
// CKR_DATA_LEN_RANGE when a digest has the wrong length or data is too long;
// CKR_MECHANISM_INVALID for MD5; CKR_MECHANISM_PARAM_INVALID for PSS without
// a hash or with a salt length below -2, or ECDSA over a message with kNone;
// CKR_KEY_SIZE_RANGE when the RSA key is too small for the PSS hash + salt.
// With ECDSA and digest kNone + prehashed, input of any length is signed as
// given (CKM_ECDSA). pss_salt_len -2 means "maximum" (OpenSSL's -2).
Result<Bytes> Sign(const PrivateKey& key, const SignParams& params, ByteView input);

// Verify checks `signature` over `input`; CKR_SIGNATURE_INVALID when it does
// not verify, CKR_SIGNATURE_LEN_RANGE when its length is impossible (RSA: not
// the modulus size; raw ECDSA: not 2 * field size; Ed25519: not 64; Ed448:
// not 114). The
// parameter errors are those of Sign.
Status Verify(const PublicKey& key, const SignParams& params, ByteView input, ByteView signature);

// EcdsaDerToRaw / EcdsaRawToDer convert between the two ECDSA forms;
// `field_bytes` is the curve's size in bytes (32 for P-256, 66 for P-521).
// EcdsaDerToRaw: CKR_SIGNATURE_INVALID for malformed DER or values wider
// than the field; EcdsaRawToDer: CKR_SIGNATURE_LEN_RANGE for an odd length.
Result<Bytes> EcdsaDerToRaw(ByteView der, std::size_t field_bytes);
Result<Bytes> EcdsaRawToDer(ByteView raw);

// EcFieldBytes returns the curve size in bytes for an EC key type.
std::size_t EcFieldBytes(KeyType type);

}  // namespace signet::crypto
