// PrivateKey from PKCS#11's private key attributes (§2.1.4 RSA, §2.3.4 EC,
// §2.3.6 Edwards): what C_CreateObject receives from pkcs11-tool, OpenSC,
// p11-kit and Java when they import a key.
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/param_build.h>

#include <algorithm>
#include <iterator>
#include <utility>

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

// KeypairFromParams builds a key pair of `type` from `bld`.
Result<EvpPkeyPtr> KeypairFromParams(const char* type, OSSL_PARAM_BLD* bld, const char* what) {
  OsslParamPtr params(OSSL_PARAM_BLD_to_param(bld));
  EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  EVP_PKEY* raw = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) <= 0 ||
      EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_KEYPAIR, params.get()) <= 0) {
    return OsslError(CKR_ATTRIBUTE_VALUE_INVALID, what);
  }
  return EvpPkeyPtr(raw);
}

// FromKeypairParams builds a key pair of `type` from `bld`, then checks
// that the private and public halves belong together.
Result<EvpPkeyPtr> FromKeypairParams(const char* type, OSSL_PARAM_BLD* bld, const char* what) {
  SIGNET_ASSIGN_OR_RETURN(EvpPkeyPtr pkey, KeypairFromParams(type, bld, what));
  EvpPkeyCtxPtr check(EVP_PKEY_CTX_new_from_pkey(nullptr, pkey.get(), nullptr));
  if (!check || EVP_PKEY_pairwise_check(check.get()) != 1) {
    return OsslError(CKR_ATTRIBUTE_VALUE_INVALID, std::string(what) + ": components do not match");
  }
  return pkey;
}

// PushEcKeypair adds an EC key pair's group, private scalar and public
// point to `bld`; false when OpenSSL runs out of memory.
bool PushEcKeypair(OSSL_PARAM_BLD* bld, const internal::KeyTypeInfo& info, const BIGNUM* d,
                   ByteView public_point) {
  return OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, info.group_name, 0) &&
         OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, d) &&
         OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, public_point.data(),
                                          public_point.size());
}

// RsaBignums: the eight numbers of an RSA private key, in secure memory.
struct RsaBignums {
  BignumPtr n, e, d, p, q, dp, dq, qinv;
};

// NewSecret returns a zero bignum in secure memory, cleared when freed.
Result<BignumPtr> NewSecret() {
  BignumPtr bn(BN_secure_new());
  if (!bn) return OsslError(CKR_HOST_MEMORY, "bignum allocation failed");
  BN_set_flags(bn.get(), BN_FLG_CONSTTIME);
  return bn;
}

// ExponentFromPrimes: e = d^-1 mod lcm(p - 1, q - 1), for a key given with
// its CRT components but without CKA_PUBLIC_EXPONENT.
Result<BignumPtr> ExponentFromPrimes(const RsaBignums& k, BN_CTX* ctx) {
  SIGNET_ASSIGN_OR_RETURN(BignumPtr p1, NewSecret());
  SIGNET_ASSIGN_OR_RETURN(BignumPtr q1, NewSecret());
  SIGNET_ASSIGN_OR_RETURN(BignumPtr gcd, NewSecret());
  SIGNET_ASSIGN_OR_RETURN(BignumPtr product, NewSecret());
  SIGNET_ASSIGN_OR_RETURN(BignumPtr lambda, NewSecret());
  BignumPtr e(BN_new());  // public
  if (!e) return OsslError(CKR_HOST_MEMORY, "bignum allocation failed");
  if (!BN_sub(p1.get(), k.p.get(), BN_value_one()) ||
      !BN_sub(q1.get(), k.q.get(), BN_value_one()) ||
      !BN_gcd(gcd.get(), p1.get(), q1.get(), ctx) ||
      !BN_mul(product.get(), p1.get(), q1.get(), ctx) ||
      !BN_div(lambda.get(), nullptr, product.get(), gcd.get(), ctx) ||
      BN_mod_inverse(e.get(), k.d.get(), lambda.get(), ctx) == nullptr) {
    return OsslError(CKR_ATTRIBUTE_VALUE_INVALID,
                     "bad RSA key: d has no inverse modulo lcm(p - 1, q - 1)");
  }
  return e;
}

// UsualPublicExponent finds e for a key given as n and d only: OpenSSL's
// RSA (its blinding included) needs e, so the public exponents in use are
// tried, each checked by (m^d)^e = m mod n for two values of m. Another e:
// CKR_TEMPLATE_INCOMPLETE (the caller must give CKA_PUBLIC_EXPONENT).
Result<BignumPtr> UsualPublicExponent(const RsaBignums& k, BN_CTX* ctx) {
  constexpr BN_ULONG kCandidates[] = {65537, 3, 5, 17, 257};
  constexpr BN_ULONG kProbes[] = {2, 3};
  SIGNET_ASSIGN_OR_RETURN(BignumPtr m, NewSecret());
  SIGNET_ASSIGN_OR_RETURN(BignumPtr signed_m, NewSecret());
  SIGNET_ASSIGN_OR_RETURN(BignumPtr back, NewSecret());
  BignumPtr e(BN_new());
  if (!e) return OsslError(CKR_HOST_MEMORY, "bignum allocation failed");
  for (BN_ULONG candidate : kCandidates) {
    bool fits = BN_set_word(e.get(), candidate) == 1;
    for (BN_ULONG probe : kProbes) {
      fits = fits && BN_set_word(m.get(), probe) == 1 &&
             BN_mod_exp(signed_m.get(), m.get(), k.d.get(), k.n.get(), ctx) == 1 &&
             BN_mod_exp(back.get(), signed_m.get(), e.get(), k.n.get(), ctx) == 1 &&
             BN_cmp(back.get(), m.get()) == 0;
    }
    if (fits) return e;
  }
  ERR_clear_error();
  return MakeError(CKR_TEMPLATE_INCOMPLETE,
                   "CKA_PUBLIC_EXPONENT is needed: it is none of 65537, 3, 5, 17, 257 "
                   "(or d does not belong to n)");
}

// FactorModulus sets k->p and k->q from n, e and d (Handbook of Applied
// Cryptography 8.2.2 (i); NIST SP 800-56B Rev. 2 Appendix C.2): with
// e*d - 1 = 2^t * r, r odd, a random g gives y = g^r; squaring y up to t
// times reaches 1, and the last value before 1, if not -1, is a square root
// of 1 other than +-1, so gcd(y - 1, n) is a prime factor. Each g succeeds
// with probability at least 1/2. CKR_ATTRIBUTE_VALUE_INVALID when no factor
// comes out (d does not belong to n and e).
Status FactorModulus(RsaBignums* k, BN_CTX* ctx) {
  const BIGNUM* n = k->n.get();
  SIGNET_ASSIGN_OR_RETURN(BignumPtr r, NewSecret());
  SIGNET_ASSIGN_OR_RETURN(BignumPtr n_minus_1, NewSecret());
  SIGNET_ASSIGN_OR_RETURN(BignumPtr range, NewSecret());
  SIGNET_ASSIGN_OR_RETURN(BignumPtr g, NewSecret());
  SIGNET_ASSIGN_OR_RETURN(BignumPtr y, NewSecret());
  SIGNET_ASSIGN_OR_RETURN(BignumPtr x, NewSecret());
  SIGNET_ASSIGN_OR_RETURN(BignumPtr p, NewSecret());
  SIGNET_ASSIGN_OR_RETURN(BignumPtr q, NewSecret());
  SIGNET_ASSIGN_OR_RETURN(BignumPtr rem, NewSecret());
  if (!BN_mul(r.get(), k->e.get(), k->d.get(), ctx) || !BN_sub_word(r.get(), 1) ||
      !BN_sub(n_minus_1.get(), n, BN_value_one()) || !BN_copy(range.get(), n) ||
      !BN_sub_word(range.get(), 3)) {
    return OsslError(CKR_HOST_MEMORY, "bignum arithmetic failed");
  }
  if (BN_is_zero(r.get()) || BN_is_odd(r.get()) || BN_is_negative(range.get()) ||
      BN_is_zero(range.get())) {
    return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "bad RSA key: e*d - 1 is not even");
  }
  int t = 0;
  while (!BN_is_odd(r.get())) {
    if (!BN_rshift1(r.get(), r.get())) return OsslError(CKR_HOST_MEMORY, "bignum shift failed");
    ++t;
  }
  constexpr int kAttempts = 64;  // failure odds at most 2^-64 for a real key
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    // g in [2, n - 2]
    if (BN_priv_rand_range_ex(g.get(), range.get(), 0, ctx) != 1 || !BN_add_word(g.get(), 2) ||
        BN_mod_exp(y.get(), g.get(), r.get(), n, ctx) != 1) {
      return OsslError(CKR_FUNCTION_FAILED, "RSA factor recovery failed");
    }
    if (BN_is_one(y.get()) || BN_cmp(y.get(), n_minus_1.get()) == 0) continue;
    for (int i = 0; i < t; ++i) {
      if (BN_mod_sqr(x.get(), y.get(), n, ctx) != 1) {
        return OsslError(CKR_FUNCTION_FAILED, "RSA factor recovery failed");
      }
      if (BN_is_one(x.get())) {
        // y is a square root of 1 other than +-1.
        if (!BN_sub_word(y.get(), 1) || !BN_gcd(p.get(), y.get(), n, ctx) ||
            !BN_div(q.get(), rem.get(), n, p.get(), ctx)) {
          return OsslError(CKR_FUNCTION_FAILED, "RSA factor recovery failed");
        }
        if (!BN_is_zero(rem.get()) || BN_is_one(p.get()) || BN_is_one(q.get())) break;
        k->p = std::move(p);
        k->q = std::move(q);
        return OkStatus();
      }
      if (BN_cmp(x.get(), n_minus_1.get()) == 0) break;  // this g tells nothing
      if (i + 1 == t) {
        // g^(e*d - 1) is not 1: e*d is not 1 modulo the group's order.
        return MakeError(CKR_ATTRIBUTE_VALUE_INVALID,
                         "bad RSA key: CKA_PRIVATE_EXPONENT does not invert the public exponent");
      }
      std::swap(x, y);
    }
  }
  return MakeError(CKR_ATTRIBUTE_VALUE_INVALID,
                   "bad RSA key: no factor of CKA_MODULUS follows from its exponents");
}

// CrtExponents sets dP = d mod (p - 1), dQ = d mod (q - 1), qInv = q^-1 mod p.
Status CrtExponents(RsaBignums* k, BN_CTX* ctx) {
  SIGNET_ASSIGN_OR_RETURN(BignumPtr p1, NewSecret());
  SIGNET_ASSIGN_OR_RETURN(BignumPtr q1, NewSecret());
  SIGNET_ASSIGN_OR_RETURN(k->dp, NewSecret());
  SIGNET_ASSIGN_OR_RETURN(k->dq, NewSecret());
  SIGNET_ASSIGN_OR_RETURN(k->qinv, NewSecret());
  if (!BN_sub(p1.get(), k->p.get(), BN_value_one()) ||
      !BN_sub(q1.get(), k->q.get(), BN_value_one()) ||
      !BN_mod(k->dp.get(), k->d.get(), p1.get(), ctx) ||
      !BN_mod(k->dq.get(), k->d.get(), q1.get(), ctx) ||
      BN_mod_inverse(k->qinv.get(), k->q.get(), k->p.get(), ctx) == nullptr) {
    return OsslError(CKR_ATTRIBUTE_VALUE_INVALID, "bad RSA key: CRT values failed");
  }
  return OkStatus();
}

}  // namespace

Result<PrivateKey> PrivateKey::FromRsaComponents(const RsaComponents& c) {
  const ByteView crt[] = {c.prime_1, c.prime_2, c.exponent_1, c.exponent_2, c.coefficient};
  const auto given = static_cast<std::size_t>(std::count_if(
      std::begin(crt), std::end(crt), [](ByteView part) { return !part.empty(); }));
  if (given != 0 && given != std::size(crt)) {
    return MakeError(CKR_TEMPLATE_INCOMPLETE,
                     "give all five RSA CRT components (CKA_PRIME_1, CKA_PRIME_2, "
                     "CKA_EXPONENT_1, CKA_EXPONENT_2, CKA_COEFFICIENT) or none");
  }
  BnCtxPtr ctx(BN_CTX_secure_new());
  if (!ctx) return OsslError(CKR_HOST_MEMORY, "BN_CTX allocation failed");
  RsaBignums k;
  SIGNET_ASSIGN_OR_RETURN(k.n, SecretBignum(c.modulus, "CKA_MODULUS"));
  SIGNET_ASSIGN_OR_RETURN(k.d, SecretBignum(c.private_exponent, "CKA_PRIVATE_EXPONENT"));
  if (!BN_is_odd(k.n.get()) || BN_cmp(k.d.get(), k.n.get()) >= 0) {
    return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "bad RSA key: n even or d not below n");
  }
  if (given != 0) {
    SIGNET_ASSIGN_OR_RETURN(k.p, SecretBignum(c.prime_1, "CKA_PRIME_1"));
    SIGNET_ASSIGN_OR_RETURN(k.q, SecretBignum(c.prime_2, "CKA_PRIME_2"));
    SIGNET_ASSIGN_OR_RETURN(k.dp, SecretBignum(c.exponent_1, "CKA_EXPONENT_1"));
    SIGNET_ASSIGN_OR_RETURN(k.dq, SecretBignum(c.exponent_2, "CKA_EXPONENT_2"));
    SIGNET_ASSIGN_OR_RETURN(k.qinv, SecretBignum(c.coefficient, "CKA_COEFFICIENT"));
    if (c.public_exponent.empty()) {
      SIGNET_ASSIGN_OR_RETURN(k.e, ExponentFromPrimes(k, ctx.get()));
    } else {
      SIGNET_ASSIGN_OR_RETURN(k.e, SecretBignum(c.public_exponent, "CKA_PUBLIC_EXPONENT"));
    }
  } else {
    if (c.public_exponent.empty()) {
      SIGNET_ASSIGN_OR_RETURN(k.e, UsualPublicExponent(k, ctx.get()));
    } else {
      SIGNET_ASSIGN_OR_RETURN(k.e, SecretBignum(c.public_exponent, "CKA_PUBLIC_EXPONENT"));
    }
    SIGNET_TRY(FactorModulus(&k, ctx.get()));
    SIGNET_TRY(CrtExponents(&k, ctx.get()));
  }
  const std::pair<const BIGNUM*, const char*> params[] = {
      {k.n.get(), OSSL_PKEY_PARAM_RSA_N},
      {k.e.get(), OSSL_PKEY_PARAM_RSA_E},
      {k.d.get(), OSSL_PKEY_PARAM_RSA_D},
      {k.p.get(), OSSL_PKEY_PARAM_RSA_FACTOR1},
      {k.q.get(), OSSL_PKEY_PARAM_RSA_FACTOR2},
      {k.dp.get(), OSSL_PKEY_PARAM_RSA_EXPONENT1},
      {k.dq.get(), OSSL_PKEY_PARAM_RSA_EXPONENT2},
      {k.qinv.get(), OSSL_PKEY_PARAM_RSA_COEFFICIENT1},
  };
  OsslParamBldPtr bld(OSSL_PARAM_BLD_new());
  if (!bld) return OsslError(CKR_HOST_MEMORY, "OSSL_PARAM_BLD failed");
  for (const auto& [bn, name] : params) {
    if (!OSSL_PARAM_BLD_push_BN(bld.get(), name, bn)) {
      return OsslError(CKR_HOST_MEMORY, "OSSL_PARAM_BLD failed");
    }
  }
  SIGNET_ASSIGN_OR_RETURN(EvpPkeyPtr pkey, FromKeypairParams("RSA", bld.get(), "bad RSA key"));
  SIGNET_ASSIGN_OR_RETURN(KeySpec spec, internal::SpecOfPkey(pkey.get()));
  return Adopt(std::move(pkey), spec);
}

Result<PrivateKey> PrivateKey::FromEcPrivateValue(ByteView ec_params_der, ByteView value) {
  SIGNET_ASSIGN_OR_RETURN(KeyType type, KeyTypeFromEcParams(ec_params_der));
  const internal::KeyTypeInfo& info = internal::InfoFor(type);
  if (internal::IsRawKey(type)) {
    if (value.size() != info.field_bytes) {
      return MakeError(CKR_ATTRIBUTE_VALUE_INVALID,
                       std::string("a ") + info.ossl_type + " CKA_VALUE is " +
                           std::to_string(info.field_bytes) + " bytes");
    }
    EvpPkeyPtr pkey(EVP_PKEY_new_raw_private_key_ex(nullptr, info.ossl_type, nullptr, value.data(),
                                                    value.size()));
    if (!pkey) return OsslError(CKR_ATTRIBUTE_VALUE_INVALID, "bad raw private key");
    return Adopt(std::move(pkey), KeySpec{type, 0});
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
  if (!bld || !PushEcKeypair(bld.get(), info, d.get(), public_point)) {
    return OsslError(CKR_HOST_MEMORY, "OSSL_PARAM_BLD failed");
  }
  SIGNET_ASSIGN_OR_RETURN(EvpPkeyPtr pkey, FromKeypairParams("EC", bld.get(), "bad EC key"));
  return Adopt(std::move(pkey), KeySpec{type, 0});
}

namespace internal {

Result<EvpPkeyPtr> EcKeypairFromParts(KeyType type, ByteView d, ByteView public_point) {
  SIGNET_ASSIGN_OR_RETURN(BignumPtr secret, SecretBignum(d, "EC private value"));
  OsslParamBldPtr bld(OSSL_PARAM_BLD_new());
  if (!bld || !PushEcKeypair(bld.get(), InfoFor(type), secret.get(), public_point)) {
    return OsslError(CKR_HOST_MEMORY, "OSSL_PARAM_BLD failed");
  }
  return KeypairFromParams("EC", bld.get(), "bad EC key");
}

}  // namespace internal

}  // namespace signet::crypto
