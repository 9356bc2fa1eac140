// PrivateKey from PKCS#11's private key attributes (§2.1.4 RSA, §2.3.4 EC,
// §2.3.6 Edwards): what C_CreateObject receives from pkcs11-tool, OpenSC,
// p11-kit and Java when they import a key.
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/param_build.h>

#include "crypto/key_types.h"
#include "crypto/keys.h"
#include "crypto/ossl_error.h"

namespace signet::crypto {
namespace {

using internal::OsslError;

// SecretBignum reads a big-endian PKCS#11 integer into a constant-time bignum
// that is cleared when freed.
Result<BignumPtr> SecretBignum(ByteView bytes, const char* name) {
  if (bytes.empty()) return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, std::string(name) + " is empty");
  BignumPtr bn(BN_secure_new());
  if (!bn || BN_bin2bn(bytes.data(), static_cast<int>(bytes.size()), bn.get()) == nullptr) {
    return OsslError(CKR_HOST_MEMORY, "bignum allocation failed");
  }
  BN_set_flags(bn.get(), BN_FLG_CONSTTIME);
  return bn;
}

// FromKeypairParams builds a key pair of `type` from `bld`, then checks
// that the private and public halves belong together.
Result<EvpPkeyPtr> FromKeypairParams(const char* type, OSSL_PARAM_BLD* bld, const char* what) {
  OsslParamPtr params(OSSL_PARAM_BLD_to_param(bld));
  EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  EVP_PKEY* raw = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) <= 0 ||
      EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_KEYPAIR, params.get()) <= 0) {
    return OsslError(CKR_ATTRIBUTE_VALUE_INVALID, what);
  }
  EvpPkeyPtr pkey(raw);
  EvpPkeyCtxPtr check(EVP_PKEY_CTX_new_from_pkey(nullptr, pkey.get(), nullptr));
  if (!check || EVP_PKEY_pairwise_check(check.get()) != 1) {
    return OsslError(CKR_ATTRIBUTE_VALUE_INVALID, std::string(what) + ": components do not match");
  }
  return pkey;
}

}  // namespace

Result<PrivateKey> PrivateKey::FromRsaComponents(const RsaComponents& c) {
  struct Part {
    ByteView bytes;
    const char* pkcs11_name;
    const char* param;
  };
  const Part parts[] = {
      {c.modulus, "CKA_MODULUS", OSSL_PKEY_PARAM_RSA_N},
      {c.public_exponent, "CKA_PUBLIC_EXPONENT", OSSL_PKEY_PARAM_RSA_E},
      {c.private_exponent, "CKA_PRIVATE_EXPONENT", OSSL_PKEY_PARAM_RSA_D},
      {c.prime_1, "CKA_PRIME_1", OSSL_PKEY_PARAM_RSA_FACTOR1},
      {c.prime_2, "CKA_PRIME_2", OSSL_PKEY_PARAM_RSA_FACTOR2},
      {c.exponent_1, "CKA_EXPONENT_1", OSSL_PKEY_PARAM_RSA_EXPONENT1},
      {c.exponent_2, "CKA_EXPONENT_2", OSSL_PKEY_PARAM_RSA_EXPONENT2},
      {c.coefficient, "CKA_COEFFICIENT", OSSL_PKEY_PARAM_RSA_COEFFICIENT1},
  };
  OsslParamBldPtr bld(OSSL_PARAM_BLD_new());
  if (!bld) return OsslError(CKR_HOST_MEMORY, "OSSL_PARAM_BLD failed");
  std::vector<BignumPtr> held;  // the builder points into these until it is done
  for (const Part& part : parts) {
    SIGNET_ASSIGN_OR_RETURN(BignumPtr bn, SecretBignum(part.bytes, part.pkcs11_name));
    if (!OSSL_PARAM_BLD_push_BN(bld.get(), part.param, bn.get())) {
      return OsslError(CKR_HOST_MEMORY, "OSSL_PARAM_BLD failed");
    }
    held.push_back(std::move(bn));
  }
  SIGNET_ASSIGN_OR_RETURN(EvpPkeyPtr pkey, FromKeypairParams("RSA", bld.get(), "bad RSA key"));
  SIGNET_ASSIGN_OR_RETURN(KeySpec spec, internal::SpecOfPkey(pkey.get()));
  return PrivateKey(std::move(pkey), spec);
}

Result<PrivateKey> PrivateKey::FromEcPrivateValue(ByteView ec_params_der, ByteView value) {
  SIGNET_ASSIGN_OR_RETURN(KeyType type, KeyTypeFromEcParams(ec_params_der));
  const internal::KeyTypeInfo& info = internal::InfoFor(type);
  if (type == KeyType::kEd25519) {
    if (value.size() != info.field_bytes) {
      return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "an Ed25519 CKA_VALUE is 32 bytes");
    }
    EvpPkeyPtr pkey(
        EVP_PKEY_new_raw_private_key_ex(nullptr, "ED25519", nullptr, value.data(), value.size()));
    if (!pkey) return OsslError(CKR_ATTRIBUTE_VALUE_INVALID, "bad Ed25519 private key");
    return PrivateKey(std::move(pkey), KeySpec{type, 0});
  }
  // OpenSSL 3.0 does not derive the public point from d: compute d*G here.
  SIGNET_ASSIGN_OR_RETURN(BignumPtr d, SecretBignum(value, "CKA_VALUE"));
  std::unique_ptr<EC_GROUP, Deleter<EC_GROUP_free>> group(EC_GROUP_new_by_curve_name(info.nid));
  std::unique_ptr<EC_POINT, Deleter<EC_POINT_free>> point(
      group ? EC_POINT_new(group.get()) : nullptr);
  if (!group || !point) return OsslError(CKR_HOST_MEMORY, "EC allocation failed");
  if (BN_is_zero(d.get()) || BN_cmp(d.get(), EC_GROUP_get0_order(group.get())) >= 0) {
    return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "EC private value out of range");
  }
  Bytes public_point(1 + 2 * info.field_bytes);
  if (EC_POINT_mul(group.get(), point.get(), d.get(), nullptr, nullptr, nullptr) != 1 ||
      EC_POINT_point2oct(group.get(), point.get(), POINT_CONVERSION_UNCOMPRESSED,
                         public_point.data(), public_point.size(),
                         nullptr) != public_point.size()) {
    return OsslError(CKR_FUNCTION_FAILED, "EC public point computation failed");
  }
  OsslParamBldPtr bld(OSSL_PARAM_BLD_new());
  if (!bld ||
      !OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, info.group_name, 0) ||
      !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_PRIV_KEY, d.get()) ||
      !OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, public_point.data(),
                                        public_point.size())) {
    return OsslError(CKR_HOST_MEMORY, "OSSL_PARAM_BLD failed");
  }
  SIGNET_ASSIGN_OR_RETURN(EvpPkeyPtr pkey, FromKeypairParams("EC", bld.get(), "bad EC key"));
  return PrivateKey(std::move(pkey), KeySpec{type, 0});
}

}  // namespace signet::crypto
