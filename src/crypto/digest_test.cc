#include "crypto/digest.h"

#include <gtest/gtest.h>

#include "base/hex.h"

namespace signet::crypto {
namespace {

struct DigestVector {
  DigestAlg alg;
  const char* abc_hex;  // digest of "abc" (FIPS 180-4 examples, RFC 1321)
};

constexpr DigestVector kAbcVectors[] = {
    {DigestAlg::kMd5, "900150983cd24fb0d6963f7d28e17f72"},
    {DigestAlg::kSha1, "a9993e364706816aba3e25717850c26c9cd0d89d"},
    {DigestAlg::kSha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {DigestAlg::kSha384,
     "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca1"
     "34c825a7"},
    {DigestAlg::kSha512,
     "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23"
     "a3feebbd454d4423643ce80e2a9ac94fa54ca49f"},
};

TEST(Digest, KnownAnswersForAbc) {
  for (const auto& v : kAbcVectors) {
    auto digest = Digest(v.alg, AsBytes("abc"));
    ASSERT_TRUE(digest.ok()) << DigestName(v.alg);
    EXPECT_EQ(ToHex(*digest), v.abc_hex) << DigestName(v.alg);
    EXPECT_EQ(digest->size(), DigestSize(v.alg));
  }
}

// "abc" fed as "a", "", "bc": the same known answers.
TEST(Digest, MultiPartGivesTheSameAnswers) {
  for (const auto& v : kAbcVectors) {
    auto op = StartDigest(v.alg);
    ASSERT_TRUE(op.ok()) << DigestName(v.alg);
    for (const char* part : {"a", "", "bc"}) EXPECT_TRUE((*op)->Update(AsBytes(part))->empty());
    auto digest = (*op)->Finish();
    ASSERT_TRUE(digest.ok());
    EXPECT_EQ(ToHex(Bytes(digest->begin(), digest->end())), v.abc_hex) << DigestName(v.alg);
  }
  EXPECT_EQ(StartDigest(DigestAlg::kNone).error().code, CKR_MECHANISM_INVALID);
}

TEST(Digest, NoneIsNotADigest) {
  auto digest = Digest(DigestAlg::kNone, AsBytes("abc"));
  ASSERT_FALSE(digest.ok());
  EXPECT_EQ(digest.error().code, CKR_MECHANISM_INVALID);
}

}  // namespace
}  // namespace signet::crypto
