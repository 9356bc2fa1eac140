#include "crypto/rsa_crt.h"

#include <gtest/gtest.h>

#include <thread>

namespace signet::crypto {
namespace {

// SignOnOneThread computes a whole split signature on the calling thread,
// both halves in turn (the scheduler runs them on two workers).
Result<Bytes> SignOnOneThread(std::shared_ptr<const RsaCrtKey> key, const SignParams& params,
                              ByteView input) {
  SIGNET_ASSIGN_OR_RETURN(auto split, SplitRsaSignature::Start(std::move(key), params, input));
  split->ComputeHalf(0);
  split->ComputeHalf(1);
  return split->Finish();
}

class RsaCrtTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto key = PrivateKey::Generate(KeySpec{KeyType::kRsa, 2048});
    ASSERT_TRUE(key.ok());
    key_ = new PrivateKey(*key);
  }
  static void TearDownTestSuite() { delete key_; }
  static PrivateKey* key_;
};
PrivateKey* RsaCrtTest::key_ = nullptr;

// PKCS#1 v1.5 is deterministic, so the split signature must equal OpenSSL's
// own signature byte for byte.
TEST_F(RsaCrtTest, Pkcs1MatchesOpenSslForEveryDigest) {
  auto crt = RsaCrtKey::Create(*key_);
  ASSERT_TRUE(crt.ok());
  for (DigestAlg alg : {DigestAlg::kSha256, DigestAlg::kSha384, DigestAlg::kSha512}) {
    SignParams params{.scheme = SignScheme::kRsaPkcs1, .digest = alg};
    auto expected = Sign(*key_, params, AsBytes("split me"));
    auto split = SignOnOneThread(*crt, params, AsBytes("split me"));
    ASSERT_TRUE(expected.ok() && split.ok()) << DigestName(alg);
    EXPECT_EQ(*split, *expected) << DigestName(alg);
  }
}

// The blinding factor is squared after each use and redrawn every 32 uses:
// each of those signatures must still unblind to OpenSSL's exact signature.
TEST_F(RsaCrtTest, ReusedAndRedrawnBlindingStillGivesExactSignatures) {
  auto crt = RsaCrtKey::Create(*key_);
  ASSERT_TRUE(crt.ok());
  SignParams params{.scheme = SignScheme::kRsaPkcs1, .digest = DigestAlg::kSha256};
  for (int i = 0; i < 70; ++i) {
    const std::string message = "message " + std::to_string(i);
    auto expected = Sign(*key_, params, AsBytes(message));
    auto split = SignOnOneThread(*crt, params, AsBytes(message));
    ASSERT_TRUE(expected.ok() && split.ok()) << i;
    ASSERT_EQ(*split, *expected) << "signature " << i;
  }
}

TEST_F(RsaCrtTest, HalvesOnTwoThreadsGiveAVerifyingPssSignature) {
  auto crt = RsaCrtKey::Create(*key_);
  auto pub = key_->Public();
  ASSERT_TRUE(crt.ok() && pub.ok());
  SignParams params{.scheme = SignScheme::kRsaPss, .digest = DigestAlg::kSha256};
  auto split = SplitRsaSignature::Start(*crt, params, AsBytes("message"));
  ASSERT_TRUE(split.ok());
  std::thread other([&] { (*split)->ComputeHalf(1); });
  (*split)->ComputeHalf(0);
  other.join();
  auto signature = (*split)->Finish();
  ASSERT_TRUE(signature.ok());
  EXPECT_TRUE(Verify(*pub, params, AsBytes("message"), *signature).ok());
  EXPECT_FALSE(Verify(*pub, params, AsBytes("massage"), *signature).ok());
}

TEST_F(RsaCrtTest, RawPkcs1PadsTheGivenDigestInfo) {
  auto crt = RsaCrtKey::Create(*key_);
  ASSERT_TRUE(crt.ok());
  SignParams params{.scheme = SignScheme::kRsaPkcs1, .digest = DigestAlg::kNone};
  const Bytes digest_info(40, 0x5a);
  auto expected = Sign(*key_, params, digest_info);
  auto split = SignOnOneThread(*crt, params, digest_info);
  ASSERT_TRUE(expected.ok() && split.ok());
  EXPECT_EQ(*split, *expected);
}

TEST_F(RsaCrtTest, OversizeInputIsRejected) {
  auto crt = RsaCrtKey::Create(*key_);
  ASSERT_TRUE(crt.ok());
  SignParams params{.scheme = SignScheme::kRsaPkcs1, .digest = DigestAlg::kNone};
  auto split = SignOnOneThread(*crt, params, Bytes(250, 1));
  ASSERT_FALSE(split.ok());
  EXPECT_EQ(split.error().code, CKR_DATA_LEN_RANGE);
}

TEST(RsaCrt, RefusesNonRsaKeys) {
  auto key = PrivateKey::Generate(KeySpec{KeyType::kEcP256});
  ASSERT_TRUE(key.ok());
  auto crt = RsaCrtKey::Create(*key);
  ASSERT_FALSE(crt.ok());
  EXPECT_EQ(crt.error().code, CKR_KEY_TYPE_INCONSISTENT);
}

}  // namespace
}  // namespace signet::crypto
