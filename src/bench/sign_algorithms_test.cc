#include "bench/sign_algorithms.h"

#include <gtest/gtest.h>

#include <sstream>

namespace signet::bench {
namespace {

TEST(SignAlgorithms, KeySpecNamesFindTheirRowsWithoutANote) {
  std::ostringstream notes;
  for (const SignAlgorithm& algo : AllSignAlgorithms()) {
    auto found = FindSignAlgorithm(AlgorithmName(algo), &notes);
    ASSERT_TRUE(found.ok()) << AlgorithmName(algo) << ": " << found.error().message;
    EXPECT_EQ(*found, &algo);
  }
  EXPECT_EQ(notes.str(), "");
  EXPECT_EQ((*FindSignAlgorithm("EC:P256"))->display, "ECDSA P-256");  // any case
}

TEST(SignAlgorithms, OldSpellingsStillWorkWithANoteNamingTheNewOne) {
  const std::pair<const char*, const char*> old_and_new[] = {
      {"rsa2048", "rsa:2048"},   {"rsa_2048", "rsa:2048"},           {"ecp256", "ec:p256"},
      {"ecdsa_p384", "ec:p384"}, {"secp256k1", "ec:secp256k1"},      {"rsa2056", "rsa:2056"},
      {"ecp521", "ec:p521"},     {"ecdsa_secp192r1", "ec:secp192r1"}};
  for (const auto& [old_name, new_name] : old_and_new) {
    std::ostringstream notes;
    auto found = FindSignAlgorithm(old_name, &notes);
    ASSERT_TRUE(found.ok()) << old_name << ": " << found.error().message;
    EXPECT_EQ(AlgorithmName(**found), new_name);
    EXPECT_EQ(notes.str(), std::string("note: algorithm '") + old_name + "' is now spelled '" +
                               new_name + "'\n");
  }
}

// Seed 002 signs with RSA 2056; any size PrivateKey::Generate takes in a
// bench (512-4096) is made on first use and found again.
TEST(SignAlgorithms, RsaOfAnySizeIsSynthesised) {
  auto rsa2056 = FindSignAlgorithm("rsa:2056");
  ASSERT_TRUE(rsa2056.ok()) << rsa2056.error().message;
  const SignAlgorithm& a = **rsa2056;
  EXPECT_EQ(a.id, "rsa2056");
  EXPECT_EQ(a.label, "rsa_2056");
  EXPECT_EQ(a.display, "RSA 2056");
  EXPECT_EQ(a.spec.rsa_bits, 2056);
  EXPECT_EQ(a.keygen_count, 4);
  EXPECT_EQ(*FindSignAlgorithm("rsa:2056"), &a);  // the same object every time
  EXPECT_EQ((*FindSignAlgorithm("rsa:522"))->keygen_count, 10);
  EXPECT_EQ((*FindSignAlgorithm("rsa:4000"))->keygen_count, 2);
  for (const char* bad : {"rsa:511", "rsa:4097", "rsa:0", "rsa:x", "x25519", "ec:p999", "dsa"}) {
    auto found = FindSignAlgorithm(bad);
    ASSERT_FALSE(found.ok()) << bad;
    EXPECT_EQ(found.error().code, CKR_ARGUMENTS_BAD) << bad;
    EXPECT_NE(found.error().message.find("ec:secp192r1"), std::string::npos);
  }
}

TEST(SignAlgorithms, P521SignsSha512AndSecp192r1IsThere) {
  const SignAlgorithm& p521 = **FindSignAlgorithm("ec:p521");
  EXPECT_EQ(p521.params.digest, crypto::DigestAlg::kSha512);
  EXPECT_EQ(SignInputSize(p521), 64u);
  const SignAlgorithm& p192 = **FindSignAlgorithm("ec:p192");
  EXPECT_EQ(p192.display, "ECDSA secp192r1");
  EXPECT_EQ(p192.spec.type, crypto::KeyType::kEcP192);
  auto key = GenerateBenchKey(p192);
  ASSERT_TRUE(key.ok()) << key.error().message;
  auto weak = GenerateBenchKey(**FindSignAlgorithm("rsa:512"));
  ASSERT_TRUE(weak.ok()) << weak.error().message;
  EXPECT_EQ(weak->spec().rsa_bits, 512);
}

}  // namespace
}  // namespace signet::bench
