// Finite-field Diffie-Hellman in the RFC 7919 groups: the groups' primes
// against RFC 7919 appendix A's definition (p = 2^b - 2^(b-64) +
// ({[2^(b-130) e]} + X) * 2^64 - 1, computed here from e), their
// recognition by value and the refusal of any other group, a shared secret
// against OpenSSL's EVP on the other side and against `openssl pkeyutl
// -derive`, and the refusal of peer values outside 1 < y < p - 1.
#include "crypto/dh.h"

#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>

#include <string>
#include <tuple>

#include "base/hex.h"
#include "crypto/crypto_test_util.h"

namespace signet::crypto {
namespace {

using testing::ReadFile;
using testing::RunOpenssl;
using testing::TempDir;
using testing::WriteFile;

// RFC 7919 appendix A.1-A.3's primes (X = 560316, 2625351, 5736041).
constexpr const char* kFfdhe2048 =
    "ffffffffffffffffadf85458a2bb4a9aafdc5620273d3cf1d8b9c583ce2d3695a9e13641146433fbcc939dce"
    "249b3ef97d2fe363630c75d8f681b202aec4617ad3df1ed5d5fd65612433f51f5f066ed0856365553ded1af3"
    "b557135e7f57c935984f0c70e0e68b77e2a689daf3efe8721df158a136ade73530acca4f483a797abc0ab182"
    "b324fb61d108a94bb2c8e3fbb96adab760d7f4681d4f42a3de394df4ae56ede76372bb190b07a7c8ee0a6d70"
    "9e02fce1cdf7e2ecc03404cd28342f619172fe9ce98583ff8e4f1232eef28183c3fe3b1b4c6fad733bb5fcbc"
    "2ec22005c58ef1837d1683b2c6f34a26c1b2effa886b423861285c97ffffffffffffffff";
constexpr const char* kFfdhe3072 =
    "ffffffffffffffffadf85458a2bb4a9aafdc5620273d3cf1d8b9c583ce2d3695a9e13641146433fbcc939dce"
    "249b3ef97d2fe363630c75d8f681b202aec4617ad3df1ed5d5fd65612433f51f5f066ed0856365553ded1af3"
    "b557135e7f57c935984f0c70e0e68b77e2a689daf3efe8721df158a136ade73530acca4f483a797abc0ab182"
    "b324fb61d108a94bb2c8e3fbb96adab760d7f4681d4f42a3de394df4ae56ede76372bb190b07a7c8ee0a6d70"
    "9e02fce1cdf7e2ecc03404cd28342f619172fe9ce98583ff8e4f1232eef28183c3fe3b1b4c6fad733bb5fcbc"
    "2ec22005c58ef1837d1683b2c6f34a26c1b2effa886b4238611fcfdcde355b3b6519035bbc34f4def99c0238"
    "61b46fc9d6e6c9077ad91d2691f7f7ee598cb0fac186d91caefe130985139270b4130c93bc437944f4fd4452"
    "e2d74dd364f2e21e71f54bff5cae82ab9c9df69ee86d2bc522363a0dabc521979b0deada1dbf9a42d5c4484e"
    "0abcd06bfa53ddef3c1b20ee3fd59d7c25e41d2b66c62e37ffffffffffffffff";
constexpr const char* kFfdhe4096 =
    "ffffffffffffffffadf85458a2bb4a9aafdc5620273d3cf1d8b9c583ce2d3695a9e13641146433fbcc939dce"
    "249b3ef97d2fe363630c75d8f681b202aec4617ad3df1ed5d5fd65612433f51f5f066ed0856365553ded1af3"
    "b557135e7f57c935984f0c70e0e68b77e2a689daf3efe8721df158a136ade73530acca4f483a797abc0ab182"
    "b324fb61d108a94bb2c8e3fbb96adab760d7f4681d4f42a3de394df4ae56ede76372bb190b07a7c8ee0a6d70"
    "9e02fce1cdf7e2ecc03404cd28342f619172fe9ce98583ff8e4f1232eef28183c3fe3b1b4c6fad733bb5fcbc"
    "2ec22005c58ef1837d1683b2c6f34a26c1b2effa886b4238611fcfdcde355b3b6519035bbc34f4def99c0238"
    "61b46fc9d6e6c9077ad91d2691f7f7ee598cb0fac186d91caefe130985139270b4130c93bc437944f4fd4452"
    "e2d74dd364f2e21e71f54bff5cae82ab9c9df69ee86d2bc522363a0dabc521979b0deada1dbf9a42d5c4484e"
    "0abcd06bfa53ddef3c1b20ee3fd59d7c25e41d2b669e1ef16e6f52c3164df4fb7930e9e4e58857b6ac7d5f42"
    "d69f6d187763cf1d5503400487f55ba57e31cc7a7135c886efb4318aed6a1e012d9e6832a907600a918130c4"
    "6dc778f971ad0038092999a333cb8b7a1a1db93d7140003c2a4ecea9f98d0acc0a8291cdcec97dcf8ec9b55a"
    "7f88a46b4db5a851f44182e1c68a007e5e655f6affffffffffffffff";

Bytes H(std::string_view hex) { return FromHex(hex).value_or(Bytes{}); }

TEST(DhGroupValues, AreRfc7919sPrimesWithBaseTwo) {
  const std::pair<KeyType, const char*> groups[] = {{KeyType::kDhFfdhe2048, kFfdhe2048},
                                                    {KeyType::kDhFfdhe3072, kFfdhe3072},
                                                    {KeyType::kDhFfdhe4096, kFfdhe4096}};
  for (const auto& [type, prime] : groups) {
    SCOPED_TRACE(prime);
    auto group = DhGroupValues(type);
    ASSERT_TRUE(group.ok()) << group.error().message;
    EXPECT_EQ(ToHex(group->prime), prime);
    EXPECT_EQ(group->base, Bytes{2});
    auto found = DhGroupOf(H(prime), Bytes{2});
    ASSERT_TRUE(found.ok());
    EXPECT_EQ(*found, type);
  }
  EXPECT_EQ(DhGroupValues(KeyType::kEcP256).error().code, CKR_KEY_TYPE_INCONSISTENT);
}

// Rfc7919Prime: RFC 7919 appendix A's p = 2^b - 2^(b-64) + ({[2^(b-130) e]}
// + X) * 2^64 - 1, with e summed as 1/k! in fixed point (64 guard bits,
// far more than the rounding of a thousand terms can reach).
std::string Rfc7919Prime(int b, BN_ULONG x) {
  BignumPtr sum(BN_new());
  BignumPtr term(BN_new());
  BignumPtr p(BN_new());
  BignumPtr high(BN_new());
  BN_zero(sum.get());
  BN_zero(term.get());
  BN_set_bit(term.get(), b - 130 + 64);  // 2^(b-130) / 0!, then / k!
  for (BN_ULONG k = 1; !BN_is_zero(term.get()); ++k) {
    BN_add(sum.get(), sum.get(), term.get());
    BN_div_word(term.get(), k);
  }
  BN_rshift(sum.get(), sum.get(), 64);  // [2^(b-130) e]
  BN_add_word(sum.get(), x);
  BN_lshift(sum.get(), sum.get(), 64);
  BN_zero(p.get());
  BN_set_bit(p.get(), b);
  BN_zero(high.get());
  BN_set_bit(high.get(), b - 64);
  BN_sub(p.get(), p.get(), high.get());
  BN_add(p.get(), p.get(), sum.get());
  BN_sub_word(p.get(), 1);
  Bytes out(static_cast<std::size_t>(BN_num_bytes(p.get())));
  BN_bn2bin(p.get(), out.data());
  return ToHex(out);
}

TEST(DhGroupValues, AreRfc7919sFormulaInAllFiveGroups) {
  // RFC 7919 appendix A.1-A.5: each group's size and X.
  const std::tuple<KeyType, int, BN_ULONG> groups[] = {{KeyType::kDhFfdhe2048, 2048, 560316},
                                                       {KeyType::kDhFfdhe3072, 3072, 2625351},
                                                       {KeyType::kDhFfdhe4096, 4096, 5736041},
                                                       {KeyType::kDhFfdhe6144, 6144, 15705020},
                                                       {KeyType::kDhFfdhe8192, 8192, 10965728}};
  for (const auto& [type, bits, x] : groups) {
    SCOPED_TRACE(bits);
    auto group = DhGroupValues(type);
    ASSERT_TRUE(group.ok()) << group.error().message;
    EXPECT_EQ(ToHex(group->prime), Rfc7919Prime(bits, x));
    EXPECT_EQ(group->base, Bytes{2});
  }
  EXPECT_EQ(Rfc7919Prime(2048, 560316), kFfdhe2048);  // the formula, checked by the RFC's hex
}

TEST(DhGroupOf, AcceptsLeadingZerosAndRefusesEveryOtherGroup) {
  Bytes padded = H(kFfdhe2048);
  padded.insert(padded.begin(), 0);
  auto found = DhGroupOf(padded, Bytes{0, 2});
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, KeyType::kDhFfdhe2048);
  // Another base, a prime one bit off, a short prime, nothing.
  EXPECT_EQ(DhGroupOf(H(kFfdhe2048), Bytes{5}).error().code, CKR_ATTRIBUTE_VALUE_INVALID);
  Bytes off = H(kFfdhe2048);
  off[100] ^= 0x10;
  EXPECT_EQ(DhGroupOf(off, Bytes{2}).error().code, CKR_ATTRIBUTE_VALUE_INVALID);
  const Bytes whole = H(kFfdhe2048);
  const Bytes short_prime(whole.begin() + 128, whole.end());
  EXPECT_EQ(DhGroupOf(short_prime, Bytes{2}).error().code, CKR_ATTRIBUTE_VALUE_INVALID);
  EXPECT_EQ(DhGroupOf({}, {}).error().code, CKR_ATTRIBUTE_VALUE_INVALID);
}

// OpensslPeer: a DH key OpenSSL made in the group, and its public value.
struct OpensslPeer {
  EvpPkeyPtr key;
  Bytes y;
};

OpensslPeer MakeOpensslPeer(const char* group) {
  OpensslPeer peer;
  EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "DH", nullptr));
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, const_cast<char*>(group), 0),
      OSSL_PARAM_END};
  EVP_PKEY* raw = nullptr;
  EXPECT_TRUE(ctx && EVP_PKEY_keygen_init(ctx.get()) == 1 &&
              EVP_PKEY_CTX_set_params(ctx.get(), params) == 1 &&
              EVP_PKEY_generate(ctx.get(), &raw) == 1);
  peer.key.reset(raw);
  if (!peer.key) return peer;
  BIGNUM* y = nullptr;
  EXPECT_EQ(EVP_PKEY_get_bn_param(peer.key.get(), OSSL_PKEY_PARAM_PUB_KEY, &y), 1);
  peer.y.resize(static_cast<std::size_t>(BN_num_bytes(y)));
  BN_bn2bin(y, peer.y.data());
  BN_free(y);
  return peer;
}

// OpensslZ: the padded DH secret on OpenSSL's side.
Bytes OpensslZ(EVP_PKEY* own, EVP_PKEY* other) {
  EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, own, nullptr));
  std::size_t len = 0;
  Bytes z;
  if (EVP_PKEY_derive_init(ctx.get()) == 1 && EVP_PKEY_CTX_set_dh_pad(ctx.get(), 1) == 1 &&
      EVP_PKEY_derive_set_peer(ctx.get(), other) == 1 &&
      EVP_PKEY_derive(ctx.get(), nullptr, &len) == 1) {
    z.resize(len);
    if (EVP_PKEY_derive(ctx.get(), z.data(), &len) != 1) z.clear();
  }
  return z;
}

TEST(DhSharedSecret, AgreesWithOpensslEvpInEveryGroup) {
  const std::pair<KeyType, const char*> groups[] = {{KeyType::kDhFfdhe2048, "ffdhe2048"},
                                                    {KeyType::kDhFfdhe3072, "ffdhe3072"},
                                                    {KeyType::kDhFfdhe4096, "ffdhe4096"},
                                                    {KeyType::kDhFfdhe6144, "ffdhe6144"},
                                                    {KeyType::kDhFfdhe8192, "ffdhe8192"}};
  for (const auto& [type, name] : groups) {
    SCOPED_TRACE(name);
    auto own = PrivateKey::Generate({.type = type});
    ASSERT_TRUE(own.ok()) << own.error().message;
    auto own_pub = own->Public();
    ASSERT_TRUE(own_pub.ok()) << own_pub.error().message;
    EXPECT_EQ(own_pub->spec().type, type);
    auto y = DhPublicValue(*own_pub);
    ASSERT_TRUE(y.ok());
    OpensslPeer peer = MakeOpensslPeer(name);
    auto z = DhSharedSecret(*own, peer.y);
    ASSERT_TRUE(z.ok()) << z.error().message;
    EXPECT_EQ(z->size(), DhGroupValues(type)->prime.size());
    EXPECT_EQ(Bytes(z->begin(), z->end()), OpensslZ(peer.key.get(), own_pub->get0_pkey()));
    // The PKCS#8 form keeps the group.
    auto der = own->ToPkcs8Der();
    ASSERT_TRUE(der.ok());
    auto back = PrivateKey::FromPkcs8Der(*der);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->spec().type, type);
  }
}

TEST(DhSharedSecret, AgreesWithOpensslPkeyutlDerive) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  ASSERT_EQ(RunOpenssl({"genpkey", "-algorithm", "DH", "-pkeyopt", "group:ffdhe2048", "-outform",
                        "DER", "-out", dir.File("peer.der")},
                       dir.File("log")),
            0);
  auto peer = PrivateKey::FromEncoded(ReadFile(dir.File("peer.der")));
  ASSERT_TRUE(peer.ok()) << peer.error().message;
  ASSERT_EQ(peer->spec().type, KeyType::kDhFfdhe2048);
  auto own = PrivateKey::Generate({.type = KeyType::kDhFfdhe2048});
  ASSERT_TRUE(own.ok());
  auto own_spki = own->Public()->ToDer();
  ASSERT_TRUE(own_spki.ok());
  WriteFile(dir.File("own_pub.der"), *own_spki);
  ASSERT_EQ(RunOpenssl({"pkeyutl", "-derive", "-keyform", "DER", "-inkey", dir.File("peer.der"),
                        "-peerform", "DER", "-peerkey", dir.File("own_pub.der"), "-pkeyopt",
                        "dh_pad:1", "-out", dir.File("z.bin")},
                       dir.File("log")),
            0)
      << ToHex(ReadFile(dir.File("log")));
  auto peer_y = DhPublicValue(*peer->Public());
  ASSERT_TRUE(peer_y.ok());
  auto z = DhSharedSecret(*own, *peer_y);
  ASSERT_TRUE(z.ok()) << z.error().message;
  EXPECT_EQ(ToHex(ReadFile(dir.File("z.bin"))), ToHex(ByteView(z->data(), z->size())));
}

TEST(DhSharedSecret, RefusesPeerValuesOutsideTheGroup) {
  auto own = PrivateKey::Generate({.type = KeyType::kDhFfdhe2048});
  ASSERT_TRUE(own.ok());
  const Bytes p = H(kFfdhe2048);
  Bytes p_minus_1 = p;
  p_minus_1.back() -= 1;
  Bytes p_plus_1 = p;
  for (auto it = p_plus_1.rbegin(); it != p_plus_1.rend() && ++*it == 0; ++it) {
  }
  const Bytes two_to_2048 = H("01" + std::string(512, '0'));
  for (const Bytes& y :
       {Bytes{}, Bytes{0}, Bytes{1}, Bytes{0, 1}, p_minus_1, p, p_plus_1, two_to_2048}) {
    SCOPED_TRACE(ToHex(y));
    EXPECT_EQ(DhSharedSecret(*own, y).error().code, CKR_MECHANISM_PARAM_INVALID);
  }
  // A key of another type is not a DH key.
  auto ec = PrivateKey::Generate({.type = KeyType::kEcP256});
  ASSERT_TRUE(ec.ok());
  EXPECT_EQ(DhSharedSecret(*ec, Bytes{2}).error().code, CKR_KEY_TYPE_INCONSISTENT);
}

TEST(DhGenerate, HonoursAPrivateValueLengthWithinTheGroupsRange) {
  auto key = PrivateKey::Generate({.type = KeyType::kDhFfdhe2048}, {.dh_private_bits = 300});
  ASSERT_TRUE(key.ok()) << key.error().message;
  auto bits = DhPrivateValueBits(*key);
  ASSERT_TRUE(bits.ok());
  EXPECT_LE(*bits, 300u);
  EXPECT_GT(*bits, 200u);
  EXPECT_EQ(
      PrivateKey::Generate({.type = KeyType::kDhFfdhe2048}, {.dh_private_bits = 224}).error().code,
      CKR_ATTRIBUTE_VALUE_INVALID);
  EXPECT_EQ(
      PrivateKey::Generate({.type = KeyType::kDhFfdhe2048}, {.dh_private_bits = 2048}).error().code,
      CKR_ATTRIBUTE_VALUE_INVALID);
}

TEST(DhKeySpec, IsNotACliSpec) {
  EXPECT_EQ(KeySpecName({.type = KeyType::kDhFfdhe3072}), "dh:ffdhe3072");
  EXPECT_EQ(ParseKeySpec("dh:ffdhe3072").error().code, CKR_ARGUMENTS_BAD);
  EXPECT_TRUE(IsDh(KeyType::kDhFfdhe4096));
  EXPECT_FALSE(IsEc(KeyType::kDhFfdhe4096));
}

}  // namespace
}  // namespace signet::crypto
