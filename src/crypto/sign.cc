// Sign and Verify. One path per key family: a message is hashed with the
// process-wide EVP_MD (FetchedDigest) and then treated exactly like a
// prehashed digest, which goes to EVP_PKEY_sign/EVP_PKEY_verify on a context
// made from the key itself (no algorithm lookup by name for the key).
// Ed25519 and Ed448 sign whole messages (PureEdDSA) through EVP_DigestSign;
// the other RFC 8032 instances leave for libdecaf (UsesLibdecaf).
// secp256k1 ECDSA leaves for libsecp256k1 at the same point, after the
// digest (UsesLibsecp256k1).
#include "crypto/sign.h"

#include <openssl/core_names.h>
#include <openssl/rsa.h>

#include "crypto/eddsa_instances.h"
#include "crypto/key_types.h"
#include "crypto/ossl_error.h"
#include "crypto/secp256k1_ecdsa.h"
#include "crypto/sign_context_pool.h"

namespace signet::crypto {
namespace {

using internal::OsslError;

// EdDsaSignatureBytes: RFC 8032's signature sizes (2 * 32, 2 * 57).
std::size_t EdDsaSignatureBytes(KeyType type) { return type == KeyType::kEd448 ? 114 : 64; }
// PKCS#1 v1.5 type-1 padding needs 11 bytes of the modulus (RFC 8017 9.2).
constexpr std::size_t kPkcs1Overhead = 11;

bool SchemeFitsKey(SignScheme scheme, KeyType type) {
  switch (scheme) {
    case SignScheme::kRsaPkcs1:
    case SignScheme::kRsaPss:
      return type == KeyType::kRsa;
    case SignScheme::kEcdsa:
      return IsEc(type);
    case SignScheme::kEddsa:
      return IsEdwards(type);
  }
  return false;
}

// UsesLibsecp256k1: ECDSA with a secp256k1 key, unless the caller asked
// for OpenSSL (SignEngine).
bool UsesLibsecp256k1(KeyType type, const SignParams& p) {
  return HasOwnEngine(type) && p.scheme == SignScheme::kEcdsa && p.engine == SignEngine::kDefault;
}

// UsesLibdecaf: an EdDSA instance other than PureEdDSA, which OpenSSL 3.0
// lacks (eddsa_instances.h).
bool UsesLibdecaf(const SignParams& p) {
  return p.eddsa && (p.eddsa->prehash || !p.eddsa->context.empty());
}

// ParamsKey packs everything NewKeyCtx configures into one pool key.
std::uint64_t ParamsKey(const SignParams& p) {
  auto byte = [](auto v) { return static_cast<std::uint64_t>(static_cast<std::uint8_t>(v)); };
  return byte(p.scheme) | byte(p.digest) << 8 | byte(p.pss_mgf1) << 16 |
         static_cast<std::uint64_t>(static_cast<std::uint32_t>(p.pss_salt_len)) << 32;
}

// CheckParams rejects scheme/key/digest combinations before any OpenSSL call.
Status CheckParams(KeyType type, const SignParams& p) {
  if (!SchemeFitsKey(p.scheme, type)) {
    return MakeError(CKR_KEY_TYPE_INCONSISTENT, "signature scheme does not fit the key type");
  }
  if (p.scheme == SignScheme::kEddsa) {
    if (!p.eddsa) return OkStatus();
    if (p.eddsa->context.size() > kMaxEddsaContext) {
      return MakeError(CKR_MECHANISM_PARAM_INVALID, "an EdDSA context is at most 255 bytes");
    }
    if (type == KeyType::kEd25519 && !p.eddsa->prehash && p.eddsa->context.empty()) {
      return MakeError(CKR_MECHANISM_PARAM_INVALID,
                       "Ed25519ctx needs a context (RFC 8032 section 5.1; docs/PKCS11.md "
                       "\"EdDSA\")");
    }
    return OkStatus();
  }
  if (p.digest == DigestAlg::kMd5)
    return MakeError(CKR_MECHANISM_INVALID, "MD5 signatures refused");
  if (p.scheme == SignScheme::kRsaPss) {
    if (p.digest == DigestAlg::kNone) {
      return MakeError(CKR_MECHANISM_PARAM_INVALID, "RSA-PSS needs a hash");
    }
    if (p.pss_salt_len < -2 || p.pss_mgf1 == DigestAlg::kMd5) {
      return MakeError(CKR_MECHANISM_PARAM_INVALID, "bad RSA-PSS salt length or MGF1 hash");
    }
  }
  if (p.scheme == SignScheme::kEcdsa && p.digest == DigestAlg::kNone && !p.prehashed) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "ECDSA over a message needs a hash");
  }
  return OkStatus();
}

// ToBeSigned returns the bytes the key operation sees: the digest of the
// message (kept in *storage), or the caller's digest after a length check.
// With kNone the input passes as is (CKM_RSA_PKCS DigestInfo, CKM_ECDSA).
Result<ByteView> ToBeSigned(const SignParams& p, ByteView input, Bytes* storage) {
  if (p.digest == DigestAlg::kNone) return input;
  if (!p.prehashed) {
    SIGNET_ASSIGN_OR_RETURN(*storage, Digest(p.digest, input));
    return ByteView(*storage);
  }
  if (input.size() != DigestSize(p.digest)) {
    return MakeError(CKR_DATA_LEN_RANGE,
                     "digest length does not match " + std::string(DigestName(p.digest)));
  }
  return input;
}

// RsaParams fills `out` (5 slots) with the padding, hash, salt and MGF1
// settings for an RSA context, so they are applied in one call.
void RsaParams(const SignParams& p, int* pad_mode, int* salt_len, OSSL_PARAM* out) {
  int n = 0;
  *pad_mode = p.scheme == SignScheme::kRsaPss ? RSA_PKCS1_PSS_PADDING : RSA_PKCS1_PADDING;
  out[n++] = OSSL_PARAM_construct_int(OSSL_SIGNATURE_PARAM_PAD_MODE, pad_mode);
  if (p.digest != DigestAlg::kNone) {
    out[n++] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST,
                                                const_cast<char*>(DigestName(p.digest).data()), 0);
  }
  if (p.scheme == SignScheme::kRsaPss) {
    *salt_len = p.pss_salt_len;
    DigestAlg mgf1 = p.pss_mgf1 == DigestAlg::kNone ? p.digest : p.pss_mgf1;
    out[n++] = OSSL_PARAM_construct_int(OSSL_SIGNATURE_PARAM_PSS_SALTLEN, salt_len);
    out[n++] = OSSL_PARAM_construct_utf8_string(OSSL_SIGNATURE_PARAM_MGF1_DIGEST,
                                                const_cast<char*>(DigestName(mgf1).data()), 0);
  }
  out[n] = OSSL_PARAM_construct_end();
}

// NewKeyCtx makes a sign or verify context for `pkey` configured for `p`.
Result<EvpPkeyCtxPtr> NewKeyCtx(EVP_PKEY* pkey, const SignParams& p, bool sign) {
  EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, pkey, nullptr));
  if (!ctx) return OsslError(CKR_HOST_MEMORY, "EVP_PKEY_CTX_new_from_pkey failed");
  int rc = sign ? EVP_PKEY_sign_init(ctx.get()) : EVP_PKEY_verify_init(ctx.get());
  if (rc <= 0) return OsslError(CKR_FUNCTION_FAILED, "signature context setup failed");
  if (p.scheme == SignScheme::kRsaPkcs1 || p.scheme == SignScheme::kRsaPss) {
    int pad_mode = 0;
    int salt_len = 0;
    OSSL_PARAM params[5];
    RsaParams(p, &pad_mode, &salt_len, params);
    if (EVP_PKEY_CTX_set_params(ctx.get(), params) <= 0) {
      return OsslError(CKR_MECHANISM_PARAM_INVALID, "RSA signature parameters refused");
    }
  }
  return ctx;
}

Result<Bytes> SignEddsa(EVP_PKEY* pkey, KeyType type, ByteView message) {
  EvpMdCtxPtr ctx(EVP_MD_CTX_new());
  Bytes sig(EdDsaSignatureBytes(type));
  std::size_t len = sig.size();
  if (!ctx ||
      EVP_DigestSignInit_ex(ctx.get(), nullptr, nullptr, nullptr, nullptr, pkey, nullptr) <= 0 ||
      EVP_DigestSign(ctx.get(), sig.data(), &len, message.data(), message.size()) <= 0) {
    return OsslError(CKR_FUNCTION_FAILED, "EdDSA signing failed");
  }
  return sig;
}

Status VerifyEddsa(EVP_PKEY* pkey, KeyType type, ByteView message, ByteView sig) {
  if (sig.size() != EdDsaSignatureBytes(type)) {
    return MakeError(CKR_SIGNATURE_LEN_RANGE, "EdDSA signatures are " +
                                                  std::to_string(EdDsaSignatureBytes(type)) +
                                                  " bytes with this key");
  }
  EvpMdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx ||
      EVP_DigestVerifyInit_ex(ctx.get(), nullptr, nullptr, nullptr, nullptr, pkey, nullptr) <= 0) {
    return OsslError(CKR_FUNCTION_FAILED, "EdDSA verify setup failed");
  }
  if (EVP_DigestVerify(ctx.get(), sig.data(), sig.size(), message.data(), message.size()) != 1) {
    return OsslError(CKR_SIGNATURE_INVALID, "EdDSA signature invalid");
  }
  return OkStatus();
}

// CheckRsaFits reports inputs the RSA padding cannot hold before OpenSSL
// does, so callers get a precise code rather than a generic failure.
Status CheckRsaFits(EVP_PKEY* pkey, const SignParams& p, ByteView tbs) {
  std::size_t modulus_bytes = static_cast<std::size_t>(EVP_PKEY_get_size(pkey));
  if (p.scheme == SignScheme::kRsaPkcs1 && p.digest == DigestAlg::kNone &&
      tbs.size() + kPkcs1Overhead > modulus_bytes) {
    return MakeError(CKR_DATA_LEN_RANGE, "input too long for PKCS#1 v1.5 padding");
  }
  if (p.scheme == SignScheme::kRsaPss) {
    // RFC 8017 9.1.1: emLen >= hLen + sLen + 2, emLen = ceil((modBits - 1) / 8).
    std::size_t em_len = (static_cast<std::size_t>(EVP_PKEY_get_bits(pkey)) - 1 + 7) / 8;
    std::size_t h_len = DigestSize(p.digest);
    std::size_t s_len = p.pss_salt_len >= 0 ? static_cast<std::size_t>(p.pss_salt_len) : h_len;
    if (p.pss_salt_len != -2 && em_len < h_len + s_len + 2) {
      return MakeError(CKR_KEY_SIZE_RANGE, "RSA key too small for this PSS hash and salt");
    }
  }
  return OkStatus();
}

}  // namespace

bool HasOwnEngine(KeyType type) { return type == KeyType::kEcSecp256k1; }

Result<Bytes> Sign(const PrivateKey& key, const SignParams& params, ByteView input) {
  EVP_PKEY* pkey = key.get0_pkey();
  SIGNET_TRY(CheckParams(key.spec().type, params));
  if (params.scheme == SignScheme::kEddsa) {
    if (UsesLibdecaf(params)) {
      return internal::DecafEddsaSign(pkey, key.spec().type, *params.eddsa, input);
    }
    return SignEddsa(pkey, key.spec().type, input);
  }
  Bytes digest;
  SIGNET_ASSIGN_OR_RETURN(ByteView tbs, ToBeSigned(params, input, &digest));
  if (UsesLibsecp256k1(key.spec().type, params)) {
    return internal::Secp256k1Sign(key.secp256k1(), tbs, params.ecdsa_format);
  }
  if (key.spec().type == KeyType::kRsa) SIGNET_TRY(CheckRsaFits(pkey, params, tbs));
  SIGNET_ASSIGN_OR_RETURN(internal::SignContextPool::Lease ctx,
                          key.sign_contexts().Acquire(ParamsKey(params), [&] {
                            return NewKeyCtx(pkey, params, /*sign=*/true);
                          }));
  // EVP_PKEY_get_size is the upper bound for RSA and for DER ECDSA.
  std::size_t len = static_cast<std::size_t>(EVP_PKEY_get_size(pkey));
  Bytes sig(len);
  if (EVP_PKEY_sign(ctx.get(), sig.data(), &len, tbs.data(), tbs.size()) <= 0) {
    ctx.Discard();
    return OsslError(CKR_FUNCTION_FAILED, "signing failed");
  }
  sig.resize(len);
  if (params.scheme == SignScheme::kEcdsa && params.ecdsa_format == EcdsaFormat::kRaw) {
    return EcdsaDerToRaw(sig, EcFieldBytes(key.spec().type));
  }
  return sig;
}

Status Verify(const PublicKey& key, const SignParams& params, ByteView input, ByteView signature) {
  EVP_PKEY* pkey = key.get0_pkey();
  KeyType type = key.spec().type;
  SIGNET_TRY(CheckParams(type, params));
  if (params.scheme == SignScheme::kEddsa) {
    if (UsesLibdecaf(params)) {
      return internal::DecafEddsaVerify(pkey, type, *params.eddsa, input, signature);
    }
    return VerifyEddsa(pkey, type, input, signature);
  }
  const bool raw_ecdsa =
      params.scheme == SignScheme::kEcdsa && params.ecdsa_format == EcdsaFormat::kRaw;
  if (raw_ecdsa) {
    if (signature.size() != 2 * EcFieldBytes(type)) {
      return MakeError(CKR_SIGNATURE_LEN_RANGE, "raw ECDSA signature has the wrong length");
    }
  } else if (signature.empty() ||
             signature.size() > static_cast<std::size_t>(EVP_PKEY_get_size(pkey)) ||
             (type == KeyType::kRsa &&
              signature.size() != static_cast<std::size_t>(EVP_PKEY_get_size(pkey)))) {
    return MakeError(CKR_SIGNATURE_LEN_RANGE, "signature length impossible for this key");
  }
  Bytes digest;
  SIGNET_ASSIGN_OR_RETURN(ByteView tbs, ToBeSigned(params, input, &digest));
  if (UsesLibsecp256k1(type, params)) {
    return internal::Secp256k1Verify(key.secp256k1(), tbs, signature, params.ecdsa_format);
  }
  Bytes der;
  if (raw_ecdsa) {
    SIGNET_ASSIGN_OR_RETURN(der, EcdsaRawToDer(signature));
    signature = der;
  }
  SIGNET_ASSIGN_OR_RETURN(EvpPkeyCtxPtr ctx, NewKeyCtx(pkey, params, /*sign=*/false));
  if (EVP_PKEY_verify(ctx.get(), signature.data(), signature.size(), tbs.data(), tbs.size()) != 1) {
    return OsslError(CKR_SIGNATURE_INVALID, "signature invalid");
  }
  return OkStatus();
}

}  // namespace signet::crypto
