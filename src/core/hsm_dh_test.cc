// Hsm with Diffie-Hellman (PKCS#11 v2.40 section 2.5): CKM_DH_PKCS_KEY_PAIR_GEN
// in the RFC 7919 groups (named by CKA_PRIME and CKA_BASE) and the
// attributes of the pair it makes, CKM_DH_PKCS_DERIVE between two pairs and
// against crypto/dh.h from an imported x, the derived key's attributes, and
// the refusals: any other group, a private value length out of range, and
// peer values outside 1 < y < p - 1.
#include <gtest/gtest.h>

#include "base/hex.h"
#include "core/hsm_fixture_test_util.h"
#include "crypto/dh.h"
#include "crypto/hkdf.h"

namespace signet::core {
namespace {

using crypto::KeyType;

Bytes Prime(KeyType type) { return crypto::DhGroupValues(type)->prime; }

Mechanism DhDerive(Bytes y) {
  Mechanism m{CKM_DH_PKCS_DERIVE};
  m.raw_params = std::move(y);
  return m;
}

// Readable: an extractable, non-sensitive secret key template of `type`
// (and `len` bytes when not 0).
Template Readable(CK_KEY_TYPE type, CK_ULONG len = 0) {
  Template t = {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                {CKA_KEY_TYPE, UlongBytes(type)},
                {CKA_SENSITIVE, BoolBytes(false)},
                {CKA_EXTRACTABLE, BoolBytes(true)}};
  if (len != 0) t.push_back({CKA_VALUE_LEN, UlongBytes(len)});
  return t;
}

class HsmDhTest : public HsmFixture {
 protected:
  void SetUp() override {
    HsmFixture::SetUp();
    s_ = LoggedIn(*owner_);
  }

  Result<std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE>> Generate(const Bytes& prime,
                                                                 const Bytes& base,
                                                                 Template priv = {},
                                                                 bool token = false) {
    priv.push_back({CKA_DERIVE, BoolBytes(true)});
    priv.push_back({CKA_TOKEN, BoolBytes(token)});
    return hsm_->GenerateKeyPair(
        *owner_, s_, Mechanism{CKM_DH_PKCS_KEY_PAIR_GEN},
        {{CKA_PRIME, prime}, {CKA_BASE, base}, {CKA_TOKEN, BoolBytes(token)}}, priv);
  }

  std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE> Pair(KeyType group = KeyType::kDhFfdhe2048,
                                                     bool token = false) {
    auto pair = Generate(Prime(group), Bytes{2}, {}, token);
    EXPECT_TRUE(pair.ok()) << pair.error().message;
    return pair.ok() ? *pair : std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE>{};
  }

  CK_RV AttributeRv(CK_OBJECT_HANDLE key, CK_ATTRIBUTE_TYPE type) {
    CK_RV overall = CKR_OK;
    auto got = hsm_->GetAttributeValue(*owner_, s_, key, {type}, &overall);
    return got.ok() ? overall : got.error().code;
  }

  Bytes Attribute(CK_OBJECT_HANDLE key, CK_ATTRIBUTE_TYPE type) {
    CK_RV overall = CKR_OK;
    auto got = hsm_->GetAttributeValue(*owner_, s_, key, {type}, &overall);
    EXPECT_TRUE(got.ok() && overall == CKR_OK) << type;
    return got.ok() ? (*got)[0].value : Bytes{};
  }

  CK_RV GenerateRv(const Bytes& prime, const Bytes& base, Template priv = {}) {
    return Code(Generate(prime, base, std::move(priv)));
  }

  CK_RV DeriveRv(CK_OBJECT_HANDLE base, const Mechanism& m, const Template& t) {
    return Code(hsm_->DeriveKey(*owner_, s_, m, base, t));
  }

  CK_SESSION_HANDLE s_ = 0;
};

TEST_F(HsmDhTest, APairInEachGroupCarriesPkcs3sAttributes) {
  for (KeyType group : {KeyType::kDhFfdhe2048, KeyType::kDhFfdhe3072, KeyType::kDhFfdhe4096,
                        KeyType::kDhFfdhe6144, KeyType::kDhFfdhe8192}) {
    SCOPED_TRACE(static_cast<int>(group));
    auto [pub, priv] = Pair(group);
    for (CK_OBJECT_HANDLE key : {pub, priv}) {
      EXPECT_EQ(Attribute(key, CKA_KEY_TYPE), UlongBytes(CKK_DH));
      EXPECT_EQ(Attribute(key, CKA_PRIME), Prime(group));
      EXPECT_EQ(Attribute(key, CKA_BASE), Bytes{2});
      EXPECT_EQ(Attribute(key, CKA_KEY_GEN_MECHANISM), UlongBytes(CKM_DH_PKCS_KEY_PAIR_GEN));
      EXPECT_EQ(Attribute(key, CKA_LOCAL), BoolBytes(true));
    }
    const Bytes y = Attribute(pub, CKA_VALUE);
    EXPECT_GT(y.size(), Prime(group).size() - 8);
    // x stays inside; its length is public (CKA_VALUE_BITS), RFC 7919's.
    EXPECT_EQ(AttributeRv(priv, CKA_VALUE), CKR_ATTRIBUTE_SENSITIVE);
    EXPECT_EQ(AttributeRv(pub, CKA_VALUE_BITS), CKR_ATTRIBUTE_TYPE_INVALID);
    auto bits = FindUlong({{CKA_VALUE_BITS, Attribute(priv, CKA_VALUE_BITS)}}, CKA_VALUE_BITS);
    ASSERT_TRUE(bits.has_value());
    EXPECT_GT(*bits, crypto::DhMinPrivateBits(group) - 16);
    EXPECT_LE(*bits, crypto::DhMinPrivateBits(group));
  }
}

TEST_F(HsmDhTest, CkaValueBitsAsksForTheLengthOfX) {
  auto pair = Generate(Prime(KeyType::kDhFfdhe2048), Bytes{2},
                       {{CKA_VALUE_BITS, UlongBytes(512)},
                        {CKA_SENSITIVE, BoolBytes(false)},
                        {CKA_EXTRACTABLE, BoolBytes(true)}});
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  auto bits =
      FindUlong({{CKA_VALUE_BITS, Attribute(pair->second, CKA_VALUE_BITS)}}, CKA_VALUE_BITS);
  ASSERT_TRUE(bits.has_value());
  EXPECT_GT(*bits, 480u);
  EXPECT_LE(*bits, 512u);
  // An extractable, non-sensitive x is readable, as long as it says.
  const Bytes x = Attribute(pair->second, CKA_VALUE);
  EXPECT_LE(x.size(), 64u);
  EXPECT_GT(x.size(), 60u);
}

TEST_F(HsmDhTest, TwoPairsDeriveTheSameSecretAsCryptoDoes) {
  auto [pub_a, priv_a] = Pair(KeyType::kDhFfdhe2048, /*token=*/true);
  auto [pub_b, priv_b] = Pair();
  const Bytes y_a = Attribute(pub_a, CKA_VALUE);
  const Bytes y_b = Attribute(pub_b, CKA_VALUE);
  // No length, no type: a generic secret of the prime's length.
  auto ab =
      hsm_->DeriveKey(*owner_, s_, DhDerive(y_b), priv_a,
                      {{CKA_SENSITIVE, BoolBytes(false)}, {CKA_EXTRACTABLE, BoolBytes(true)}});
  auto ba = hsm_->DeriveKey(*owner_, s_, DhDerive(y_a), priv_b, Readable(CKK_GENERIC_SECRET));
  ASSERT_TRUE(ab.ok()) << ab.error().message;
  ASSERT_TRUE(ba.ok()) << ba.error().message;
  const Bytes z = Attribute(*ab, CKA_VALUE);
  EXPECT_EQ(z.size(), 256u);
  EXPECT_EQ(Attribute(*ba, CKA_VALUE), z);
  EXPECT_EQ(Attribute(*ab, CKA_KEY_TYPE), UlongBytes(CKK_GENERIC_SECRET));
  EXPECT_EQ(Attribute(*ab, CKA_LOCAL), BoolBytes(false));
  // The base key was generated sensitive and unextractable: the derived key
  // is neither, so it was not always sensitive nor never extractable.
  EXPECT_EQ(Attribute(*ab, CKA_ALWAYS_SENSITIVE), BoolBytes(false));
  EXPECT_EQ(Attribute(*ab, CKA_NEVER_EXTRACTABLE), BoolBytes(false));
  // A 32-byte AES key keeps Z's last 32 bytes.
  auto aes = hsm_->DeriveKey(*owner_, s_, DhDerive(y_b), priv_a, Readable(CKK_AES, 32));
  ASSERT_TRUE(aes.ok()) << aes.error().message;
  EXPECT_EQ(Attribute(*aes, CKA_VALUE), Bytes(z.end() - 32, z.end()));
  // A sensitive derived key from an always-sensitive base stays so.
  auto kept =
      hsm_->DeriveKey(*owner_, s_, DhDerive(y_b), priv_a,
                      {{CKA_KEY_TYPE, UlongBytes(CKK_AES)}, {CKA_VALUE_LEN, UlongBytes(16)}});
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  EXPECT_EQ(Attribute(*kept, CKA_ALWAYS_SENSITIVE), BoolBytes(true));
  EXPECT_EQ(Attribute(*kept, CKA_NEVER_EXTRACTABLE), BoolBytes(true));
}

// ffdhe6144 and ffdhe8192: Z is 768 and 1024 bytes, so a generic secret
// holds up to 1024 bytes, and HKDF takes it as its base key.
TEST_F(HsmDhTest, TheLargestGroupsDeriveTheirWholeSecret) {
  for (KeyType group : {KeyType::kDhFfdhe6144, KeyType::kDhFfdhe8192}) {
    SCOPED_TRACE(static_cast<int>(group));
    auto [pub_a, priv_a] = Pair(group);
    auto [pub_b, priv_b] = Pair(group);
    Template secret = Readable(CKK_GENERIC_SECRET);
    secret.push_back({CKA_DERIVE, BoolBytes(true)});
    auto ab = hsm_->DeriveKey(*owner_, s_, DhDerive(Attribute(pub_b, CKA_VALUE)), priv_a, secret);
    auto ba = hsm_->DeriveKey(*owner_, s_, DhDerive(Attribute(pub_a, CKA_VALUE)), priv_b,
                              Readable(CKK_GENERIC_SECRET));
    ASSERT_TRUE(ab.ok()) << ab.error().message;
    ASSERT_TRUE(ba.ok()) << ba.error().message;
    const Bytes z = Attribute(*ab, CKA_VALUE);
    EXPECT_EQ(z.size(), Prime(group).size());
    EXPECT_EQ(Attribute(*ba, CKA_VALUE), z);
    Mechanism hkdf{CKM_HKDF_DERIVE};
    hkdf.hkdf = HkdfParams{.extract = true,
                           .expand = true,
                           .prf_hash = CKM_SHA256,
                           .salt_type = CKF_HKDF_SALT_NULL,
                           .info = Bytes{'t', 'l', 's'}};
    auto derived = hsm_->DeriveKey(*owner_, s_, hkdf, *ab, Readable(CKK_AES, 32));
    ASSERT_TRUE(derived.ok()) << derived.error().message;
    auto expected = crypto::Hkdf(crypto::HkdfStep::kExtractAndExpand, DigestAlg::kSha256, z, {},
                                 Bytes{'t', 'l', 's'}, 32);
    ASSERT_TRUE(expected.ok());
    EXPECT_EQ(Attribute(*derived, CKA_VALUE), Bytes(expected->begin(), expected->end()));
  }
}

TEST_F(HsmDhTest, AnImportedXDerivesWhatCryptoComputes) {
  auto peer = crypto::PrivateKey::Generate({.type = KeyType::kDhFfdhe2048});
  ASSERT_TRUE(peer.ok());
  const Bytes x =
      FromHex("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef").value();
  auto imported = hsm_->CreateObject(*owner_, s_,
                                     {{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)},
                                      {CKA_KEY_TYPE, UlongBytes(CKK_DH)},
                                      {CKA_PRIME, Prime(KeyType::kDhFfdhe2048)},
                                      {CKA_BASE, Bytes{2}},
                                      {CKA_VALUE, x},
                                      {CKA_DERIVE, BoolBytes(true)}});
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(Attribute(*imported, CKA_VALUE_BITS), UlongBytes(249));
  auto own = crypto::PrivateKey::FromDhPrivateValue(KeyType::kDhFfdhe2048, x);
  ASSERT_TRUE(own.ok());
  auto peer_y = crypto::DhPublicValue(*peer->Public());
  auto own_y = crypto::DhPublicValue(*own->Public());
  ASSERT_TRUE(peer_y.ok() && own_y.ok());
  auto z = crypto::DhSharedSecret(*peer, *own_y);
  ASSERT_TRUE(z.ok());
  auto key =
      hsm_->DeriveKey(*owner_, s_, DhDerive(*peer_y), *imported, Readable(CKK_GENERIC_SECRET));
  ASSERT_TRUE(key.ok()) << key.error().message;
  EXPECT_EQ(Attribute(*key, CKA_VALUE), Bytes(z->begin(), z->end()));
  // A DH public key object made from y is accepted and keeps it.
  auto pub = hsm_->CreateObject(*owner_, s_,
                                {{CKA_CLASS, UlongBytes(CKO_PUBLIC_KEY)},
                                 {CKA_KEY_TYPE, UlongBytes(CKK_DH)},
                                 {CKA_PRIME, Prime(KeyType::kDhFfdhe2048)},
                                 {CKA_BASE, Bytes{2}},
                                 {CKA_VALUE, *own_y}});
  ASSERT_TRUE(pub.ok()) << pub.error().message;
  EXPECT_EQ(Attribute(*pub, CKA_VALUE), *own_y);
}

TEST_F(HsmDhTest, KeyGenerationRefusesEveryOtherGroup) {
  const Bytes p = Prime(KeyType::kDhFfdhe2048);
  Bytes off = p;
  off[77] ^= 0x01;
  const Bytes shorter(p.begin() + 128, p.end());  // a 1024-bit number
  EXPECT_EQ(GenerateRv(off, Bytes{2}), CKR_ATTRIBUTE_VALUE_INVALID);
  EXPECT_EQ(GenerateRv(shorter, Bytes{2}), CKR_ATTRIBUTE_VALUE_INVALID);
  EXPECT_EQ(GenerateRv(p, Bytes{5}), CKR_ATTRIBUTE_VALUE_INVALID);
  EXPECT_EQ(GenerateRv({}, Bytes{2}), CKR_ATTRIBUTE_VALUE_INVALID);
  EXPECT_EQ(Code(hsm_->GenerateKeyPair(*owner_, s_, Mechanism{CKM_DH_PKCS_KEY_PAIR_GEN},
                                       {{CKA_PRIME, p}}, {})),
            CKR_TEMPLATE_INCOMPLETE);
  // x shorter than RFC 7919's 225 bits, or as long as p.
  EXPECT_EQ(GenerateRv(p, Bytes{2}, {{CKA_VALUE_BITS, UlongBytes(160)}}),
            CKR_ATTRIBUTE_VALUE_INVALID);
  EXPECT_EQ(GenerateRv(p, Bytes{2}, {{CKA_VALUE_BITS, UlongBytes(2048)}}),
            CKR_ATTRIBUTE_VALUE_INVALID);
  // An EC template does not make a DH key.
  EXPECT_EQ(Code(hsm_->GenerateKeyPair(
                *owner_, s_, Mechanism{CKM_DH_PKCS_KEY_PAIR_GEN},
                {{CKA_PRIME, p}, {CKA_BASE, Bytes{2}}, {CKA_EC_PARAMS, Bytes{0x06}}}, {})),
            CKR_TEMPLATE_INCONSISTENT);
  // Nor does C_CreateObject take a key of another group.
  EXPECT_EQ(Code(hsm_->CreateObject(*owner_, s_,
                                    {{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)},
                                     {CKA_KEY_TYPE, UlongBytes(CKK_DH)},
                                     {CKA_PRIME, off},
                                     {CKA_BASE, Bytes{2}},
                                     {CKA_VALUE, Bytes(32, 7)}})),
            CKR_ATTRIBUTE_VALUE_INVALID);
}

TEST_F(HsmDhTest, DerivationRefusesPeerValuesOutsideTheGroup) {
  auto [pub, priv] = Pair();
  const Bytes p = Prime(KeyType::kDhFfdhe2048);
  Bytes p_minus_1 = p;
  p_minus_1.back() -= 1;
  Bytes above = p;
  above.insert(above.begin(), 1);
  for (const Bytes& y : {Bytes{}, Bytes{0}, Bytes{1}, p_minus_1, p, above}) {
    SCOPED_TRACE(ToHex(y).substr(0, 16));
    EXPECT_EQ(DeriveRv(priv, DhDerive(y), Readable(CKK_AES, 16)), CKR_MECHANISM_PARAM_INVALID);
  }
  const Bytes y = Attribute(pub, CKA_VALUE);
  // Longer than Z; a public key as the base; a key that may not derive.
  EXPECT_EQ(DeriveRv(priv, DhDerive(y), Readable(CKK_GENERIC_SECRET, 257)),
            CKR_TEMPLATE_INCONSISTENT);
  EXPECT_EQ(DeriveRv(pub, DhDerive(y), Readable(CKK_AES, 16)), CKR_KEY_TYPE_INCONSISTENT);
  auto no_derive = hsm_->GenerateKeyPair(*owner_, s_, Mechanism{CKM_DH_PKCS_KEY_PAIR_GEN},
                                         {{CKA_PRIME, p}, {CKA_BASE, Bytes{2}}}, {});
  ASSERT_TRUE(no_derive.ok());
  EXPECT_EQ(DeriveRv(no_derive->second, DhDerive(y), Readable(CKK_AES, 16)),
            CKR_KEY_FUNCTION_NOT_PERMITTED);
  // DH and ECDH keys do not cross.
  Mechanism ecdh{CKM_ECDH1_DERIVE};
  ecdh.ecdh = EcdhParams{CKD_NULL, {}, y};
  EXPECT_EQ(DeriveRv(priv, ecdh, Readable(CKK_AES, 16)), CKR_KEY_TYPE_INCONSISTENT);
  auto ec = hsm_->GenerateKeyPair(*owner_, s_, Mechanism{CKM_EC_KEY_PAIR_GEN},
                                  {{CKA_EC_PARAMS, crypto::EcParamsDer(KeyType::kEcP256)}},
                                  {{CKA_DERIVE, BoolBytes(true)}});
  ASSERT_TRUE(ec.ok());
  EXPECT_EQ(DeriveRv(ec->second, DhDerive(y), Readable(CKK_AES, 16)), CKR_KEY_TYPE_INCONSISTENT);
}

}  // namespace
}  // namespace signet::core
