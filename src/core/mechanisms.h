// Binds the mechanism table (base/mechanism_table.h, every mechanism's
// facts) to core/ and crypto/: the lookup core's checks use, and for each
// mechanism family the crypto/ parameters it runs with. A new family is
// bound here and nowhere else in core/.
// Pure functions over static data: safe from any thread.
#pragma once

#include <memory>
#include <optional>

#include "base/mechanism_table.h"
#include "base/secure_bytes.h"
#include "crypto/keys.h"
#include "crypto/mac.h"
#include "crypto/multi_part.h"
#include "crypto/sign.h"
#include "signet/result.hpp"
#include "signet/types.hpp"

namespace signet::core {

// MechanismFor returns the row of mechanism `type` when it can do one of
// `needed` (CKF_SIGN, CKF_GENERATE_KEY_PAIR, ...). CKR_MECHANISM_INVALID
// when signet does not offer it (also a single-DES row without the legacy
// provider) or it does not do that operation.
Result<const MechanismRow*> MechanismFor(CK_MECHANISM_TYPE type, CK_FLAGS needed);

// Offered: this process offers the row: every row but single DES, which
// needs OpenSSL's legacy provider loaded (crypto/legacy_provider.h).
// C_GetMechanismList lists only these.
bool Offered(const MechanismRow& row);

// SignParamsFor maps a signature mechanism (and its PSS parameters) to
// crypto/'s parameters. ECDSA signatures use PKCS#11's raw r||s form.
// CKM_ECDSA signs its input as given, of any length: OpenSSL keeps its
// leftmost bits up to the order's length (FIPS 186-4 section 6.4).
// CKR_MECHANISM_PARAM_INVALID for PSS parameters that do not fit the row;
// CKR_MECHANISM_INVALID for a row that is not a signature.
Result<crypto::SignParams> SignParamsFor(const MechanismRow& row, const Mechanism& m);

// SignsRaw: the signature mechanism is raw RSA (CKM_RSA_X_509: no hash, no
// padding), which SignRawWith / VerifyRawWith run instead of crypto::Sign
// and crypto::Verify (crypto/rsa_encrypt.h RsaRawSign, RsaRawVerify: the
// input left-padded with zeros to the modulus length, as SoftHSMv2 does).
bool SignsRaw(const MechanismRow& row);
Result<Bytes> SignRawWith(const MechanismRow& row, const crypto::PrivateKey& key, ByteView input);
Status VerifyRawWith(const MechanismRow& row, const crypto::PublicKey& key, ByteView input,
                     ByteView signature);

// CheckCipherParams checks an encryption mechanism's parameter before any
// key is looked up: CKR_MECHANISM_PARAM_INVALID when it is missing or out
// of range (CKM_AES_GCM: 96-128-bit tag, 1-256-byte IV; AES-CBC: a 16-byte
// IV; CKM_AES_CTR: a 16-byte counter block and 1-128 counter bits;
// CKM_RSA_PKCS_OAEP: a SHA hash, an MGF1 of one, and CKZ_DATA_SPECIFIED or
// no label).
Status CheckCipherParams(const MechanismRow& row, const Mechanism& m);

// EncryptWith / DecryptWith run a cipher mechanism whose parameter
// CheckCipherParams accepted, under `key` (the secret key's value).
// DecryptWith: CKR_ENCRYPTED_DATA_INVALID when the data does not
// authenticate.
Result<Bytes> EncryptWith(const MechanismRow& row, const Mechanism& m, ByteView key, ByteView data);
Result<SecureBytes> DecryptWith(const MechanismRow& row, const Mechanism& m, ByteView key,
                                ByteView data);

// StartMultiPart begins a multi-part operation of a row that
// MultiPartInDaemon accepts: a cipher (whose parameter CheckCipherParams
// accepted) under `key`, the secret key's value, encrypting or decrypting;
// a MAC under `key` (full length: the caller truncates to MacLengthFor); a
// digest (no key).
Result<std::unique_ptr<crypto::MultiPart>> StartMultiPart(const MechanismRow& row,
                                                          const Mechanism& m, ByteView key,
                                                          bool encrypt);

// UsesKeyPair: the mechanism encrypts or wraps with a public key and
// decrypts or unwraps with the private key (the RSA families: CKM_RSA_PKCS,
// CKM_RSA_X_509, CKM_RSA_PKCS_OAEP, CKM_RSA_AES_KEY_WRAP); EncryptWithPublic / DecryptWithPrivate
// and WrapWithPublic / UnwrapWithPrivate run it. The other ciphers and
// wrapping mechanisms take a secret key's value (EncryptWith, WrapWith ...).
bool UsesKeyPair(const MechanismRow& row);

// EncryptWithPublic / DecryptWithPrivate run an RSA cipher mechanism whose
// parameter CheckCipherParams accepted (crypto/rsa_encrypt.h: length
// errors, and CKR_ENCRYPTED_DATA_INVALID alike for every padding failure).
Result<Bytes> EncryptWithPublic(const MechanismRow& row, const Mechanism& m,
                                const crypto::PublicKey& key, ByteView data);
Result<SecureBytes> DecryptWithPrivate(const MechanismRow& row, const Mechanism& m,
                                       const crypto::PrivateKey& key, ByteView data);

// MacLengthFor returns the length of the MAC a MAC mechanism (IsMac)
// produces: the full length for the plain forms, CK_MAC_GENERAL_PARAMS'
// length for the *_GENERAL ones. CKR_MECHANISM_PARAM_INVALID for a
// *_GENERAL length outside 1..full or missing, and for a parameter given to
// a plain form; CKR_MECHANISM_INVALID for a row that is not a MAC.
Result<std::size_t> MacLengthFor(const MechanismRow& row, const Mechanism& m);

// StartMac starts a MAC computation of a MAC row under `key` (the secret
// key's value), for a caller that feeds the data in pieces; it produces the
// full-length MAC, which the caller truncates to MacLengthFor.
// CKR_KEY_SIZE_RANGE for a key outside the row's sizes.
Result<crypto::MacStream> StartMac(const MechanismRow& row, ByteView key);

// MacWith computes the MAC of `data` (one shot), MacLengthFor bytes long.
Result<Bytes> MacWith(const MechanismRow& row, const Mechanism& m, ByteView key, ByteView data);

// VerifyMacWith checks `mac` against the MAC of `data`:
// CKR_SIGNATURE_LEN_RANGE when its length is not MacLengthFor,
// CKR_SIGNATURE_INVALID when it differs (compared in constant time).
Status VerifyMacWith(const MechanismRow& row, const Mechanism& m, ByteView key, ByteView data,
                     ByteView mac);

// WrapWith / UnwrapWith run a key-wrapping mechanism (with its parameter,
// an IV for the block modes) under `kek`. The ECB and CBC modes (triple
// DES) wrap the value padded with zero bytes to whole blocks and unwrap by
// cutting it to `key_length`, the length the template names (PKCS#11's
// rule for these wraps: CKA_VALUE_LEN, or the key type's own length),
// or leave it whole when that is 0; a `key_length` longer than the
// unwrapped value is CKR_TEMPLATE_INCONSISTENT. UnwrapWith:
// CKR_WRAPPED_KEY_INVALID when the data does not unwrap,
// CKR_WRAPPED_KEY_LEN_RANGE when its length cannot be a wrapped key.
Result<Bytes> WrapWith(const MechanismRow& row, const Mechanism& m, ByteView kek,
                       ByteView key_value);
Result<SecureBytes> UnwrapWith(const MechanismRow& row, const Mechanism& m, ByteView kek,
                               ByteView wrapped, std::size_t key_length = 0);

// WrapsPrivateKeys: the wrapping mechanism wraps private keys (their
// PKCS#8 PrivateKeyInfo) as well as secret keys. Not so for CKM_RSA_PKCS and
// CKM_RSA_PKCS_OAEP, whose one RSA block is too short for a PKCS#8 key, nor
// for CKM_DES3_ECB and CKM_DES3_CBC, whose zero padding only a key length
// in the template removes (CKR_KEY_NOT_WRAPPABLE; they unwrap secret keys
// only).
bool WrapsPrivateKeys(const MechanismRow& row);

// WrapWithPublic / UnwrapWithPrivate run a wrapping mechanism of a key pair
// (UsesKeyPair): wrap a key's value under the public key, unwrap with the
// private key. CKM_RSA_PKCS and CKM_RSA_PKCS_OAEP are RSA encryption of the
// value (CKR_KEY_SIZE_RANGE when the value is too long for one block);
// CKM_RSA_AES_KEY_WRAP is crypto/rsa_aes_wrap.h with its
// CK_RSA_AES_KEY_WRAP_PARAMS (CKR_MECHANISM_PARAM_INVALID when missing, an
// AES key size other than 128, 192 or 256 bits, or OAEP parameters that
// CheckCipherParams would refuse). UnwrapWithPrivate:
// CKR_WRAPPED_KEY_LEN_RANGE when `wrapped` cannot have the mechanism's
// length, else CKR_WRAPPED_KEY_INVALID with one fixed message for every
// padding or integrity failure (crypto/rsa_encrypt.h).
Result<Bytes> WrapWithPublic(const MechanismRow& row, const Mechanism& m,
                             const crypto::PublicKey& key, ByteView key_value);
Result<SecureBytes> UnwrapWithPrivate(const MechanismRow& row, const Mechanism& m,
                                      const crypto::PrivateKey& key, ByteView wrapped);

// DeriveWith runs a key-agreement mechanism (the ECDH families, DH) with the
// base private key `base` and returns the new key's value: `length` bytes,
// or with `length` 0 the shared secret's own length. The mechanism's
// CK_ECDH1_DERIVE_PARAMS name the KDF and the other party's public value
// (the raw EC point or a DER OCTET STRING around it; PKCS#11 v2.40 section
// 2.3.18 says raw, pkcs11-tool and others send either). With CKD_NULL a
// shorter key keeps the secret's trailing bytes, as SoftHSMv2 does, and a
// longer one is CKR_TEMPLATE_INCONSISTENT (docs/PKCS11.md "Derived keys").
// CKR_MECHANISM_PARAM_INVALID: no parameter, a KDF signet does not run,
// shared data with CKD_NULL, a public value that is not a point of the
// base key's curve. CKM_DH_PKCS_DERIVE's parameter is the other party's y
// (crypto/dh.h: CKR_MECHANISM_PARAM_INVALID unless 1 < y < p - 1 and in the
// group); its Z has the prime's length and is cut as CKD_NULL's is.
Result<SecureBytes> DeriveWith(const MechanismRow& row, const Mechanism& m,
                               const crypto::PrivateKey& base, std::size_t length);

// SecondKeyOf returns the handle of the key a derivation mechanism reads
// besides its base key: CKM_CONCATENATE_BASE_AND_KEY's other key,
// CKM_HKDF_DERIVE's salt key (CKF_HKDF_SALT_KEY, when the extract step
// runs); nullopt when it reads none.
std::optional<CK_OBJECT_HANDLE> SecondKeyOf(const MechanismRow& row, const Mechanism& m);

// DeriveFromSecret runs a derivation whose base key is a secret key (not
// DerivesFromPrivateKey) over `base`, its value, and `second`, the value of
// the key SecondKeyOf names (empty when none). `length` is the new key's
// length from its template (0: not given). CKM_HKDF_DERIVE (PKCS#11 3.0
// section 2.43, docs/PKCS11.md "Derived keys"): extract alone makes the
// hash's length (another `length` is CKR_TEMPLATE_INCONSISTENT); expand
// needs `length` (CKR_TEMPLATE_INCOMPLETE) of at most 255 hash lengths
// (CKR_TEMPLATE_INCONSISTENT);
// expand alone needs a base key at least the hash's length
// (CKR_KEY_SIZE_RANGE). CKR_MECHANISM_PARAM_INVALID: no CK_HKDF_PARAMS,
// neither step, a PRF hash other than SHA-1/224/256/384/512, an unknown salt
// type, salt bytes with CKF_HKDF_SALT_NULL or none with _DATA.
// Concatenation, XOR and encrypt-data (v2.40 section 2.38; AES / DES3
// ECB_ENCRYPT_DATA and CBC_ENCRYPT_DATA: the data, whole blocks, encrypted
// without padding): a shorter `length` keeps the leading bytes, a longer
// one is CKR_TEMPLATE_INCONSISTENT; no data or a wrong IV
// CKR_MECHANISM_PARAM_INVALID. `from_sensitive` (a sensitive key is among
// the inputs) adds signet's rules for concatenation and XOR
// (docs/PKCS11.md "Derived keys"): the result is never shortened
// (CKR_TEMPLATE_INCONSISTENT) and never the base key again (no data, XOR
// data shorter than the key, all zero, or only DES parity bits for a
// triple-DES `new_type`: CKR_MECHANISM_PARAM_INVALID).
Result<SecureBytes> DeriveFromSecret(const MechanismRow& row, const Mechanism& m, ByteView base,
                                     ByteView second, std::size_t length, CK_KEY_TYPE new_type,
                                     bool from_sensitive);

}  // namespace signet::core
