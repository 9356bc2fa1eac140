// PrivateKey: generation, PKCS#8 serialisation, and the key-type probe shared
// with public_key.cc.
#include "crypto/keys.h"

#include <openssl/core_names.h>
#include <openssl/decoder.h>
#include <openssl/encoder.h>
#include <openssl/objects.h>

#include "crypto/dh.h"
#include "crypto/key_types.h"
#include "crypto/ossl_error.h"
#include "crypto/secp256k1_ecdsa.h"
#include "crypto/sign_context_pool.h"

namespace signet::crypto {
namespace {

using internal::OsslError;

constexpr int kMinRsaBits = 1024;
constexpr int kMinWeakRsaBits = 512;
constexpr int kMaxRsaBits = 4096;
constexpr unsigned int kRsaPublicExponent = 65537;

// KeygenParams fills `params` (4 slots) with what EVP_PKEY_generate needs
// for `spec`; the strings it points at are static. `priv_len`: a DH private
// value's length in bits, 0 for the group's own.
void KeygenParams(const KeySpec& spec, std::size_t* bits, unsigned int* e, int* priv_len,
                  OSSL_PARAM* params) {
  const auto& info = internal::InfoFor(spec.type);
  int n = 0;
  if (IsDh(spec.type) && *priv_len != 0) {
    params[n++] = OSSL_PARAM_construct_int(OSSL_PKEY_PARAM_DH_PRIV_LEN, priv_len);
  }
  if (spec.type == KeyType::kRsa) {
    *bits = static_cast<std::size_t>(spec.rsa_bits);
    params[n++] = OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, bits);
    params[n++] = OSSL_PARAM_construct_uint(OSSL_PKEY_PARAM_RSA_E, e);
  } else if (info.group_name != nullptr) {
    params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME,
                                                   const_cast<char*>(info.group_name), 0);
  }
  params[n] = OSSL_PARAM_construct_end();
}

Status CheckRsaBits(const KeySpec& spec, const GenerateOptions& options) {
  if (spec.type != KeyType::kRsa) return OkStatus();
  int min_bits = options.allow_weak_rsa ? kMinWeakRsaBits : kMinRsaBits;
  if (spec.rsa_bits < min_bits || spec.rsa_bits > kMaxRsaBits) {
    return MakeError(CKR_KEY_SIZE_RANGE, "RSA key size " + std::to_string(spec.rsa_bits) +
                                             " outside " + std::to_string(min_bits) + "-" +
                                             std::to_string(kMaxRsaBits) + " bits");
  }
  return OkStatus();
}

// CheckDhBits: a DH private value between RFC 7919's length for the group
// and the prime's.
Status CheckDhBits(const KeySpec& spec, const GenerateOptions& options) {
  if (!IsDh(spec.type) || options.dh_private_bits == 0) return OkStatus();
  const std::size_t min_bits = DhMinPrivateBits(spec.type);
  const std::size_t max_bits = internal::InfoFor(spec.type).field_bytes * 8 - 1;
  if (options.dh_private_bits < min_bits || options.dh_private_bits > max_bits) {
    return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "CKA_VALUE_BITS " +
                                                      std::to_string(options.dh_private_bits) +
                                                      " outside " + std::to_string(min_bits) + "-" +
                                                      std::to_string(max_bits) + " for this group");
  }
  return OkStatus();
}

}  // namespace

namespace internal {

Result<KeySpec> SpecOfPkey(const EVP_PKEY* pkey) {
  if (EVP_PKEY_is_a(pkey, "RSA")) {
    int bits = EVP_PKEY_get_bits(pkey);
    if (bits < kMinWeakRsaBits || bits > 16384) {
      return MakeError(CKR_KEY_SIZE_RANGE, "RSA key of " + std::to_string(bits) + " bits");
    }
    return KeySpec{KeyType::kRsa, bits};
  }
  for (const KeyTypeInfo& info : AllKeyTypes()) {
    if (IsRawKey(info.type) && EVP_PKEY_is_a(pkey, info.ossl_type)) return KeySpec{info.type, 0};
  }
  if (EVP_PKEY_is_a(pkey, "DH")) {
    // OpenSSL names a DH key's group when its prime and base are an RFC
    // 7919 group's (it compares the values).
    char group[64] = {};
    std::size_t len = 0;
    if (EVP_PKEY_get_group_name(pkey, group, sizeof(group), &len)) {
      for (const KeyTypeInfo& info : AllKeyTypes()) {
        if (IsDh(info.type) && std::string_view(group) == info.group_name) {
          return KeySpec{info.type, 0};
        }
      }
    }
    return MakeError(CKR_ATTRIBUTE_VALUE_INVALID,
                     "DH keys are in the RFC 7919 groups ffdhe2048 to ffdhe8192 only");
  }
  if (!EVP_PKEY_is_a(pkey, "EC")) {
    return MakeError(CKR_KEY_TYPE_INCONSISTENT, "unsupported key type");
  }
  char group[64] = {};
  std::size_t len = 0;
  if (!EVP_PKEY_get_group_name(pkey, group, sizeof(group), &len)) {
    return OsslError(CKR_CURVE_NOT_SUPPORTED, "EC key without a named curve");
  }
  int nid = OBJ_txt2nid(group);
  if (nid == NID_undef) nid = EC_curve_nist2nid(group);
  const KeyTypeInfo* info = InfoForCurveNid(nid);
  if (info == nullptr) {
    return MakeError(CKR_CURVE_NOT_SUPPORTED, "unsupported curve " + std::string(group));
  }
  return KeySpec{info->type, 0};
}

}  // namespace internal

PrivateKey::PrivateKey(EvpPkeyPtr pkey, KeySpec spec,
                       std::shared_ptr<const internal::Secp256k1Secret> secp256k1)
    : pkey_(std::move(pkey)),
      contexts_(std::make_shared<internal::SignContextPool>()),
      secp256k1_(std::move(secp256k1)),
      spec_(spec) {}

Result<PrivateKey> PrivateKey::Adopt(EvpPkeyPtr pkey, KeySpec spec) {
  std::shared_ptr<const internal::Secp256k1Secret> secp256k1;
  if (spec.type == KeyType::kEcSecp256k1) {
    SIGNET_ASSIGN_OR_RETURN(secp256k1, internal::Secp256k1SecretOf(pkey.get()));
  }
  return PrivateKey(std::move(pkey), spec, std::move(secp256k1));
}

Result<PrivateKey> PrivateKey::Generate(const KeySpec& spec, const GenerateOptions& options) {
  SIGNET_TRY(CheckRsaBits(spec, options));
  SIGNET_TRY(CheckDhBits(spec, options));
  if (spec.type == KeyType::kEcSecp256k1) {
    SIGNET_ASSIGN_OR_RETURN(internal::Secp256k1KeyPair pair, internal::Secp256k1Generate());
    return PrivateKey(std::move(pair.pkey), KeySpec{spec.type, 0}, std::move(pair.secret));
  }
  const auto& info = internal::InfoFor(spec.type);
  EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, info.ossl_type, nullptr));
  if (!ctx || EVP_PKEY_keygen_init(ctx.get()) <= 0) {
    return OsslError(CKR_FUNCTION_FAILED, "key generation setup failed");
  }
  std::size_t bits = 0;
  unsigned int e = kRsaPublicExponent;
  int priv_len = static_cast<int>(options.dh_private_bits);
  OSSL_PARAM params[4];
  KeygenParams(spec, &bits, &e, &priv_len, params);
  EVP_PKEY* raw = nullptr;
  if (EVP_PKEY_CTX_set_params(ctx.get(), params) <= 0 || EVP_PKEY_generate(ctx.get(), &raw) <= 0) {
    return OsslError(CKR_FUNCTION_FAILED, "key generation failed for " + KeySpecName(spec));
  }
  KeySpec out = spec;
  if (spec.type != KeyType::kRsa) out.rsa_bits = 0;
  return Adopt(EvpPkeyPtr(raw), out);
}

Result<PrivateKey> PrivateKey::FromPkcs8Der(ByteView der) {
  EVP_PKEY* raw = nullptr;
  OSSL_DECODER_CTX* dctx = OSSL_DECODER_CTX_new_for_pkey(&raw, "DER", "PrivateKeyInfo", nullptr,
                                                         EVP_PKEY_KEYPAIR, nullptr, nullptr);
  OsslDecoderCtxPtr guard(dctx);
  const unsigned char* data = der.data();
  std::size_t left = der.size();
  if (dctx == nullptr || !OSSL_DECODER_from_data(dctx, &data, &left) || raw == nullptr) {
    return OsslError(CKR_ATTRIBUTE_VALUE_INVALID, "not a PKCS#8 private key");
  }
  EvpPkeyPtr pkey(raw);
  if (left != 0) return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "trailing bytes after PKCS#8 key");
  SIGNET_ASSIGN_OR_RETURN(KeySpec spec, internal::SpecOfPkey(pkey.get()));
  return Adopt(std::move(pkey), spec);
}

Result<PrivateKey> PrivateKey::FromEncoded(ByteView data) {
  EVP_PKEY* raw = nullptr;
  // No input type or structure: the decoder tries PEM and DER, PKCS#8 and
  // the type-specific forms. No passphrase callback: encrypted keys fail.
  OSSL_DECODER_CTX* dctx = OSSL_DECODER_CTX_new_for_pkey(&raw, nullptr, nullptr, nullptr,
                                                         EVP_PKEY_KEYPAIR, nullptr, nullptr);
  OsslDecoderCtxPtr guard(dctx);
  const unsigned char* cursor = data.data();
  std::size_t left = data.size();
  if (dctx == nullptr || !OSSL_DECODER_from_data(dctx, &cursor, &left) || raw == nullptr) {
    return OsslError(CKR_ATTRIBUTE_VALUE_INVALID,
                     "not an unencrypted private key in PEM or DER");
  }
  EvpPkeyPtr pkey(raw);
  SIGNET_ASSIGN_OR_RETURN(KeySpec spec, internal::SpecOfPkey(pkey.get()));
  return Adopt(std::move(pkey), spec);
}

// ToPkcs8Der encodes twice (size, then into our buffer) so the only copy of
// the key bytes that outlives this call is the zeroising SecureBytes;
// OpenSSL's intermediate memory BIO is freed with OPENSSL_clear_free.
Result<SecureBytes> PrivateKey::ToPkcs8Der() const {
  OsslEncoderCtxPtr ctx(OSSL_ENCODER_CTX_new_for_pkey(pkey_.get(), EVP_PKEY_KEYPAIR, "DER",
                                                      "PrivateKeyInfo", nullptr));
  std::size_t len = 0;
  if (!ctx || OSSL_ENCODER_CTX_get_num_encoders(ctx.get()) == 0 ||
      !OSSL_ENCODER_to_data(ctx.get(), nullptr, &len)) {
    return OsslError(CKR_FUNCTION_FAILED, "PKCS#8 encoding failed");
  }
  SecureBytes out(len);
  unsigned char* cursor = out.data();
  std::size_t room = out.size();
  if (!OSSL_ENCODER_to_data(ctx.get(), &cursor, &room) || room != 0) {
    return OsslError(CKR_FUNCTION_FAILED, "PKCS#8 encoding failed");
  }
  return out;
}

// Public re-reads the SubjectPublicKeyInfo so the PublicKey holds no private
// material, whatever its lifetime.
Result<PublicKey> PrivateKey::Public() const {
  unsigned char* der = nullptr;
  int len = i2d_PUBKEY(pkey_.get(), &der);
  if (len <= 0) return OsslError(CKR_FUNCTION_FAILED, "public key encoding failed");
  OsslBytesPtr hold(der);
  return PublicKey::FromDer(ByteView(der, static_cast<std::size_t>(len)));
}

}  // namespace signet::crypto
