// Which signatures the daemon runs on its event loop instead of waking a
// worker (rpc::Connection::HandleFrame), read from GetStats'
// ran_on_event_loop: a client signing with P-256 one request at a time gets
// them there (a worker's wake-up costs about as much as the signature);
// RSA-2048 signatures, several times longer, always go to a worker. Every
// signature verifies.
#include <gtest/gtest.h>

#include "key_helpers.h"

namespace signet::e2e {
namespace {

constexpr int kSignatures = 20;

class EventLoopTest : public DaemonTest {
 protected:
  // SignSequentially signs kSignatures messages one at a time with a fresh
  // key of `spec`, verifies each, and returns how many ran on the event loop.
  std::uint64_t SignSequentially(const std::string& spec, CK_MECHANISM_TYPE mechanism,
                                 const crypto::SignParams& verify_params) {
    auto user = OpenUserSession();
    EXPECT_TRUE(user.ok()) << user.error().message;
    if (!user.ok()) return 0;
    auto pair = GenerateKeyPair(*user, spec, "event-loop", /*token=*/false);
    EXPECT_TRUE(pair.ok()) << pair.error().message;
    if (!pair.ok()) return 0;
    auto public_key = ReadPublicKey(*user, pair->public_key);
    EXPECT_TRUE(public_key.ok());
    auto before = user->client->GetStats();
    EXPECT_TRUE(before.ok());
    for (int n = 0; n < kSignatures; ++n) {
      client::Bytes message = ToBytes("message " + std::to_string(n));
      auto signature = user->client->Sign(user->session, pair->private_key,
                                          client::Mechanism{mechanism}, message);
      EXPECT_TRUE(signature.ok()) << signature.error().message;
      if (signature.ok() && public_key.ok()) {
        EXPECT_TRUE(crypto::Verify(*public_key, verify_params, message, *signature).ok()) << n;
      }
    }
    auto after = user->client->GetStats();
    EXPECT_TRUE(after.ok());
    if (!before.ok() || !after.ok()) return 0;
    return after->ran_on_event_loop - before->ran_on_event_loop;
  }
};

TEST_F(EventLoopTest, ShortSignaturesOfASequentialClientRunOnTheEventLoop) {
  // The first goes to a worker (no timing known yet), and a worker may
  // still be finishing its bookkeeping when the next request arrives; the
  // rest run on the loop.
  EXPECT_GE(SignSequentially("ec:p256", CKM_ECDSA_SHA256,
                             {.scheme = crypto::SignScheme::kEcdsa,
                              .digest = crypto::DigestAlg::kSha256,
                              .ecdsa_format = crypto::EcdsaFormat::kRaw}),
            static_cast<std::uint64_t>(kSignatures / 2));
}

TEST_F(EventLoopTest, RsaSignaturesGoToWorkers) {
  EXPECT_EQ(SignSequentially("rsa:2048", CKM_SHA256_RSA_PKCS,
                             {crypto::SignScheme::kRsaPkcs1, crypto::DigestAlg::kSha256}),
            0u);
}

}  // namespace
}  // namespace signet::e2e
