// Tests for self_test.h: the published vectors pass, and each check notices
// a vector with one wrong byte (so a broken primitive cannot pass start-up).
#include "crypto/self_test.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "crypto/self_test_internal.h"
#include "crypto/self_test_vectors.h"

namespace signet::crypto::internal {
namespace {

// Corrupt returns `hex` with its last digit changed.
std::string Corrupt(std::string_view hex) {
  std::string out(hex);
  out.back() = out.back() == '0' ? '1' : '0';
  return out;
}

void ExpectFailureNaming(const Status& s, std::string_view name) {
  ASSERT_FALSE(s.ok()) << name;
  EXPECT_EQ(s.error().code, CKR_FUNCTION_FAILED);
  EXPECT_NE(s.error().message.find(name), std::string::npos) << s.error().message;
}

TEST(SelfTest, PublishedVectorsPass) {
  Status s = RunSelfTests();
  EXPECT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(RunSelfTests().ok());  // latched: second call is the same answer
}

TEST(SelfTest, ConcurrentCallersAllSeeSuccess) {
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      if (!RunSelfTests().ok()) ++failures;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(SelfTest, EveryVectorPassesOnItsOwn) {
  for (const auto& v : kDigestVectors) EXPECT_TRUE(CheckDigest(v).ok()) << v.name;
  for (const auto& v : kGcmVectors) EXPECT_TRUE(CheckGcm(v).ok()) << v.name;
  for (const auto& v : kKeyWrapVectors) EXPECT_TRUE(CheckKeyWrap(v).ok()) << v.name;
  for (const auto& v : kEd25519Vectors) EXPECT_TRUE(CheckEd25519(v).ok()) << v.name;
  for (const auto& v : kSignatureVectors) EXPECT_TRUE(CheckSignature(v).ok()) << v.name;
}

TEST(SelfTest, DetectsWrongDigest) {
  for (DigestVector v : kDigestVectors) {
    std::string bad = Corrupt(v.digest_hex);
    v.digest_hex = bad;
    ExpectFailureNaming(CheckDigest(v), v.name);
  }
}

TEST(SelfTest, DetectsWrongGcmCiphertextAndTag) {
  GcmVector v = kGcmVectors[0];
  std::string bad_tag = Corrupt(v.tag_hex);
  v.tag_hex = bad_tag;
  ExpectFailureNaming(CheckGcm(v), v.name);
  v = kGcmVectors[0];
  std::string bad_ct = Corrupt(v.ciphertext_hex);
  v.ciphertext_hex = bad_ct;
  ExpectFailureNaming(CheckGcm(v), v.name);
}

TEST(SelfTest, DetectsWrongKeyWrap) {
  for (KeyWrapVector v : kKeyWrapVectors) {
    std::string bad = Corrupt(v.wrapped_hex);
    v.wrapped_hex = bad;
    ExpectFailureNaming(CheckKeyWrap(v), v.name);
  }
}

TEST(SelfTest, DetectsWrongEd25519SignatureAndPublicKey) {
  Ed25519Vector v = kEd25519Vectors[1];
  std::string bad_sig = Corrupt(v.signature_hex);
  v.signature_hex = bad_sig;
  ExpectFailureNaming(CheckEd25519(v), v.name);
  v = kEd25519Vectors[1];
  std::string bad_pub = Corrupt(v.public_hex);
  v.public_hex = bad_pub;
  ExpectFailureNaming(CheckEd25519(v), v.name);
  v = kEd25519Vectors[2];
  v.message_hex = "af83";  // signature no longer matches the message
  ExpectFailureNaming(CheckEd25519(v), v.name);
}

TEST(SelfTest, DetectsSignatureThatDoesNotVerify) {
  for (SignatureVector v : kSignatureVectors) {
    v.message = "a different message";
    ExpectFailureNaming(CheckSignature(v), v.name);
  }
  SignatureVector v = kSignatureVectors[0];
  std::string bad = Corrupt(v.signature_hex);
  v.signature_hex = bad;
  ExpectFailureNaming(CheckSignature(v), v.name);
}

TEST(SelfTest, MalformedVectorIsAFailureNotACrash) {
  DigestVector v = kDigestVectors[1];
  v.digest_hex = "xyz";
  ExpectFailureNaming(CheckDigest(v), v.name);
  SignatureVector s = kSignatureVectors[1];
  s.spki_hex = "3000";
  ExpectFailureNaming(CheckSignature(s), s.name);
}

}  // namespace
}  // namespace signet::crypto::internal
