#include <gtest/gtest.h>
#include <openssl/core_names.h>

#include "base/hex.h"
#include "crypto/keys.h"
#include "crypto/sign.h"

namespace signet::crypto {
namespace {

Bytes Param(const EVP_PKEY* key, const char* name) {
  BIGNUM* bn = nullptr;
  EXPECT_EQ(EVP_PKEY_get_bn_param(key, name, &bn), 1) << name;
  Bytes out(static_cast<std::size_t>(BN_num_bytes(bn)));
  BN_bn2bin(bn, out.data());
  BN_clear_free(bn);
  return out;
}
Bytes Param(const PrivateKey& key, const char* name) { return Param(key.get0_pkey(), name); }

TEST(PrivateKeyImport, RsaComponentsRebuildTheSameKey) {
  auto original = PrivateKey::Generate({KeyType::kRsa, 2048});
  ASSERT_TRUE(original.ok());
  const Bytes n = Param(*original, OSSL_PKEY_PARAM_RSA_N), e = Param(*original, OSSL_PKEY_PARAM_RSA_E),
              d = Param(*original, OSSL_PKEY_PARAM_RSA_D),
              p = Param(*original, OSSL_PKEY_PARAM_RSA_FACTOR1),
              q = Param(*original, OSSL_PKEY_PARAM_RSA_FACTOR2),
              dp = Param(*original, OSSL_PKEY_PARAM_RSA_EXPONENT1),
              dq = Param(*original, OSSL_PKEY_PARAM_RSA_EXPONENT2),
              qinv = Param(*original, OSSL_PKEY_PARAM_RSA_COEFFICIENT1);
  auto rebuilt = PrivateKey::FromRsaComponents({n, e, d, p, q, dp, dq, qinv});
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.error().message;
  EXPECT_EQ(rebuilt->spec().rsa_bits, 2048);
  // PKCS#1 v1.5 is deterministic: the same key gives the same signature.
  SignParams params{.scheme = SignScheme::kRsaPkcs1, .digest = DigestAlg::kSha256};
  EXPECT_EQ(*Sign(*rebuilt, params, AsBytes("m")), *Sign(*original, params, AsBytes("m")));

  Bytes wrong_p = p;
  wrong_p.back() ^= 2;  // still odd, no longer a factor of n
  auto bad = PrivateKey::FromRsaComponents({n, e, d, wrong_p, q, dp, dq, qinv});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, CKR_ATTRIBUTE_VALUE_INVALID);
  auto empty = PrivateKey::FromRsaComponents({n, e, {}, p, q, dp, dq, qinv});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, CKR_ATTRIBUTE_VALUE_INVALID);
}

// RsaParts: the eight PKCS#11 components of `key`, big-endian.
struct RsaParts {
  Bytes n, e, d, p, q, dp, dq, qinv;
  explicit RsaParts(const PrivateKey& key) : RsaParts(key.get0_pkey()) {}
  explicit RsaParts(const EVP_PKEY* key)
      : n(Param(key, OSSL_PKEY_PARAM_RSA_N)),
        e(Param(key, OSSL_PKEY_PARAM_RSA_E)),
        d(Param(key, OSSL_PKEY_PARAM_RSA_D)),
        p(Param(key, OSSL_PKEY_PARAM_RSA_FACTOR1)),
        q(Param(key, OSSL_PKEY_PARAM_RSA_FACTOR2)),
        dp(Param(key, OSSL_PKEY_PARAM_RSA_EXPONENT1)),
        dq(Param(key, OSSL_PKEY_PARAM_RSA_EXPONENT2)),
        qinv(Param(key, OSSL_PKEY_PARAM_RSA_COEFFICIENT1)) {}
};

// RsaWithExponent generates an RSA key whose public exponent is `e`.
EvpPkeyPtr RsaWithExponent(int bits, unsigned long e) {
  EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr));
  BignumPtr exponent(BN_new());
  EVP_PKEY* out = nullptr;
  if (!ctx || !exponent || BN_set_word(exponent.get(), e) != 1 ||
      EVP_PKEY_keygen_init(ctx.get()) != 1 ||
      EVP_PKEY_CTX_set_rsa_keygen_bits(ctx.get(), bits) != 1 ||
      EVP_PKEY_CTX_set1_rsa_keygen_pubexp(ctx.get(), exponent.get()) != 1 ||
      EVP_PKEY_generate(ctx.get(), &out) != 1) {
    return nullptr;
  }
  return EvpPkeyPtr(out);
}

// Issue 11 point 7: PKCS#11 requires only CKA_MODULUS and
// CKA_PRIVATE_EXPONENT of an RSA private key (§2.1.4). With e the primes are
// recovered (HAC 8.2.2); without it, e is found among the usual exponents.
// PKCS#1 v1.5 is deterministic, so equal signatures mean the same key.
TEST(PrivateKeyImport, RsaKeyFromModulusAndExponentsRecoversTheCrtKey) {
  auto original = PrivateKey::Generate({KeyType::kRsa, 2048});
  ASSERT_TRUE(original.ok());
  const RsaParts k(*original);
  SignParams params{.scheme = SignScheme::kRsaPkcs1, .digest = DigestAlg::kSha256};
  const Bytes expected = *Sign(*original, params, AsBytes("n and d"));

  auto from_ned = PrivateKey::FromRsaComponents({k.n, k.e, k.d, {}, {}, {}, {}, {}});
  ASSERT_TRUE(from_ned.ok()) << from_ned.error().message;
  EXPECT_EQ(from_ned->spec().rsa_bits, 2048);
  EXPECT_EQ(*Sign(*from_ned, params, AsBytes("n and d")), expected);
  const RsaParts recovered(*from_ned);
  EXPECT_TRUE((recovered.p == k.p && recovered.q == k.q) ||
              (recovered.p == k.q && recovered.q == k.p));

  auto from_nd = PrivateKey::FromRsaComponents({k.n, {}, k.d, {}, {}, {}, {}, {}});
  ASSERT_TRUE(from_nd.ok()) << from_nd.error().message;
  EXPECT_EQ(*Sign(*from_nd, params, AsBytes("n and d")), expected);
  EXPECT_EQ(RsaParts(*from_nd).e, k.e);

  // The five CRT components without e: e follows from d and the primes.
  auto crt_no_e = PrivateKey::FromRsaComponents({k.n, {}, k.d, k.p, k.q, k.dp, k.dq, k.qinv});
  ASSERT_TRUE(crt_no_e.ok()) << crt_no_e.error().message;
  EXPECT_EQ(*Sign(*crt_no_e, params, AsBytes("n and d")), expected);
}

TEST(PrivateKeyImport, RsaKeyFromModulusAndExponentsRefusesWhatItCannotComplete) {
  auto original = PrivateKey::Generate({KeyType::kRsa, 2048});
  ASSERT_TRUE(original.ok());
  const RsaParts k(*original);
  // Some CRT components but not all five.
  auto partial = PrivateKey::FromRsaComponents({k.n, k.e, k.d, k.p, {}, {}, {}, {}});
  ASSERT_FALSE(partial.ok());
  EXPECT_EQ(partial.error().code, CKR_TEMPLATE_INCOMPLETE);
  // A d that does not belong to n and e: no factor of n comes out.
  Bytes wrong_d = k.d;
  wrong_d.back() ^= 2;
  auto bad = PrivateKey::FromRsaComponents({k.n, k.e, wrong_d, {}, {}, {}, {}, {}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, CKR_ATTRIBUTE_VALUE_INVALID);
  auto bad_nd = PrivateKey::FromRsaComponents({k.n, {}, wrong_d, {}, {}, {}, {}, {}});
  ASSERT_FALSE(bad_nd.ok());
  EXPECT_EQ(bad_nd.error().code, CKR_TEMPLATE_INCOMPLETE);
  auto no_n = PrivateKey::FromRsaComponents({{}, k.e, k.d, {}, {}, {}, {}, {}});
  ASSERT_FALSE(no_n.ok());
  EXPECT_EQ(no_n.error().code, CKR_ATTRIBUTE_VALUE_INVALID);
}

TEST(PrivateKeyImport, RsaKeyWithAnUnusualExponentNeedsIt) {
  EvpPkeyPtr unusual = RsaWithExponent(1024, 65539);
  ASSERT_TRUE(unusual);
  const RsaParts k(unusual.get());
  auto with_e = PrivateKey::FromRsaComponents({k.n, k.e, k.d, {}, {}, {}, {}, {}});
  ASSERT_TRUE(with_e.ok()) << with_e.error().message;
  auto without_e = PrivateKey::FromRsaComponents({k.n, {}, k.d, {}, {}, {}, {}, {}});
  ASSERT_FALSE(without_e.ok());
  EXPECT_EQ(without_e.error().code, CKR_TEMPLATE_INCOMPLETE);
}

// RFC 6979 A.2.5: the P-256 key x and its public point U.
TEST(PrivateKeyImport, P256ScalarGivesTheKnownPublicPoint) {
  const Bytes x =
      FromHex("C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721").value();
  auto key = PrivateKey::FromEcPrivateValue(EcParamsDer(KeyType::kEcP256), x);
  ASSERT_TRUE(key.ok()) << key.error().message;
  EXPECT_EQ(key->spec().type, KeyType::kEcP256);
  EXPECT_EQ(ToHex(*key->Public()->EcPoint()),
            "04"
            "60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"
            "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299");
  SignParams params{.scheme = SignScheme::kEcdsa, .digest = DigestAlg::kSha256};
  auto sig = Sign(*key, params, AsBytes("sample"));
  ASSERT_TRUE(sig.ok());
  EXPECT_TRUE(Verify(*key->Public(), params, AsBytes("sample"), *sig).ok());
}

// RFC 8032 section 7.1, test 1.
TEST(PrivateKeyImport, Ed25519SeedGivesTheKnownPublicKey) {
  const Bytes seed =
      FromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60").value();
  auto key = PrivateKey::FromEcPrivateValue(EcParamsDer(KeyType::kEd25519), seed);
  ASSERT_TRUE(key.ok()) << key.error().message;
  EXPECT_EQ(ToHex(*key->Public()->EcPoint()),
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
  EXPECT_EQ(PrivateKey::FromEcPrivateValue(EcParamsDer(KeyType::kEd25519), Bytes(31, 1))
                .error()
                .code,
            CKR_ATTRIBUTE_VALUE_INVALID);
}

TEST(PrivateKeyImport, EcScalarOutOfRangeOrUnknownCurveIsRefused) {
  const Bytes params = EcParamsDer(KeyType::kEcP256);
  EXPECT_EQ(PrivateKey::FromEcPrivateValue(params, Bytes(32, 0)).error().code,
            CKR_ATTRIBUTE_VALUE_INVALID);
  EXPECT_EQ(PrivateKey::FromEcPrivateValue(params, Bytes(32, 0xff)).error().code,
            CKR_ATTRIBUTE_VALUE_INVALID);  // above the group order
  EXPECT_EQ(
      PrivateKey::FromEcPrivateValue(FromHex("06032b0601").value(), Bytes(32, 1)).error().code,
      CKR_CURVE_NOT_SUPPORTED);
}

}  // namespace
}  // namespace signet::crypto
