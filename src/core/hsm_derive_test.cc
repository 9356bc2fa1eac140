// Hsm::DeriveKey with CKM_ECDH1_DERIVE and CKM_ECDH1_COFACTOR_DERIVE: the
// NIST CAVS ECC CDH P-256 vector (COUNT = 0) through the whole object path,
// the X9.63 KDF over that vector's shared secret, the public value raw and
// DER-wrapped, the derived key's attributes (PKCS#11 v2.40 section 4.10)
// and every refusal a caller can hit. Then X25519 / X448 keys
// (CKM_EC_MONTGOMERY_KEY_PAIR_GEN, PKCS#11 3.0) and RFC 7748 section 6.2.
#include <gtest/gtest.h>

#include "base/hex.h"
#include "core/hsm_fixture_test_util.h"
#include "crypto/key_agreement.h"

namespace signet::core {
namespace {

Bytes Unhex(std::string_view hex) { return FromHex(hex).value(); }

// The CAVS vector: our private scalar, the other party's point, Z.
constexpr const char* kD = "7d7dc5f71eb29ddaf80d6214632eeae03d9058af1fb6d22ed80badb62bc1a534";
constexpr const char* kPeer =
    "04700c48f77f56584c5cc632ca65640db91b6bacce3a4df6b42ce7cc838833d287"
    "db71e509e3fd9b060ddb20ba5c51dcc5948d46fbf640dfe0441782cab85fa4ac";
constexpr const char* kZ = "46fc62106420ff012e54a434fbdd2d25ccc5852060561e68040dd7778997bd7b";

Mechanism Ecdh(CK_ULONG kdf, Bytes public_data, Bytes shared = {},
               CK_MECHANISM_TYPE type = CKM_ECDH1_DERIVE) {
  Mechanism m{type};
  m.ecdh = EcdhParams{kdf, std::move(shared), std::move(public_data)};
  return m;
}

// AesTemplate: an extractable, readable AES key of `len` bytes.
Template AesTemplate(CK_ULONG len) {
  return {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
          {CKA_KEY_TYPE, UlongBytes(CKK_AES)},
          {CKA_VALUE_LEN, UlongBytes(len)},
          {CKA_SENSITIVE, BoolBytes(false)},
          {CKA_EXTRACTABLE, BoolBytes(true)}};
}

class HsmDeriveTest : public HsmFixture {
 protected:
  void SetUp() override {
    HsmFixture::SetUp();
    s_ = LoggedIn(*owner_);
  }

  // VectorKey imports the CAVS private key (CKA_DERIVE as given).
  CK_OBJECT_HANDLE VectorKey(bool derive = true) {
    auto h = hsm_->CreateObject(*owner_, s_,
                                {{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)},
                                 {CKA_KEY_TYPE, UlongBytes(CKK_EC)},
                                 {CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)},
                                 {CKA_VALUE, Unhex(kD)},
                                 {CKA_DERIVE, BoolBytes(derive)}});
    EXPECT_TRUE(h.ok()) << h.error().message;
    return h.ok() ? *h : 0;
  }

  // GeneratedPair: a fresh P-256 pair; the private half derives.
  std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE> GeneratedPair() {
    auto pair =
        hsm_->GenerateKeyPair(*owner_, s_, Mechanism{CKM_EC_KEY_PAIR_GEN},
                              {{CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)}},
                              {{CKA_DERIVE, BoolBytes(true)}});
    EXPECT_TRUE(pair.ok()) << pair.error().message;
    return pair.ok() ? *pair : std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE>{};
  }

  Bytes Attribute(CK_OBJECT_HANDLE key, CK_ATTRIBUTE_TYPE type) {
    CK_RV overall = CKR_OK;
    auto got = hsm_->GetAttributeValue(*owner_, s_, key, {type}, &overall);
    EXPECT_TRUE(got.ok() && overall == CKR_OK) << type;
    return got.ok() ? (*got)[0].value : Bytes{};
  }

  // MontgomeryPair generates an X25519 / X448 pair whose private half
  // derives.
  std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE> MontgomeryPair(const Bytes& ec_params) {
    auto pair =
        hsm_->GenerateKeyPair(*owner_, s_, Mechanism{CKM_EC_MONTGOMERY_KEY_PAIR_GEN},
                              {{CKA_EC_PARAMS, ec_params}}, {{CKA_DERIVE, BoolBytes(true)}});
    EXPECT_TRUE(pair.ok()) << pair.error().message;
    return pair.ok() ? *pair : std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE>{};
  }

  CK_RV DeriveRv(CK_OBJECT_HANDLE base, const Mechanism& m, const Template& t) {
    return Code(hsm_->DeriveKey(*owner_, s_, m, base, t));
  }

  CK_SESSION_HANDLE s_ = 0;
};

TEST_F(HsmDeriveTest, NullKdfGivesTheCavsSharedSecret) {
  const CK_OBJECT_HANDLE base = VectorKey();
  for (CK_MECHANISM_TYPE type : {CKM_ECDH1_DERIVE, CKM_ECDH1_COFACTOR_DERIVE}) {
    SCOPED_TRACE(type);
    auto key =
        hsm_->DeriveKey(*owner_, s_, Ecdh(CKD_NULL, Unhex(kPeer), {}, type), base, AesTemplate(32));
    ASSERT_TRUE(key.ok()) << key.error().message;
    EXPECT_EQ(ToHex(Attribute(*key, CKA_VALUE)), kZ);
    EXPECT_EQ(Attribute(*key, CKA_VALUE_LEN), UlongBytes(32));
    EXPECT_EQ(Attribute(*key, CKA_KEY_TYPE), UlongBytes(CKK_AES));
    EXPECT_EQ(Attribute(*key, CKA_LOCAL), BoolBytes(false));
  }
}

TEST_F(HsmDeriveTest, APublicValueInADerOctetStringIsTheSamePoint) {
  Bytes wrapped = {0x04, 0x41};
  Bytes point = Unhex(kPeer);
  wrapped.insert(wrapped.end(), point.begin(), point.end());
  auto key = hsm_->DeriveKey(*owner_, s_, Ecdh(CKD_NULL, wrapped), VectorKey(), AesTemplate(32));
  ASSERT_TRUE(key.ok()) << key.error().message;
  EXPECT_EQ(ToHex(Attribute(*key, CKA_VALUE)), kZ);
}

TEST_F(HsmDeriveTest, AShorterNullKdfKeyKeepsTheTrailingBytes) {
  auto key =
      hsm_->DeriveKey(*owner_, s_, Ecdh(CKD_NULL, Unhex(kPeer)), VectorKey(), AesTemplate(16));
  ASSERT_TRUE(key.ok()) << key.error().message;
  EXPECT_EQ(ToHex(Attribute(*key, CKA_VALUE)), std::string(kZ).substr(32));
}

TEST_F(HsmDeriveTest, EveryShaKdfIsX963OverTheSharedSecret) {
  const CK_OBJECT_HANDLE base = VectorKey();
  const ByteView info = AsBytes("signet shared info");
  const Bytes shared(info.begin(), info.end());
  const std::pair<CK_ULONG, DigestAlg> kdfs[] = {{CKD_SHA1_KDF, DigestAlg::kSha1},
                                                 {CKD_SHA224_KDF, DigestAlg::kSha224},
                                                 {CKD_SHA256_KDF, DigestAlg::kSha256},
                                                 {CKD_SHA384_KDF, DigestAlg::kSha384},
                                                 {CKD_SHA512_KDF, DigestAlg::kSha512}};
  for (const auto& [kdf, digest] : kdfs) {
    SCOPED_TRACE(kdf);
    for (CK_ULONG len : {16, 24, 32}) {
      auto key =
          hsm_->DeriveKey(*owner_, s_, Ecdh(kdf, Unhex(kPeer), shared), base, AesTemplate(len));
      ASSERT_TRUE(key.ok()) << key.error().message;
      auto want = crypto::X963Kdf(digest, Unhex(kZ), shared, len);
      ASSERT_TRUE(want.ok());
      EXPECT_EQ(Attribute(*key, CKA_VALUE), Bytes(want->begin(), want->end()));
    }
  }
}

TEST_F(HsmDeriveTest, BothPartiesOfTwoGeneratedPairsAgree) {
  auto [pub_a, priv_a] = GeneratedPair();
  auto [pub_b, priv_b] = GeneratedPair();
  Bytes point_a = Attribute(pub_a, CKA_EC_POINT);  // DER OCTET STRING, as it is stored
  Bytes point_b = Attribute(pub_b, CKA_EC_POINT);
  auto ab = hsm_->DeriveKey(*owner_, s_, Ecdh(CKD_SHA256_KDF, point_b), priv_a, AesTemplate(32));
  auto ba = hsm_->DeriveKey(*owner_, s_, Ecdh(CKD_SHA256_KDF, point_a), priv_b, AesTemplate(32));
  ASSERT_TRUE(ab.ok() && ba.ok());
  EXPECT_EQ(Attribute(*ab, CKA_VALUE), Attribute(*ba, CKA_VALUE));
}

TEST_F(HsmDeriveTest, SensitivityFollowsTheBaseKeyAndTheNewKey) {
  auto [pub, generated] = GeneratedPair();  // ALWAYS_SENSITIVE, NEVER_EXTRACTABLE
  const Bytes peer = Unhex(kPeer);
  Template kept = {{CKA_KEY_TYPE, UlongBytes(CKK_AES)},
                   {CKA_VALUE_LEN, UlongBytes(16)},
                   {CKA_SENSITIVE, BoolBytes(true)},
                   {CKA_EXTRACTABLE, BoolBytes(false)}};
  auto inside = hsm_->DeriveKey(*owner_, s_, Ecdh(CKD_SHA256_KDF, peer), generated, kept);
  ASSERT_TRUE(inside.ok()) << inside.error().message;
  EXPECT_EQ(Attribute(*inside, CKA_ALWAYS_SENSITIVE), BoolBytes(true));
  EXPECT_EQ(Attribute(*inside, CKA_NEVER_EXTRACTABLE), BoolBytes(true));
  EXPECT_EQ(Attribute(*inside, CKA_CLASS), UlongBytes(CKO_SECRET_KEY));

  auto readable =
      hsm_->DeriveKey(*owner_, s_, Ecdh(CKD_SHA256_KDF, peer), generated, AesTemplate(16));
  ASSERT_TRUE(readable.ok());
  EXPECT_EQ(Attribute(*readable, CKA_ALWAYS_SENSITIVE), BoolBytes(false));
  EXPECT_EQ(Attribute(*readable, CKA_NEVER_EXTRACTABLE), BoolBytes(false));

  // An imported base key was never "always sensitive": neither is its child.
  auto from_import = hsm_->DeriveKey(*owner_, s_, Ecdh(CKD_SHA256_KDF, peer), VectorKey(), kept);
  ASSERT_TRUE(from_import.ok());
  EXPECT_EQ(Attribute(*from_import, CKA_ALWAYS_SENSITIVE), BoolBytes(false));
  EXPECT_EQ(Attribute(*from_import, CKA_NEVER_EXTRACTABLE), BoolBytes(false));
}

TEST_F(HsmDeriveTest, RefusesWhatPkcs11Refuses) {
  const CK_OBJECT_HANDLE base = VectorKey();
  const Bytes peer = Unhex(kPeer);
  const Mechanism null_kdf = Ecdh(CKD_NULL, peer);
  EXPECT_EQ(DeriveRv(VectorKey(/*derive=*/false), null_kdf, AesTemplate(32)),
            CKR_KEY_FUNCTION_NOT_PERMITTED);
  auto [pub, priv] = GeneratedPair();
  EXPECT_EQ(DeriveRv(pub, null_kdf, AesTemplate(32)), CKR_KEY_TYPE_INCONSISTENT);
  EXPECT_EQ(DeriveRv(base, Mechanism{CKM_ECDH1_DERIVE}, AesTemplate(32)),
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(DeriveRv(base, Ecdh(CKD_SHA1_KDF_ASN1, peer), AesTemplate(32)),
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(DeriveRv(base, Ecdh(CKD_NULL, peer, Bytes{1, 2, 3}), AesTemplate(32)),
            CKR_MECHANISM_PARAM_INVALID);
  Bytes off_curve = peer;
  off_curve.back() ^= 1;
  EXPECT_EQ(DeriveRv(base, Ecdh(CKD_NULL, off_curve), AesTemplate(32)),
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(DeriveRv(base, Ecdh(CKD_NULL, Bytes(97, 4)), AesTemplate(32)),
            CKR_MECHANISM_PARAM_INVALID);
  // CKD_NULL cannot make more bytes than the shared secret has.
  Template too_long = AesTemplate(32);
  too_long[1].value = UlongBytes(CKK_GENERIC_SECRET);
  too_long[2].value = UlongBytes(33);
  EXPECT_EQ(DeriveRv(base, null_kdf, too_long), CKR_TEMPLATE_INCONSISTENT);
  Template private_class = AesTemplate(32);
  private_class[0].value = UlongBytes(CKO_PRIVATE_KEY);
  EXPECT_EQ(DeriveRv(base, null_kdf, private_class), CKR_TEMPLATE_INCONSISTENT);
  Template with_value = AesTemplate(32);
  with_value.push_back({CKA_VALUE, Bytes(32, 1)});
  EXPECT_EQ(DeriveRv(base, null_kdf, with_value), CKR_TEMPLATE_INCONSISTENT);
  Template computed = AesTemplate(32);
  computed.push_back({CKA_LOCAL, BoolBytes(true)});
  EXPECT_EQ(DeriveRv(base, null_kdf, computed), CKR_ATTRIBUTE_READ_ONLY);
  // A mechanism that does not derive.
  EXPECT_EQ(DeriveRv(base, Mechanism{CKM_ECDSA}, AesTemplate(32)), CKR_MECHANISM_INVALID);
}

TEST_F(HsmDeriveTest, ATokenKeyNeedsAReadWriteSessionAndTheUserLogin) {
  const CK_OBJECT_HANDLE base = VectorKey();
  Template token = AesTemplate(32);
  token.push_back({CKA_TOKEN, BoolBytes(true)});
  CK_SESSION_HANDLE ro = Session(*owner_, CKF_SERIAL_SESSION);
  EXPECT_EQ(Code(hsm_->DeriveKey(*owner_, ro, Ecdh(CKD_NULL, Unhex(kPeer)), base, token)),
            CKR_SESSION_READ_ONLY);
  auto stored = hsm_->DeriveKey(*owner_, s_, Ecdh(CKD_NULL, Unhex(kPeer)), base, token);
  ASSERT_TRUE(stored.ok()) << stored.error().message;
  EXPECT_EQ(Attribute(*stored, CKA_TOKEN), BoolBytes(true));
  EXPECT_EQ(ToHex(Attribute(*stored, CKA_VALUE)), kZ);
  // After logout the (private) base key is out of reach.
  ASSERT_TRUE(hsm_->Logout(*owner_, s_).ok());
  EXPECT_NE(Code(hsm_->DeriveKey(*owner_, s_, Ecdh(CKD_NULL, Unhex(kPeer)), base, AesTemplate(32))),
            CKR_OK);
}

TEST_F(HsmDeriveTest, X25519PairsAgreeWithTheOidOrThePrintableCurveName) {
  const Bytes curve25519 = {0x13, 0x0a, 'c', 'u', 'r', 'v', 'e', '2', '5', '5', '1', '9'};
  auto [pub_a, priv_a] = MontgomeryPair(crypto::EcParamsDer(crypto::KeyType::kX25519));
  auto [pub_b, priv_b] = MontgomeryPair(curve25519);
  EXPECT_EQ(Attribute(priv_a, CKA_KEY_TYPE), UlongBytes(CKK_EC_MONTGOMERY));
  EXPECT_EQ(Attribute(pub_b, CKA_KEY_GEN_MECHANISM), UlongBytes(CKM_EC_MONTGOMERY_KEY_PAIR_GEN));
  EXPECT_EQ(Attribute(pub_b, CKA_EC_PARAMS), crypto::EcParamsDer(crypto::KeyType::kX25519));
  const Bytes point_a = Attribute(pub_a, CKA_EC_POINT);  // DER OCTET STRING of 32 bytes
  const Bytes point_b = Attribute(pub_b, CKA_EC_POINT);
  ASSERT_EQ(point_a.size(), 34u);
  EXPECT_EQ(point_a[0], 0x04);
  EXPECT_EQ(point_a[1], 32);
  // The raw value and the CKA_EC_POINT form both work as the peer's key.
  auto ab = hsm_->DeriveKey(*owner_, s_, Ecdh(CKD_NULL, Bytes(point_b.begin() + 2, point_b.end())),
                            priv_a, AesTemplate(32));
  auto ba = hsm_->DeriveKey(*owner_, s_, Ecdh(CKD_NULL, point_a), priv_b, AesTemplate(32));
  ASSERT_TRUE(ab.ok()) << ab.error().message;
  ASSERT_TRUE(ba.ok()) << ba.error().message;
  EXPECT_EQ(Attribute(*ab, CKA_VALUE), Attribute(*ba, CKA_VALUE));
  // An X25519 key signs nothing, and the cofactor form is for CKK_EC only.
  EXPECT_EQ(Code(hsm_->Sign(*owner_, s_, priv_a, Mechanism{CKM_ECDSA}, Bytes(32, 1))),
            CKR_KEY_TYPE_INCONSISTENT);
  EXPECT_EQ(
      DeriveRv(priv_a, Ecdh(CKD_NULL, point_b, {}, CKM_ECDH1_COFACTOR_DERIVE), AesTemplate(32)),
      CKR_KEY_TYPE_INCONSISTENT);
  // A P-256 point is not an X25519 public value.
  EXPECT_EQ(DeriveRv(priv_a, Ecdh(CKD_NULL, Unhex(kPeer)), AesTemplate(32)),
            CKR_MECHANISM_PARAM_INVALID);
  // The Montgomery mechanism makes no P-256 key, nor the EC one an X25519 key.
  EXPECT_EQ(Code(hsm_->GenerateKeyPair(
                *owner_, s_, Mechanism{CKM_EC_MONTGOMERY_KEY_PAIR_GEN},
                {{CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)}}, {})),
            CKR_TEMPLATE_INCONSISTENT);
  EXPECT_EQ(Code(hsm_->GenerateKeyPair(*owner_, s_, Mechanism{CKM_EC_KEY_PAIR_GEN},
                                       {{CKA_EC_PARAMS, curve25519}}, {})),
            CKR_TEMPLATE_INCONSISTENT);
}

TEST_F(HsmDeriveTest, X448ImportedKeyGivesRfc7748Section62SharedSecret) {
  auto alice = hsm_->CreateObject(
      *owner_, s_,
      {{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)},
       {CKA_KEY_TYPE, UlongBytes(CKK_EC_MONTGOMERY)},
       {CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kX448)},
       {CKA_VALUE, Unhex("9a8f4925d1519f5775cf46b04b5800d4ee9ee8bae8bc5565d498c28dd9c9baf574a94197"
                         "44897391006382a6f127ab1d9ac2d8c0a598726b")},
       {CKA_DERIVE, BoolBytes(true)}});
  ASSERT_TRUE(alice.ok()) << alice.error().message;
  const Bytes bob_public = Unhex(
      "3eb7a829b0cd20f5bcfc0b599b6feccf6da4627107bdb0d4f345b43027d8b972fc3e34fb4232a13ca706dcb57aec"
      "3d"
      "ae07bdc1c67bf33609");
  Template aes = {{CKA_KEY_TYPE, UlongBytes(CKK_AES)},
                  {CKA_VALUE_LEN, UlongBytes(32)},
                  {CKA_SENSITIVE, BoolBytes(false)},
                  {CKA_EXTRACTABLE, BoolBytes(true)}};
  auto key = hsm_->DeriveKey(*owner_, s_, Ecdh(CKD_NULL, bob_public), *alice, aes);
  ASSERT_TRUE(key.ok()) << key.error().message;
  // K is 56 bytes; a 32-byte key keeps its last 32 (docs/PKCS11.md).
  EXPECT_EQ(ToHex(Attribute(*key, CKA_VALUE)),
            "281d282bb60c0b56fd2464c335543936521c24403085d59a449a5037514a879d");
}

}  // namespace
}  // namespace signet::core
