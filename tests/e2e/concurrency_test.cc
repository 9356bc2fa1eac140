// Many clients at once: 64 connections, each with its own session, sign 50
// times each with one shared token RSA-2048 key. Every signature must come
// back and verify, in-process and (a sample) with the openssl tool.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "key_helpers.h"

namespace signet::e2e {
namespace {

constexpr int kClients = 64;
constexpr int kSignsPerClient = 50;
constexpr const char* kKeyLabel = "shared-rsa";

const crypto::SignParams kRsaSha256{crypto::SignScheme::kRsaPkcs1, crypto::DigestAlg::kSha256};

std::string Message(int client, int n) {
  return "client " + std::to_string(client) + " message " + std::to_string(n);
}

// ClientOutcome: what one client thread got back.
struct ClientOutcome {
  std::vector<client::Bytes> signatures;  // index = message number
  std::string failure;                    // first error, empty when none
};

// SignAll: odd clients pipeline all their requests before waiting for any;
// even clients call the blocking Sign, so both forms are exercised under load.
void SignAll(DaemonTest* test, int index, ClientOutcome* outcome) {
  Result<UserSession> user = test->OpenUserSession();
  if (!user.ok()) {
    outcome->failure = "open: " + user.error().message;
    return;
  }
  auto keys = FindByLabel(*user, kKeyLabel, CKO_PRIVATE_KEY);
  if (!keys.ok() || keys->size() != 1) {
    outcome->failure = "key not found";
    return;
  }
  client::Handle key = keys->front();
  client::Mechanism mechanism{CKM_SHA256_RSA_PKCS};
  outcome->signatures.resize(kSignsPerClient);
  std::vector<client::Pending<client::Bytes>> pending;
  for (int n = 0; n < kSignsPerClient; ++n) {
    client::Bytes message = ToBytes(Message(index, n));
    if (index % 2 == 0) {
      auto signature = user->client->Sign(user->session, key, mechanism, message);
      if (!signature.ok()) {
        outcome->failure = signature.error().message;
        return;
      }
      outcome->signatures[n] = std::move(*signature);
    } else {
      auto ticket = user->client->SendSign(user->session, key, mechanism, message);
      if (!ticket.ok()) {
        outcome->failure = ticket.error().message;
        return;
      }
      pending.push_back(*ticket);
    }
  }
  for (int n = 0; n < static_cast<int>(pending.size()); ++n) {
    auto signature = user->client->Wait(pending[n]);
    if (!signature.ok()) {
      outcome->failure = signature.error().message;
      return;
    }
    outcome->signatures[n] = std::move(*signature);
  }
}

class ConcurrencyTest : public DaemonTest {};

TEST_F(ConcurrencyTest, SixtyFourClientsSignFiftyTimesEachAndAllVerify) {
  auto owner = OpenUserSession();
  ASSERT_TRUE(owner.ok()) << owner.error().message;
  auto pair = GenerateKeyPair(*owner, "rsa:2048", kKeyLabel, /*token=*/true);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  auto public_key = ReadPublicKey(*owner, pair->public_key);
  ASSERT_TRUE(public_key.ok()) << public_key.error().message;

  std::vector<ClientOutcome> outcomes(kClients);
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back(SignAll, this, i, &outcomes[i]);
  }
  for (std::thread& thread : threads) thread.join();

  int verified = 0;
  for (int i = 0; i < kClients; ++i) {
    ASSERT_EQ(outcomes[i].failure, "") << "client " << i;
    ASSERT_EQ(outcomes[i].signatures.size(), static_cast<std::size_t>(kSignsPerClient));
    for (int n = 0; n < kSignsPerClient; ++n) {
      Status ok = crypto::Verify(*public_key, kRsaSha256,
                                 AsBytes(Message(i, n)), outcomes[i].signatures[n]);
      EXPECT_TRUE(ok.ok()) << "client " << i << " message " << n;
      verified += ok.ok();
    }
  }
  EXPECT_EQ(verified, kClients * kSignsPerClient);

  // An independent verifier for a sample: one signature from every eighth
  // client, through the openssl tool.
  auto pem = public_key->ToPem();
  ASSERT_TRUE(pem.ok());
  WriteTextFile(Path("pub.pem"), *pem);
  for (int i = 0; i < kClients; i += 8) {
    int n = i % kSignsPerClient;
    WriteTextFile(Path("msg"), Message(i, n));
    const client::Bytes& sig = outcomes[i].signatures[n];
    WriteTextFile(Path("sig"), std::string(sig.begin(), sig.end()));
    ProgramResult check = OpenSsl({"dgst", "-sha256", "-verify", Path("pub.pem"), "-signature",
                                   Path("sig"), Path("msg")});
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  }
}

TEST_F(ConcurrencyTest, SignBatchSignsEveryInputInOneRequest) {
  auto user = OpenUserSession();
  ASSERT_TRUE(user.ok()) << user.error().message;
  auto pair = GenerateKeyPair(*user, "ec:p256", "batch", /*token=*/false);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  auto public_key = ReadPublicKey(*user, pair->public_key);
  ASSERT_TRUE(public_key.ok());
  std::vector<client::Bytes> inputs;
  for (int n = 0; n < 100; ++n) inputs.push_back(ToBytes(Message(0, n)));
  auto results = user->client->SignBatch(user->session, pair->private_key,
                                         client::Mechanism{CKM_ECDSA_SHA256}, inputs);
  ASSERT_TRUE(results.ok()) << results.error().message;
  ASSERT_EQ(results->size(), inputs.size());
  crypto::SignParams raw_ecdsa{crypto::SignScheme::kEcdsa, crypto::DigestAlg::kSha256};
  raw_ecdsa.ecdsa_format = crypto::EcdsaFormat::kRaw;
  for (std::size_t n = 0; n < inputs.size(); ++n) {
    ASSERT_TRUE((*results)[n].ok()) << n;
    EXPECT_TRUE(crypto::Verify(*public_key, raw_ecdsa, inputs[n], *(*results)[n]).ok()) << n;
  }
}

}  // namespace
}  // namespace signet::e2e
