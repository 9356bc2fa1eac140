// Asymmetric keys: RSA (1024-4096 bits, e = 65537), ECDSA (P-256, P-384,
// P-521, secp256k1; secp192r1 for the benchmarks only), Ed25519 and Ed448, and the
// key-agreement-only X25519 and X448 (RFC 7748), as EVP_PKEY wrappers.
//
// A PrivateKey is immutable once built and may be used for signing from many
// threads at once (OpenSSL EVP_PKEY is safe for concurrent read-only use).
// Private key material leaves a PrivateKey only as SecureBytes (PKCS#8 DER)
// that keystore/ wraps at once; OpenSSL clears private bignums on free.
// secp256k1 keys also keep their scalar (private) and parsed point (public)
// in libsecp256k1's form, made once when the key object is built and wiped
// with it (secp256k1_ecdsa.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/secure_bytes.h"
#include "crypto/ossl_ptr.h"
#include "signet/result.hpp"

namespace signet::crypto {

// KeyType: new types are appended (the key pool stores KeySpecName, not the
// number, but the tables are indexed by it).
enum class KeyType {
  kRsa,
  kEcP256,
  kEcP384,
  kEcP521,
  kEcSecp256k1,
  kEd25519,
  kX25519,
  kX448,
  kEd448,
  // Diffie-Hellman in the RFC 7919 groups (PKCS#11 CKK_DH); crypto/dh.h.
  kDhFfdhe2048,
  kDhFfdhe3072,
  kDhFfdhe4096,
  kDhFfdhe6144,
  kDhFfdhe8192,
  // secp192r1 (prime192v1, P-192): 80-bit security. crypto/ generates, signs
  // and verifies with it so `bench speed` and `bench keygen` can show seed
  // 002's rows; signetd refuses it for every key (IsBenchOnly).
  kEcP192,
};

// KeySpec: what to generate. rsa_bits is read only for kRsa.
struct KeySpec {
  KeyType type = KeyType::kRsa;
  int rsa_bits = 2048;
};

// ParseKeySpec reads "rsa:2048", "ec:p256", "ec:p384", "ec:p521",
// "ec:secp256k1", "ec:secp192r1" (also "ec:p192"), "ed25519", "x25519", "x448", "ed448";
// CKR_ARGUMENTS_BAD otherwise, also for the DH groups, which only C_GenerateKeyPair makes (their
// CKA_PRIME and CKA_BASE name the group, not a spec).
Result<KeySpec> ParseKeySpec(std::string_view text);

// KeySpecName is the inverse of ParseKeySpec.
std::string KeySpecName(const KeySpec& spec);

// IsEc: true for the ECDSA curves (secp192r1 included).
bool IsEc(KeyType type);

// IsBenchOnly: true for the key types crypto/ offers to the benchmarks but
// signetd never holds (secp192r1: 80-bit security, NIST SP 800-57 part 1,
// table 2). core/ refuses them wherever a key enters the daemon
// (docs/PKCS11.md "Curves").
bool IsBenchOnly(KeyType type);

// IsEdwards: true for Ed25519 and Ed448 (PKCS#11 3.0 CKK_EC_EDWARDS), which
// sign with EdDSA (RFC 8032).
bool IsEdwards(KeyType type);

// IsMontgomery: true for X25519 and X448 (PKCS#11 3.0 CKK_EC_MONTGOMERY),
// which agree on keys and never sign.
bool IsMontgomery(KeyType type);

// IsDh: true for the RFC 7919 Diffie-Hellman groups (PKCS#11 CKK_DH),
// which agree on keys and never sign.
bool IsDh(KeyType type);

// EcParamsDer returns the DER-encoded OID of the curve (PKCS#11 CKA_EC_PARAMS)
// for an EC or Ed25519 key type; empty for RSA.
Bytes EcParamsDer(KeyType type);

// KeyTypeFromEcParams maps CKA_EC_PARAMS DER (OID, or for Ed25519, Ed448,
// X25519 and X448 also the printable string "edwards25519", "edwards448",
// "curve25519", "curve448" of PKCS#11 3.0) back to a KeyType;
// CKR_CURVE_NOT_SUPPORTED when unknown.
Result<KeyType> KeyTypeFromEcParams(ByteView der);

struct GenerateOptions {
  // Permits RSA keys of 512-1023 bits. Only benchmarks set this; token keys
  // are always refused below 1024 bits.
  bool allow_weak_rsa = false;
  // dh_private_bits: the length of a DH private value (PKCS#11
  // CKA_VALUE_BITS); 0 for the group's own (dh.h DhMinPrivateBits).
  std::size_t dh_private_bits = 0;
};

class PublicKey;
namespace internal {
class SignContextPool;
class Secp256k1Secret;
class Secp256k1Point;
}  // namespace internal

class PrivateKey {
 public:
  // Generate makes a fresh key from the DRBG (RSA with e = 65537, two
  // primes; secp256k1 through libsecp256k1). CKR_KEY_SIZE_RANGE for RSA sizes outside 1024-4096
  // (512-4096 with allow_weak_rsa); CKR_FUNCTION_FAILED if OpenSSL fails.
  static Result<PrivateKey> Generate(const KeySpec& spec, const GenerateOptions& options = {});

  // FromPkcs8Der parses the byte form produced by ToPkcs8Der (or any
  // unencrypted PKCS#8 key of a supported type). CKR_ATTRIBUTE_VALUE_INVALID
  // for bytes that are not exactly one PKCS#8 key; CKR_KEY_TYPE_INCONSISTENT,
  // CKR_CURVE_NOT_SUPPORTED or CKR_KEY_SIZE_RANGE (RSA outside 512-16384
  // bits) for keys signet does not handle; CKR_ATTRIBUTE_VALUE_INVALID too
  // for a secp256k1 scalar of 0 or not below the group order.
  static Result<PrivateKey> FromPkcs8Der(ByteView der);

  // FromEncoded reads a private key file's bytes: PEM or DER, PKCS#8 or
  // the traditional RSA / EC forms (what `openssl genpkey` and most tools
  // write). CKR_ATTRIBUTE_VALUE_INVALID for anything else, including
  // encrypted keys (decrypt them with `openssl pkey` first); the key type
  // errors of FromPkcs8Der.
  static Result<PrivateKey> FromEncoded(ByteView data);

  // RsaComponents: PKCS#11's eight RSA private key attributes (CKA_MODULUS,
  // CKA_PUBLIC_EXPONENT, CKA_PRIVATE_EXPONENT, CKA_PRIME_1, CKA_PRIME_2,
  // CKA_EXPONENT_1, CKA_EXPONENT_2, CKA_COEFFICIENT), big-endian.
  struct RsaComponents {
    ByteView modulus, public_exponent, private_exponent, prime_1, prime_2, exponent_1,
        exponent_2, coefficient;
  };
  // FromRsaComponents builds an RSA key and checks that its components
  // belong together. PKCS#11 requires only the modulus and the private
  // exponent (v2.40 §2.1.4); an empty view is an absent component. Without
  // the five CRT components they are recovered from n, e and d (the primes
  // by the factoring of HAC 8.2.2); without e, it is d^-1 mod lcm(p-1, q-1)
  // when the primes are given, else the first of 65537, 3, 5, 17, 257 that
  // fits n and d (OpenSSL's RSA cannot run without e). Errors:
  // CKR_TEMPLATE_INCOMPLETE for some but not all CRT components, or no e
  // given and none of those fits; CKR_ATTRIBUTE_VALUE_INVALID for an empty
  // n or d or inconsistent components; the type errors of FromPkcs8Der
  // otherwise.
  static Result<PrivateKey> FromRsaComponents(const RsaComponents& components);

  // FromEcPrivateValue builds an ECDSA, Ed25519, X25519 or X448 key from
  // CKA_EC_PARAMS and CKA_VALUE: the private scalar d, big-endian, for ECDSA
  // curves; the 32-byte private key of RFC 8032 for Ed25519; the 32- or
  // 56-byte scalar of RFC 7748 for X25519 and X448. CKR_CURVE_NOT_SUPPORTED for
  // unknown params, CKR_ATTRIBUTE_VALUE_INVALID for a value out of range.
  static Result<PrivateKey> FromEcPrivateValue(ByteView ec_params_der, ByteView value);

  // FromDhPrivateValue builds a DH key of the group `type` (dh.h) from x
  // (PKCS#11 CKA_VALUE, big-endian). CKR_KEY_TYPE_INCONSISTENT when `type`
  // is not a DH group; CKR_ATTRIBUTE_VALUE_INVALID unless 1 < x < q.
  static Result<PrivateKey> FromDhPrivateValue(KeyType type, ByteView x);

  // ToPkcs8Der serialises the private key (unencrypted PKCS#8
  // PrivateKeyInfo DER); the caller wraps it at once. OpenSSL's own
  // intermediate buffers are freed with OPENSSL_clear_free.
  Result<SecureBytes> ToPkcs8Der() const;

  // Public returns the matching public key. It holds no private material
  // (a fresh parse of the SubjectPublicKeyInfo), whatever its lifetime.
  Result<PublicKey> Public() const;

  KeySpec spec() const { return spec_; }
  // get0_pkey: borrowed pointer, valid while this PrivateKey lives.
  EVP_PKEY* get0_pkey() const { return pkey_.get(); }

  // sign_contexts: the key's pool of initialised signing contexts (see
  // sign_context_pool.h), shared by copies of this PrivateKey. For sign.cc.
  internal::SignContextPool& sign_contexts() const { return *contexts_; }

  // secp256k1: the cached scalar of a secp256k1 key, nullptr for every
  // other type; shared by copies of this PrivateKey. For sign.cc.
  const internal::Secp256k1Secret* secp256k1() const { return secp256k1_.get(); }

 private:
  PrivateKey(EvpPkeyPtr pkey, KeySpec spec,
             std::shared_ptr<const internal::Secp256k1Secret> secp256k1);
  // Adopt wraps a parsed or built key pair of `spec`, caching a secp256k1
  // key's scalar (the error of internal::Secp256k1SecretOf when refused).
  static Result<PrivateKey> Adopt(EvpPkeyPtr pkey, KeySpec spec);
  friend class PublicKey;
  std::shared_ptr<EVP_PKEY> pkey_;  // shared so PrivateKey is copyable cheaply
  std::shared_ptr<internal::SignContextPool> contexts_;
  std::shared_ptr<const internal::Secp256k1Secret> secp256k1_;
  KeySpec spec_;
};

class PublicKey {
 public:
  // FromDer / FromPem read a SubjectPublicKeyInfo. CKR_ATTRIBUTE_VALUE_INVALID
  // when it does not parse (or has trailing bytes); the type errors of
  // FromPkcs8Der for unsupported keys (e.g. Ed448 is
  // CKR_KEY_TYPE_INCONSISTENT).
  static Result<PublicKey> FromDer(ByteView spki_der);
  static Result<PublicKey> FromPem(std::string_view pem);
  // FromRsaComponents builds an RSA key from big-endian modulus and exponent
  // (PKCS#11 CKA_MODULUS / CKA_PUBLIC_EXPONENT). CKR_ATTRIBUTE_VALUE_INVALID
  // for an empty modulus or an even exponent.
  static Result<PublicKey> FromRsaComponents(ByteView modulus, ByteView exponent);
  // FromEcPoint builds an EC/Ed25519/X25519/X448 key from CKA_EC_PARAMS and
  // the raw point (uncompressed 04||X||Y, or the 32- or 56-byte RFC 8032 /
  // RFC 7748 public key); a DER OCTET STRING wrapper around the point is
  // accepted too, as are compressed EC points.
  // CKR_CURVE_NOT_SUPPORTED for unknown params; CKR_ATTRIBUTE_VALUE_INVALID
  // for a point of the wrong size or not on the curve.
  static Result<PublicKey> FromEcPoint(ByteView ec_params_der, ByteView point);
  // FromDhValue builds the DH public key y (big-endian, PKCS#11 CKA_VALUE)
  // in the group of `type` (dh.h). CKR_KEY_TYPE_INCONSISTENT when `type`
  // is not a DH group; CKR_ATTRIBUTE_VALUE_INVALID unless 1 < y < p - 1 and
  // y is in the group's prime-order subgroup.
  static Result<PublicKey> FromDhValue(KeyType type, ByteView y);

  Result<Bytes> ToDer() const;
  Result<std::string> ToPem() const;

  // RsaModulus / RsaPublicExponent: big-endian, no leading zeros. RSA only
  // (CKR_KEY_TYPE_INCONSISTENT otherwise).
  Result<Bytes> RsaModulus() const;
  Result<Bytes> RsaPublicExponent() const;
  // EcPoint: raw point (04||X||Y for ECDSA, the RFC 8032 / RFC 7748 public
  // key for Ed25519, X25519, X448). The
  // PKCS#11 CKA_EC_POINT is this wrapped in a DER OCTET STRING. Always
  // uncompressed. CKR_KEY_TYPE_INCONSISTENT for RSA keys.
  Result<Bytes> EcPoint() const;

  KeySpec spec() const { return spec_; }
  EVP_PKEY* get0_pkey() const { return pkey_.get(); }

  // secp256k1: the parsed point of a secp256k1 key, nullptr for every other
  // type. For sign.cc.
  const internal::Secp256k1Point* secp256k1() const { return secp256k1_.get(); }

 private:
  PublicKey(std::shared_ptr<EVP_PKEY> pkey, KeySpec spec) : pkey_(std::move(pkey)), spec_(spec) {}
  // Adopt takes ownership of `raw` (nullptr means the parse failed: the
  // error says `what`), checks that its type is one signet supports and
  // parses a secp256k1 point for libsecp256k1 (CKR_ATTRIBUTE_VALUE_INVALID
  // when it refuses the point).
  static Result<PublicKey> Adopt(EVP_PKEY* raw, std::string_view what);
  friend class PrivateKey;
  std::shared_ptr<EVP_PKEY> pkey_;
  std::shared_ptr<const internal::Secp256k1Point> secp256k1_;
  KeySpec spec_;
};

}  // namespace signet::crypto
