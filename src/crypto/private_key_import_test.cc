#include <gtest/gtest.h>
#include <openssl/core_names.h>

#include "crypto/keys.h"
#include "crypto/sign.h"
#include "crypto/test_hex.h"

namespace signet::crypto {
namespace {

Bytes Param(const PrivateKey& key, const char* name) {
  BIGNUM* bn = nullptr;
  EXPECT_EQ(EVP_PKEY_get_bn_param(key.get0_pkey(), name, &bn), 1) << name;
  Bytes out(static_cast<std::size_t>(BN_num_bytes(bn)));
  BN_bn2bin(bn, out.data());
  BN_clear_free(bn);
  return out;
}

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

// RFC 6979 A.2.5: the P-256 key x and its public point U.
TEST(PrivateKeyImport, P256ScalarGivesTheKnownPublicPoint) {
  const Bytes x = FromHex("C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721");
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
  const Bytes seed = FromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
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
  EXPECT_EQ(PrivateKey::FromEcPrivateValue(FromHex("06032b0601"), Bytes(32, 1)).error().code,
            CKR_CURVE_NOT_SUPPORTED);
}

}  // namespace
}  // namespace signet::crypto
