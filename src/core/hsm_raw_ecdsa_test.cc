// CKM_ECDSA is raw ECDSA (PKCS#11 v3.0 §2.3.7): its input is whatever the
// caller hashed (or not), of any length; the signature uses its leftmost
// bits up to the order's length (FIPS 186-4 §6.4). Issue 11 point 8: signet
// refused anything but 20/32/48/64 bytes with CKR_DATA_LEN_RANGE. Each
// signature is checked by OpenSSL directly (EVP_PKEY_verify without a
// digest, on a key and a DER signature built here), not by signet's Verify.
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include "core/hsm_fixture_test_util.h"
#include "crypto/keys.h"

namespace signet::core {
namespace {

struct Curve {
  crypto::KeyType type;
  const char* group;  // OpenSSL's group name
  std::size_t field_bytes;
};

constexpr Curve kCurves[] = {
    {crypto::KeyType::kEcP256, "prime256v1", 32},
    {crypto::KeyType::kEcP384, "secp384r1", 48},
    {crypto::KeyType::kEcP521, "secp521r1", 66},
    {crypto::KeyType::kEcSecp256k1, "secp256k1", 32},
};

constexpr std::size_t kLengths[] = {1, 15, 20, 32, 48, 64, 100};

// OpensslVerifies checks a raw r||s `signature` over `input` with the public
// point `ec_point` (CKA_EC_POINT: a DER OCTET STRING) on `curve`.
bool OpensslVerifies(const Curve& curve, const Bytes& ec_point, const Bytes& input,
                     const Bytes& signature) {
  // Unwrap the OCTET STRING: 04 len [81] point.
  std::size_t header = ec_point.size() > 2 && ec_point[1] == 0x81 ? 3 : 2;
  if (ec_point.size() <= header || ec_point[0] != 0x04) return false;
  OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
  OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, curve.group, 0);
  OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, ec_point.data() + header,
                                   ec_point.size() - header);
  OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(bld);
  EVP_PKEY_CTX* from = EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr);
  EVP_PKEY* pkey = nullptr;
  bool ok = from != nullptr && EVP_PKEY_fromdata_init(from) == 1 &&
            EVP_PKEY_fromdata(from, &pkey, EVP_PKEY_PUBLIC_KEY, params) == 1;
  EVP_PKEY_CTX_free(from);
  OSSL_PARAM_free(params);
  OSSL_PARAM_BLD_free(bld);
  if (!ok || signature.size() != 2 * curve.field_bytes) {
    EVP_PKEY_free(pkey);
    return false;
  }
  ECDSA_SIG* sig = ECDSA_SIG_new();
  ECDSA_SIG_set0(sig, BN_bin2bn(signature.data(), static_cast<int>(curve.field_bytes), nullptr),
                 BN_bin2bn(signature.data() + curve.field_bytes,
                           static_cast<int>(curve.field_bytes), nullptr));
  unsigned char* der = nullptr;
  int der_len = i2d_ECDSA_SIG(sig, &der);
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_pkey(nullptr, pkey, nullptr);
  ok = der_len > 0 && ctx != nullptr && EVP_PKEY_verify_init(ctx) == 1 &&
       EVP_PKEY_verify(ctx, der, static_cast<std::size_t>(der_len), input.data(), input.size()) ==
           1;
  EVP_PKEY_CTX_free(ctx);
  OPENSSL_free(der);
  ECDSA_SIG_free(sig);
  EVP_PKEY_free(pkey);
  return ok;
}

class RawEcdsaTest : public HsmFixture {};

TEST_F(RawEcdsaTest, SignsInputOfAnyLengthOnEveryCurve) {
  CK_SESSION_HANDLE s = LoggedIn(*owner_);
  for (const Curve& curve : kCurves) {
    SCOPED_TRACE(curve.group);
    Mechanism gen{CKM_EC_KEY_PAIR_GEN, {}, {}};
    auto pair = hsm_->GenerateKeyPair(*owner_, s, gen,
                                      {{CKA_EC_PARAMS, crypto::EcParamsDer(curve.type)}}, {});
    ASSERT_TRUE(pair.ok()) << pair.error().message;
    CK_RV overall = CKR_OK;
    auto point = hsm_->GetAttributeValue(*owner_, s, pair->first, {CKA_EC_POINT}, &overall);
    ASSERT_TRUE(point.ok() && overall == CKR_OK);
    for (std::size_t length : kLengths) {
      SCOPED_TRACE("input of " + std::to_string(length) + " bytes");
      Bytes input(length);
      for (std::size_t i = 0; i < length; ++i) input[i] = static_cast<std::uint8_t>(0x80 + 7 * i);
      Mechanism ecdsa{CKM_ECDSA, {}, {}};
      auto sig = hsm_->Sign(*owner_, s, pair->second, ecdsa, input);
      ASSERT_TRUE(sig.ok()) << sig.error().message;
      EXPECT_TRUE(OpensslVerifies(curve, (*point)[0].value, input, *sig));
      Bytes forged = *sig;
      forged[forged.size() / 2 - 1] ^= 1;  // r's last byte
      EXPECT_FALSE(OpensslVerifies(curve, (*point)[0].value, input, forged));
      EXPECT_EQ(Code(hsm_->Verify(*owner_, s, pair->first, ecdsa, input, *sig)), CKR_OK);
      Bytes other = input;
      other[0] ^= 1;
      EXPECT_EQ(Code(hsm_->Verify(*owner_, s, pair->first, ecdsa, other, *sig)),
                CKR_SIGNATURE_INVALID);
    }
  }
}

}  // namespace
}  // namespace signet::core
