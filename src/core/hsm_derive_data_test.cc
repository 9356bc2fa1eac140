// Hsm::DeriveKey with the derivations of PKCS#11 v2.40 section 2.38 and the
// encrypt-data forms (sections 2.10.x AES, 2.11.x DES3): concatenation and
// XOR checked against their definitions (plain byte arithmetic), the AES
// forms against NIST SP 800-38A F.1.1 / F.2.1; the attributes a derived key
// inherits; signet's refusals for sensitive inputs (docs/PKCS11.md
// "Concatenation, XOR and encrypt-data") and the specification's.
#include <gtest/gtest.h>

#include "base/hex.h"
#include "core/hsm_fixture_test_util.h"

namespace signet::core {
namespace {

Bytes Unhex(std::string_view hex) { return FromHex(hex).value(); }

// SP 800-38A: the AES-128 key, the first plaintext block, the CBC IV and
// the ECB (F.1.1) and CBC (F.2.1) ciphertexts of that block.
constexpr const char* kAesKey = "2b7e151628aed2a6abf7158809cf4f3c";
constexpr const char* kBlock = "6bc1bee22e409f96e93d7e117393172a";
constexpr const char* kIv = "000102030405060708090a0b0c0d0e0f";
constexpr const char* kEcbOut = "3ad77bb40d7a3660a89ecaf32466ef97";
constexpr const char* kCbcOut = "7649abac8119b246cee98e9b12e9197d";

Mechanism WithData(CK_MECHANISM_TYPE type, Bytes data, Bytes iv = {}) {
  Mechanism m{type};
  m.derivation = DerivationData{std::move(iv), std::move(data)};
  return m;
}

Mechanism WithKey(CK_OBJECT_HANDLE other) {
  Mechanism m{CKM_CONCATENATE_BASE_AND_KEY};
  m.other_key = other;
  return m;
}

// Readable: a readable secret of `type`, `len` bytes if not 0.
Template Readable(CK_ULONG len = 0, CK_KEY_TYPE type = CKK_GENERIC_SECRET) {
  Template t = {{CKA_KEY_TYPE, UlongBytes(type)},
                {CKA_SENSITIVE, BoolBytes(false)},
                {CKA_EXTRACTABLE, BoolBytes(true)}};
  if (len != 0) t.push_back({CKA_VALUE_LEN, UlongBytes(len)});
  return t;
}

Bytes Cat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

class HsmDeriveDataTest : public HsmFixture {
 protected:
  void SetUp() override {
    HsmFixture::SetUp();
    s_ = LoggedIn(*owner_);
  }

  // Secret imports a secret key holding `value`: readable unless
  // `sensitive`, extractable unless `unextractable`.
  CK_OBJECT_HANDLE Secret(const Bytes& value, CK_KEY_TYPE type = CKK_GENERIC_SECRET,
                          bool sensitive = false, bool derive = true, bool unextractable = false) {
    auto h = hsm_->CreateObject(*owner_, s_,
                                {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                                 {CKA_KEY_TYPE, UlongBytes(type)},
                                 {CKA_VALUE, value},
                                 {CKA_SENSITIVE, BoolBytes(sensitive)},
                                 {CKA_EXTRACTABLE, BoolBytes(!unextractable)},
                                 {CKA_DERIVE, BoolBytes(derive)}});
    EXPECT_TRUE(h.ok()) << h.error().message;
    return h.ok() ? *h : 0;
  }

  // Generated: an AES key made here, sensitive and never extractable.
  CK_OBJECT_HANDLE Generated() {
    auto h = hsm_->GenerateKey(*owner_, s_, Mechanism{CKM_AES_KEY_GEN},
                               {{CKA_VALUE_LEN, UlongBytes(16)},
                                {CKA_DERIVE, BoolBytes(true)},
                                {CKA_EXTRACTABLE, BoolBytes(false)}});
    EXPECT_TRUE(h.ok()) << h.error().message;
    return h.ok() ? *h : 0;
  }

  Bytes Attribute(CK_OBJECT_HANDLE key, CK_ATTRIBUTE_TYPE type) {
    CK_RV overall = CKR_OK;
    auto got = hsm_->GetAttributeValue(*owner_, s_, key, {type}, &overall);
    EXPECT_TRUE(got.ok() && overall == CKR_OK) << type;
    return got.ok() ? (*got)[0].value : Bytes{};
  }

  Bytes Derived(CK_OBJECT_HANDLE base, const Mechanism& m, const Template& t = Readable()) {
    auto key = hsm_->DeriveKey(*owner_, s_, m, base, t);
    EXPECT_TRUE(key.ok()) << key.error().message;
    return key.ok() ? Attribute(*key, CKA_VALUE) : Bytes{};
  }

  CK_RV DeriveRv(CK_OBJECT_HANDLE base, const Mechanism& m, const Template& t = Readable()) {
    return Code(hsm_->DeriveKey(*owner_, s_, m, base, t));
  }

  CK_SESSION_HANDLE s_ = 0;
};

TEST_F(HsmDeriveDataTest, ConcatenationAndXorAreTheirDefinitions) {
  const Bytes a = Unhex("00112233445566778899aabbccddeeff");
  const Bytes b = Unhex("0123456789abcdef");
  const Bytes d = Unhex("f0e1d2c3b4a59687");
  const CK_OBJECT_HANDLE base = Secret(a);
  EXPECT_EQ(Derived(base, WithKey(Secret(b))), Cat(a, b));
  EXPECT_EQ(Derived(base, WithData(CKM_CONCATENATE_BASE_AND_DATA, d)), Cat(a, d));
  EXPECT_EQ(Derived(base, WithData(CKM_CONCATENATE_DATA_AND_BASE, d)), Cat(d, a));
  // XOR: as long as the shorter of the two.
  Bytes x = d;
  for (std::size_t i = 0; i < x.size(); ++i) x[i] ^= a[i];
  EXPECT_EQ(Derived(base, WithData(CKM_XOR_BASE_AND_DATA, d)), x);
  // From a readable key a shorter key is the leading bytes (§2.38), and a
  // key type takes the result: 16 + 8 bytes make a DES3 key.
  EXPECT_EQ(Derived(base, WithData(CKM_CONCATENATE_BASE_AND_DATA, d), Readable(4)),
            Unhex("00112233"));
  EXPECT_EQ(Derived(base, WithData(CKM_CONCATENATE_BASE_AND_DATA, d), Readable(0, CKK_DES3)),
            Cat(a, d));
  // The base key may be of any secret key type.
  const Bytes aes = Unhex(kAesKey);
  EXPECT_EQ(Derived(Secret(aes, CKK_AES), WithData(CKM_CONCATENATE_BASE_AND_DATA, aes),
                    Readable(0, CKK_AES)),
            Cat(aes, aes));
}

TEST_F(HsmDeriveDataTest, AesEncryptDataGivesSp80038aBlocks) {
  const CK_OBJECT_HANDLE base = Secret(Unhex(kAesKey), CKK_AES);
  EXPECT_EQ(ToHex(Derived(base, WithData(CKM_AES_ECB_ENCRYPT_DATA, Unhex(kBlock)))), kEcbOut);
  EXPECT_EQ(ToHex(Derived(base, WithData(CKM_AES_CBC_ENCRYPT_DATA, Unhex(kBlock), Unhex(kIv)))),
            kCbcOut);
  // A shorter key is the leading bytes; an AES key of the first 16.
  EXPECT_EQ(ToHex(Derived(base, WithData(CKM_AES_ECB_ENCRYPT_DATA, Unhex(kBlock)), Readable(5))),
            std::string(kEcbOut).substr(0, 10));
  EXPECT_EQ(
      ToHex(Derived(base, WithData(CKM_AES_ECB_ENCRYPT_DATA, Cat(Unhex(kBlock), Unhex(kBlock))),
                    Readable(0, CKK_AES))),
      std::string(kEcbOut) + kEcbOut);
}

TEST_F(HsmDeriveDataTest, TheDerivedKeyInheritsSensitivityAndUnextractability) {
  const Bytes d(16, 0x5a);
  // §2.38: a sensitive base makes a sensitive key whatever the template
  // says; an unextractable one an unextractable key.
  auto from_sensitive = hsm_->DeriveKey(*owner_, s_, WithData(CKM_CONCATENATE_BASE_AND_DATA, d),
                                        Secret(d, CKK_GENERIC_SECRET, true), Readable());
  ASSERT_TRUE(from_sensitive.ok()) << from_sensitive.error().message;
  EXPECT_EQ(Attribute(*from_sensitive, CKA_SENSITIVE), BoolBytes(true));
  auto from_kept = hsm_->DeriveKey(*owner_, s_, WithData(CKM_CONCATENATE_BASE_AND_DATA, d),
                                   Secret(d, CKK_GENERIC_SECRET, false, true, true), Readable());
  ASSERT_TRUE(from_kept.ok()) << from_kept.error().message;
  EXPECT_EQ(Attribute(*from_kept, CKA_EXTRACTABLE), BoolBytes(false));
  // With two keys, either one's is enough.
  auto two = hsm_->DeriveKey(*owner_, s_, WithKey(Secret(d, CKK_GENERIC_SECRET, true)), Secret(d),
                             Readable());
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(Attribute(*two, CKA_SENSITIVE), BoolBytes(true));
  EXPECT_EQ(Attribute(*two, CKA_ALWAYS_SENSITIVE), BoolBytes(false));
  // A generated key's children are always sensitive and never extractable.
  auto kept = hsm_->DeriveKey(*owner_, s_, WithData(CKM_AES_ECB_ENCRYPT_DATA, d), Generated(),
                              {{CKA_KEY_TYPE, UlongBytes(CKK_AES)}});
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  EXPECT_EQ(Attribute(*kept, CKA_ALWAYS_SENSITIVE), BoolBytes(true));
  EXPECT_EQ(Attribute(*kept, CKA_NEVER_EXTRACTABLE), BoolBytes(true));
  // Both keys generated: still so; one of them imported: no longer.
  auto both = hsm_->DeriveKey(*owner_, s_, WithKey(Generated()), Generated(), {});
  ASSERT_TRUE(both.ok()) << both.error().message;
  EXPECT_EQ(Attribute(*both, CKA_ALWAYS_SENSITIVE), BoolBytes(true));
  EXPECT_EQ(Attribute(*both, CKA_NEVER_EXTRACTABLE), BoolBytes(true));
  auto mixed = hsm_->DeriveKey(*owner_, s_, WithKey(Secret(d)), Generated(), {});
  ASSERT_TRUE(mixed.ok()) << mixed.error().message;
  EXPECT_EQ(Attribute(*mixed, CKA_ALWAYS_SENSITIVE), BoolBytes(false));
}

// Derivations that would hand out a sensitive key's value, or let it be
// guessed a byte at a time, are refused (docs/PKCS11.md): a key that is
// the base key again (no data, XOR with zeros, or with DES parity bits
// only), and a shortened result.
TEST_F(HsmDeriveDataTest, NothingDerivedFromASensitiveKeyIsItOrShorterThanIt) {
  const Bytes v = Unhex("0123456789abcdeffedcba98765432100123456789abcdef");
  const CK_OBJECT_HANDLE sensitive = Secret(v, CKK_DES3, true);
  for (CK_MECHANISM_TYPE type :
       {CKM_CONCATENATE_BASE_AND_DATA, CKM_CONCATENATE_DATA_AND_BASE, CKM_XOR_BASE_AND_DATA}) {
    SCOPED_TRACE(type);
    EXPECT_EQ(DeriveRv(sensitive, WithData(type, {}), {}), CKR_MECHANISM_PARAM_INVALID);
  }
  EXPECT_EQ(DeriveRv(sensitive, WithData(CKM_XOR_BASE_AND_DATA, Bytes(24, 0)), {}),
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(DeriveRv(sensitive, WithData(CKM_XOR_BASE_AND_DATA, Bytes(24, 0x01)),
                     {{CKA_KEY_TYPE, UlongBytes(CKK_DES3)}}),
            CKR_MECHANISM_PARAM_INVALID);
  // XOR with data shorter than the key would shorten it.
  EXPECT_EQ(DeriveRv(sensitive, WithData(CKM_XOR_BASE_AND_DATA, Bytes(8, 0x42)), {}),
            CKR_MECHANISM_PARAM_INVALID);
  // A shortened concatenation or XOR: the first byte of the key alone
  // could be found by trying 256 values.
  const Template one_byte = {{CKA_VALUE_LEN, UlongBytes(1)}};
  EXPECT_EQ(DeriveRv(sensitive, WithData(CKM_CONCATENATE_BASE_AND_DATA, Bytes{1}), one_byte),
            CKR_TEMPLATE_INCONSISTENT);
  EXPECT_EQ(DeriveRv(sensitive, WithData(CKM_CONCATENATE_DATA_AND_BASE, Bytes(24, 1)),
                     {{CKA_VALUE_LEN, UlongBytes(25)}}),
            CKR_TEMPLATE_INCONSISTENT);
  EXPECT_EQ(DeriveRv(sensitive, WithData(CKM_XOR_BASE_AND_DATA, Bytes(24, 0x42)), one_byte),
            CKR_TEMPLATE_INCONSISTENT);
  EXPECT_EQ(DeriveRv(Secret(v), WithKey(sensitive), one_byte), CKR_TEMPLATE_INCONSISTENT);
  // The whole of it is fine, and so is a short encryption of data.
  EXPECT_EQ(DeriveRv(sensitive, WithData(CKM_XOR_BASE_AND_DATA, Bytes(24, 0x42)), {}), CKR_OK);
  EXPECT_EQ(DeriveRv(sensitive, WithData(CKM_DES3_ECB_ENCRYPT_DATA, Bytes(8, 0x42)), one_byte),
            CKR_OK);
}

TEST_F(HsmDeriveDataTest, RefusesWhatTheSpecificationRefuses) {
  const Bytes a(16, 0x33);
  const CK_OBJECT_HANDLE base = Secret(a);
  const CK_OBJECT_HANDLE aes = Secret(Unhex(kAesKey), CKK_AES);
  // No parameter.
  for (CK_MECHANISM_TYPE type :
       {CKM_CONCATENATE_BASE_AND_KEY, CKM_CONCATENATE_BASE_AND_DATA, CKM_XOR_BASE_AND_DATA}) {
    EXPECT_EQ(DeriveRv(base, Mechanism{type}), CKR_MECHANISM_PARAM_INVALID) << type;
  }
  EXPECT_EQ(DeriveRv(aes, Mechanism{CKM_AES_ECB_ENCRYPT_DATA}), CKR_MECHANISM_PARAM_INVALID);
  // Longer than what the mechanism makes.
  EXPECT_EQ(DeriveRv(base, WithData(CKM_CONCATENATE_BASE_AND_DATA, Bytes{1}), Readable(18)),
            CKR_TEMPLATE_INCONSISTENT);
  EXPECT_EQ(DeriveRv(base, WithData(CKM_XOR_BASE_AND_DATA, Bytes(8, 1)), Readable(9)),
            CKR_TEMPLATE_INCONSISTENT);
  EXPECT_EQ(DeriveRv(aes, WithData(CKM_AES_ECB_ENCRYPT_DATA, Unhex(kBlock)), Readable(17)),
            CKR_TEMPLATE_INCONSISTENT);
  // Encrypt-data: whole blocks of data, a one-block IV, a key of the
  // cipher's type.
  EXPECT_EQ(DeriveRv(aes, WithData(CKM_AES_ECB_ENCRYPT_DATA, Bytes(15, 1))),
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(DeriveRv(aes, WithData(CKM_AES_ECB_ENCRYPT_DATA, {})), CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(DeriveRv(aes, WithData(CKM_AES_CBC_ENCRYPT_DATA, Unhex(kBlock), Bytes(8, 0))),
            CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(DeriveRv(base, WithData(CKM_AES_ECB_ENCRYPT_DATA, Unhex(kBlock))),
            CKR_KEY_TYPE_INCONSISTENT);
  EXPECT_EQ(DeriveRv(aes, WithData(CKM_DES3_ECB_ENCRYPT_DATA, Bytes(8, 1))),
            CKR_KEY_TYPE_INCONSISTENT);
  // The other key: a secret key that may derive.
  EXPECT_EQ(DeriveRv(base, WithKey(0x7fff)), CKR_OBJECT_HANDLE_INVALID);
  EXPECT_EQ(DeriveRv(base, WithKey(Secret(a, CKK_GENERIC_SECRET, false, /*derive=*/false))),
            CKR_KEY_FUNCTION_NOT_PERMITTED);
  EXPECT_EQ(DeriveRv(Secret(a, CKK_GENERIC_SECRET, false, /*derive=*/false),
                     WithData(CKM_CONCATENATE_BASE_AND_DATA, Bytes{1})),
            CKR_KEY_FUNCTION_NOT_PERMITTED);
}

}  // namespace
}  // namespace signet::core
