#include "base/mechanism_table.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace signet {
namespace {

// Lookups are usable at compile time.
static_assert(FindMechanismRow(CKM_ECDSA)->family == MechanismFamily::kEcdsa);
static_assert(FindMechanismRow(CKM_MD5_RSA_PKCS) == nullptr);
static_assert(FactsOf(DigestAlg::kSha384).size == 48);
static_assert((FindMechanismRow(CKM_RSA_PKCS)->flags & CKF_DECRYPT) != 0);
static_assert(FindMechanismRow(CKM_RSA_PKCS_OAEP)->param == ParamKind::kOaep);
static_assert((FindMechanismRow(CKM_RSA_PKCS_OAEP)->flags & CKF_UNWRAP) != 0);

TEST(MechanismTable, RowsAreWellFormed) {
  std::set<CK_MECHANISM_TYPE> types;
  std::set<std::string_view> cli_names;
  for (const MechanismRow& row : kMechanismTable) {
    SCOPED_TRACE(std::string(row.name));
    EXPECT_TRUE(types.insert(row.type).second) << "mechanism listed twice";
    EXPECT_EQ(row.name.substr(0, 4), "CKM_");
    EXPECT_NE(row.flags, 0u);
    EXPECT_LE(row.min_key_size, row.max_key_size);
    if (!row.cli_name.empty()) {
      EXPECT_TRUE(cli_names.insert(row.cli_name).second);
    }
    if (row.family == MechanismFamily::kDigest) {
      EXPECT_EQ(row.flags, CKF_DIGEST);
      EXPECT_NE(row.digest, DigestAlg::kNone);
      EXPECT_EQ(row.key_type, CK_UNAVAILABLE_INFORMATION);
      EXPECT_EQ(FactsOf(row.digest).mechanism, row.type);
    } else {
      EXPECT_NE(row.key_type, CK_UNAVAILABLE_INFORMATION);
      EXPECT_GT(row.max_key_size, 0u);
    }
    if (IsSignature(row.family)) {
      // Signatures only; CKM_RSA_PKCS also encrypts and wraps (PKCS#1 v1.5
      // padding).
      const CK_FLAGS cipher =
          row.type == CKM_RSA_PKCS ? CKF_ENCRYPT | CKF_DECRYPT | CKF_WRAP | CKF_UNWRAP : 0;
      EXPECT_EQ(row.flags & ~(mechanism_flags::kSignVerify | mechanism_flags::kEc | cipher), 0u);
    }
  }
}

TEST(MechanismTable, EverySignatureFamilyButEddsaHasOneDigestForm) {
  // The CLI signs large messages through this form (cli/sign_input.cc).
  for (MechanismFamily family : {MechanismFamily::kRsaPkcs1, MechanismFamily::kRsaPss,
                                 MechanismFamily::kEcdsa, MechanismFamily::kEddsa}) {
    int digest_forms = 0;
    for (const MechanismRow& row : kMechanismTable) {
      if (row.family == family && SignsDigest(row)) ++digest_forms;
    }
    EXPECT_EQ(digest_forms, family == MechanismFamily::kEddsa ? 0 : 1) << static_cast<int>(family);
  }
  EXPECT_TRUE(SignsDigest(*FindMechanismRow(CKM_RSA_PKCS_PSS)));
  EXPECT_FALSE(SignsDigest(*FindMechanismRow(CKM_SHA256_RSA_PKCS_PSS)));
  EXPECT_FALSE(SignsDigest(*FindMechanismRow(CKM_EDDSA)));
  EXPECT_FALSE(SignsDigest(*FindMechanismRow(CKM_SHA256)));
}

TEST(MechanismTable, MacRowsPairEachFullFormWithItsGeneralForm) {
  // Every MAC mechanism signs and verifies with a secret key; each full-length
  // form's *_GENERAL twin (type + 1; type - 1 for triple-DES CMAC, as
  // PKCS#11 numbers them) differs only in taking CK_MAC_GENERAL_PARAMS.
  int macs = 0;
  for (const MechanismRow& row : kMechanismTable) {
    if (!IsMac(row.family) || row.param == ParamKind::kMacLength) continue;
    SCOPED_TRACE(std::string(row.name));
    ++macs;
    EXPECT_EQ(row.flags, mechanism_flags::kSignVerify);
    EXPECT_EQ(row.param, ParamKind::kNone);
    const MechanismRow* general =
        FindMechanismRow(row.type == CKM_DES3_CMAC ? row.type - 1 : row.type + 1);
    ASSERT_NE(general, nullptr);
    EXPECT_EQ(general->name, std::string(row.name) + "_GENERAL");
    EXPECT_EQ(general->param, ParamKind::kMacLength);
    EXPECT_EQ(general->family, row.family);
    EXPECT_EQ(general->digest, row.digest);
    EXPECT_EQ(general->key_type, row.key_type);
    EXPECT_EQ(general->alt_key_type, row.alt_key_type);
  }
  EXPECT_EQ(macs, 8);  // HMAC with MD5, SHA-1, SHA-224/256/384/512; AES- and DES3-CMAC
}

TEST(MechanismTable, HmacAcceptsGenericSecretsAndItsOwnKeyTypeOnly) {
  const MechanismRow& hmac = *FindMechanismRow(CKM_SHA256_HMAC_GENERAL);
  EXPECT_TRUE(AcceptsKeyType(hmac, CKK_GENERIC_SECRET));
  EXPECT_TRUE(AcceptsKeyType(hmac, CKK_SHA256_HMAC));
  EXPECT_FALSE(AcceptsKeyType(hmac, CKK_SHA384_HMAC));
  EXPECT_FALSE(AcceptsKeyType(hmac, CKK_AES));
  EXPECT_FALSE(AcceptsKeyType(hmac, CK_UNAVAILABLE_INFORMATION));
  EXPECT_TRUE(AcceptsKeyType(*FindMechanismRow(CKM_AES_CMAC), CKK_AES));
  EXPECT_FALSE(AcceptsKeyType(*FindMechanismRow(CKM_AES_CMAC), CKK_GENERIC_SECRET));
  EXPECT_FALSE(AcceptsKeyType(*FindMechanismRow(CKM_AES_CBC), CK_UNAVAILABLE_INFORMATION));
  EXPECT_EQ(FindMechanismRow(CKM_SHA_1_HMAC)->digest, DigestAlg::kSha1);
  EXPECT_EQ(FindMechanismRow(CKM_MD5_HMAC)->alt_key_type, CKK_MD5_HMAC);
  for (CK_KEY_TYPE type : {CKK_GENERIC_SECRET, CKK_SHA_1_HMAC, CKK_SHA224_HMAC, CKK_SHA256_HMAC,
                           CKK_SHA384_HMAC, CKK_SHA512_HMAC, CKK_MD5_HMAC}) {
    EXPECT_TRUE(IsGenericSecretKeyType(type)) << type;
  }
  EXPECT_FALSE(IsGenericSecretKeyType(CKK_AES));
  EXPECT_FALSE(IsGenericSecretKeyType(CKK_RIPEMD160_HMAC));  // no RIPEMD-160 HMAC row
  EXPECT_FALSE(IsGenericSecretKeyType(CK_UNAVAILABLE_INFORMATION));
  EXPECT_FALSE(IsGenericSecretKeyType(CKK_DES2));
}

TEST(MechanismTable, TripleDesModesTakeTwoAndThreeKeyKeys) {
  for (CK_MECHANISM_TYPE type : {CKM_DES3_ECB, CKM_DES3_CBC, CKM_DES3_CBC_PAD}) {
    const MechanismRow& row = *FindMechanismRow(type);
    EXPECT_TRUE(AcceptsKeyType(row, CKK_DES3)) << row.name;
    EXPECT_TRUE(AcceptsKeyType(row, CKK_DES2)) << row.name;
    EXPECT_FALSE(AcceptsKeyType(row, CKK_AES)) << row.name;
    EXPECT_EQ(row.flags, CKF_ENCRYPT | CKF_DECRYPT | CKF_WRAP | CKF_UNWRAP) << row.name;
  }
  for (CK_MECHANISM_TYPE type : {CKM_DES3_CMAC, CKM_DES3_CMAC_GENERAL}) {
    const MechanismRow& row = *FindMechanismRow(type);
    EXPECT_TRUE(AcceptsKeyType(row, CKK_DES3)) << row.name;
    EXPECT_TRUE(AcceptsKeyType(row, CKK_DES2)) << row.name;
    EXPECT_TRUE(IsMac(row.family) && MultiPartInDaemon(row)) << row.name;
  }
  EXPECT_EQ(FindMechanismRow(CKM_DES3_ECB)->param, ParamKind::kNone);
  EXPECT_EQ(FindMechanismRow(CKM_DES3_CBC_PAD)->param, ParamKind::kIv);
  EXPECT_EQ(FindMechanismRow(CKM_DES2_KEY_GEN)->key_type, CKK_DES2);
  EXPECT_EQ(FindMechanismRow(CKM_DES3_KEY_GEN)->key_type, CKK_DES3);
}

TEST(MechanismTable, EveryDerivationReadsAPrivateKeyOrASecretKey) {
  for (const MechanismRow& row : kMechanismTable) {
    if ((row.flags & CKF_DERIVE) == 0) continue;
    SCOPED_TRACE(std::string(row.name));
    EXPECT_EQ(row.flags & ~(CKF_DERIVE | mechanism_flags::kEc), 0u);
    // Key agreement reads a private key; the rest a secret key, and all but
    // HKDF (to a key or to data) pass the base key's sensitivity on
    // (core/hsm_derive.cc). Only CKM_HKDF_DATA makes data.
    const bool agreement = DerivesFromPrivateKey(row.family);
    const bool hkdf =
        row.family == MechanismFamily::kHkdf || row.family == MechanismFamily::kHkdfData;
    EXPECT_NE(agreement, hkdf || DerivedKeyInherits(row.family));
    EXPECT_EQ(DerivesData(row.family), row.type == CKM_HKDF_DATA);
    EXPECT_FALSE(agreement && DerivedKeyInherits(row.family));
  }
  EXPECT_TRUE(DerivesFromAnySecretKey(FindMechanismRow(CKM_XOR_BASE_AND_DATA)->family));
  EXPECT_FALSE(DerivesFromAnySecretKey(FindMechanismRow(CKM_AES_ECB_ENCRYPT_DATA)->family));
  EXPECT_TRUE(IsGenericSecretKeyType(CKK_HKDF));
}

TEST(MechanismTable, LookupsByNameAndKeyType) {
  ASSERT_NE(FindMechanismByCliName("rsa-pss-sha384"), nullptr);
  EXPECT_EQ(FindMechanismByCliName("rsa-pss-sha384")->type, CKM_SHA384_RSA_PKCS_PSS);
  EXPECT_EQ(FindMechanismByCliName(""), nullptr);  // rows without a CLI name
  EXPECT_EQ(FindMechanismByCliName("RSA-PSS-SHA384"), nullptr);
  EXPECT_EQ(KeyPairGenFor(CKK_RSA)->type, CKM_RSA_PKCS_KEY_PAIR_GEN);
  EXPECT_EQ(KeyPairGenFor(CKK_EC_EDWARDS)->type, CKM_EC_EDWARDS_KEY_PAIR_GEN);
  EXPECT_EQ(KeyPairGenFor(CKK_AES), nullptr);  // secret keys: CKM_AES_KEY_GEN
}

TEST(DigestTable, RowsAreInEnumOrderWithWellFormedDigestInfo) {
  for (std::size_t i = 0; i < std::size(kDigestTable); ++i) {
    const DigestFacts& facts = kDigestTable[i];
    SCOPED_TRACE(std::string(facts.name));
    EXPECT_EQ(static_cast<std::size_t>(facts.alg), i);
    if (facts.alg == DigestAlg::kNone) continue;
    EXPECT_EQ(DigestForMechanism(facts.mechanism), facts.alg);
    if (facts.mgf != 0) {
      EXPECT_EQ(DigestForMgf(facts.mgf), facts.alg);
    }
    // A DigestInfo is a SEQUENCE of the hash's algorithm identifier and an
    // OCTET STRING holding the digest:
    // the outer length covers the rest of the prefix plus the digest, and
    // the prefix ends with the OCTET STRING's tag and length.
    auto info = facts.digest_info();
    ASSERT_GE(info.size(), 4u);
    EXPECT_EQ(info[0], 0x30);
    EXPECT_EQ(info[1], info.size() - 2 + facts.size);
    EXPECT_EQ(info[info.size() - 2], 0x04);
    EXPECT_EQ(info[info.size() - 1], facts.size);
  }
  EXPECT_EQ(DigestForMechanism(CKM_SHA512_RSA_PKCS), DigestAlg::kNone);
  EXPECT_EQ(DigestForMgf(0), DigestAlg::kNone);
}

}  // namespace
}  // namespace signet
