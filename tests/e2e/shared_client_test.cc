// One Client shared by many threads (the PKCS#11 module's model: one
// connection per application, handles valid in all its sessions): 16
// threads, each with its own session on the SAME Client, sign 100 times
// each with one token RSA-2048 key whose handle another thread found; every
// signature verifies independently (crypto::Verify on the public key read
// back). The same over TLS (one SSL object shared by sender and reader
// threads). A daemon killed under waiting threads wakes all of them with an
// error instead of hanging them.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "key_helpers.h"

namespace signet::e2e {
namespace {

constexpr int kThreads = 16;
constexpr int kSignsPerThread = 100;
constexpr const char* kKeyLabel = "shared-client-rsa";

const crypto::SignParams kRsaSha256{crypto::SignScheme::kRsaPkcs1, crypto::DigestAlg::kSha256};

std::string Message(int thread, int n) {
  return "thread " + std::to_string(thread) + " message " + std::to_string(n);
}

// ThreadOutcome: what one thread got back.
struct ThreadOutcome {
  std::vector<client::Bytes> signatures;  // index = message number
  std::string failure;                    // first error, empty when none
};

// SignAll opens this thread's own session on the shared client and signs
// with `key` (a handle found in another session). Odd threads pipeline all
// requests before waiting; even threads call the blocking Sign.
void SignAll(client::Client* shared, CK_SLOT_ID slot, client::Handle key, int index,
             ThreadOutcome* outcome) {
  auto session = shared->OpenSession(slot);
  if (!session.ok()) {
    outcome->failure = "open: " + session.error().message;
    return;
  }
  client::Mechanism mechanism{CKM_SHA256_RSA_PKCS};
  outcome->signatures.resize(kSignsPerThread);
  std::vector<client::Pending<client::Bytes>> pending;
  for (int n = 0; n < kSignsPerThread; ++n) {
    client::Bytes message = ToBytes(Message(index, n));
    if (index % 2 == 0) {
      auto signature = shared->Sign(*session, key, mechanism, message);
      if (!signature.ok()) {
        outcome->failure = signature.error().message;
        return;
      }
      outcome->signatures[n] = std::move(*signature);
      continue;
    }
    auto ticket = shared->SendSign(*session, key, mechanism, message);
    if (!ticket.ok()) {
      outcome->failure = ticket.error().message;
      return;
    }
    pending.push_back(*ticket);
  }
  for (std::size_t n = 0; n < pending.size(); ++n) {
    auto signature = shared->Wait(pending[n]);
    if (!signature.ok()) {
      outcome->failure = signature.error().message;
      return;
    }
    outcome->signatures[n] = std::move(*signature);
  }
  Status closed = shared->CloseSession(*session);
  if (!closed.ok()) outcome->failure = "close: " + closed.error().message;
}

class SharedClientTest : public DaemonTest {};

TEST_F(SharedClientTest, SixteenThreadsShareOneClientAndHandlesCrossSessions) {
  auto owner = OpenUserSession();  // login is per connection: covers all sessions
  ASSERT_TRUE(owner.ok()) << owner.error().message;
  auto pair = GenerateKeyPair(*owner, "rsa:2048", kKeyLabel, /*token=*/true);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  auto public_key = ReadPublicKey(*owner, pair->public_key);
  ASSERT_TRUE(public_key.ok()) << public_key.error().message;

  // The key as a thread finds it in its own session: same handle as the
  // one the owner session generated, usable from every other session.
  client::Handle found = 0;
  std::thread finder([&] {
    auto session = owner->client->OpenSession(owner->slot);
    ASSERT_TRUE(session.ok()) << session.error().message;
    auto keys = owner->client->FindObjects(
        *session, {client::StringAttribute(CKA_LABEL, kKeyLabel),
                   client::UlongAttribute(CKA_CLASS, CKO_PRIVATE_KEY)});
    ASSERT_TRUE(keys.ok()) << keys.error().message;
    ASSERT_EQ(keys->size(), 1u);
    found = keys->front();
  });
  finder.join();
  ASSERT_EQ(found, pair->private_key);

  std::vector<ThreadOutcome> outcomes(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back(SignAll, owner->client.get(), owner->slot, found, t, &outcomes[t]);
  }
  for (std::thread& thread : threads) thread.join();

  for (int t = 0; t < kThreads; ++t) {
    ASSERT_TRUE(outcomes[t].failure.empty()) << "thread " << t << ": " << outcomes[t].failure;
    for (int n = 0; n < kSignsPerThread; ++n) {
      client::Bytes message = ToBytes(Message(t, n));
      Status verified = crypto::Verify(*public_key, kRsaSha256, message, outcomes[t].signatures[n]);
      ASSERT_TRUE(verified.ok()) << "thread " << t << " signature " << n;
    }
  }
  EXPECT_EQ(owner->client->in_flight(), 0u);
}

TEST_F(SharedClientTest, SessionObjectMadeByOneThreadSignsInAnotherThreadsSession) {
  auto owner = OpenUserSession();
  ASSERT_TRUE(owner.ok()) << owner.error().message;
  client::Handle key = 0;
  std::unique_ptr<crypto::PublicKey> public_key;
  std::thread maker([&] {
    auto pair = GenerateKeyPair(*owner, "ec:p256", "session-ec", /*token=*/false);
    ASSERT_TRUE(pair.ok()) << pair.error().message;
    auto read = ReadPublicKey(*owner, pair->public_key);
    ASSERT_TRUE(read.ok()) << read.error().message;
    public_key = std::make_unique<crypto::PublicKey>(std::move(*read));
    key = pair->private_key;
  });
  maker.join();
  ASSERT_NE(key, 0u);

  client::Bytes message = ToBytes("signed in a second session");
  client::Bytes signature;
  std::thread signer([&] {
    auto session = owner->client->OpenSession(owner->slot);
    ASSERT_TRUE(session.ok()) << session.error().message;
    auto signed_bytes =
        owner->client->Sign(*session, key, client::Mechanism{CKM_ECDSA_SHA256}, message);
    ASSERT_TRUE(signed_bytes.ok()) << signed_bytes.error().message;
    signature = std::move(*signed_bytes);
  });
  signer.join();
  crypto::SignParams params{crypto::SignScheme::kEcdsa, crypto::DigestAlg::kSha256};
  params.ecdsa_format = crypto::EcdsaFormat::kRaw;
  EXPECT_TRUE(crypto::Verify(*public_key, params, message, signature).ok());
}

// SharedTlsClientTest: the daemon on 127.0.0.1 with TLS 1.3 and client
// certificates from a CA made with the openssl tool.
class SharedTlsClientTest : public DaemonTest {
 protected:
  std::vector<std::string> DaemonArgs() override { return TlsTestPki(); }
};

TEST_F(SharedTlsClientTest, SixteenThreadsShareOneTlsClient) {
  const int port = TcpPort();
  ASSERT_GT(port, 0);
  client::ConnectOptions options;
  options.address = "tcp://127.0.0.1:" + std::to_string(port);
  options.tls_ca_file = Path("ca.pem");
  options.tls_cert_file = Path("client.pem");
  options.tls_key_file = Path("client.key");
  auto connected = client::Client::Connect(options);
  ASSERT_TRUE(connected.ok()) << connected.error().message;
  UserSession owner{std::move(*connected), 0, 0};
  auto info = owner.client->GetInfo();
  ASSERT_TRUE(info.ok()) << info.error().message;
  owner.slot = info->slots.front().slot_id;
  auto session = owner.client->OpenSession(owner.slot);
  ASSERT_TRUE(session.ok()) << session.error().message;
  owner.session = *session;
  client::Bytes pin = ToBytes(kUserPin);
  ASSERT_TRUE(owner.client->Login(owner.session, CKU_USER, pin).ok());
  auto pair = GenerateKeyPair(owner, "rsa:2048", kKeyLabel, /*token=*/false);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  auto public_key = ReadPublicKey(owner, pair->public_key);
  ASSERT_TRUE(public_key.ok()) << public_key.error().message;

  std::vector<ThreadOutcome> outcomes(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back(SignAll, owner.client.get(), owner.slot, pair->private_key, t,
                         &outcomes[t]);
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_TRUE(outcomes[t].failure.empty()) << "thread " << t << ": " << outcomes[t].failure;
    for (int n = 0; n < kSignsPerThread; ++n) {
      Status verified = crypto::Verify(*public_key, kRsaSha256, ToBytes(Message(t, n)),
                                       outcomes[t].signatures[n]);
      ASSERT_TRUE(verified.ok()) << "thread " << t << " signature " << n;
    }
  }
}

TEST_F(SharedClientTest, KilledDaemonWakesEveryWaitingThreadWithAnError) {
  auto owner = OpenUserSession();
  ASSERT_TRUE(owner.ok()) << owner.error().message;
  auto pair = GenerateKeyPair(*owner, "rsa:2048", kKeyLabel, /*token=*/true);
  ASSERT_TRUE(pair.ok()) << pair.error().message;

  // Each thread keeps signing until its connection fails; the main thread
  // kills the daemon once every thread has had a signature back, so some
  // are waiting (or reading) at that moment. The test passing = no hang.
  std::atomic<int> started{0};
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      bool counted = false;
      for (;;) {
        auto signature = owner->client->Sign(owner->session, pair->private_key,
                                             client::Mechanism{CKM_SHA256_RSA_PKCS},
                                             ToBytes(Message(t, 0)));
        if (!signature.ok()) {
          errors[t] = signature.error().message;
          return;
        }
        if (!counted) started.fetch_add(1);
        counted = true;
      }
    });
  }
  while (started.load() < kThreads) std::this_thread::yield();
  daemon_.Kill();
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_FALSE(errors[t].empty()) << "thread " << t;
  // Every later call fails the same way at once.
  EXPECT_FALSE(owner->client->GetInfo().ok());
}

}  // namespace
}  // namespace signet::e2e
