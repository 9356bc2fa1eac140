// The client library's TLS transport and the CLI over TCP (tls_test.cc covers
// the daemon's side): a test PKI made with the openssl tool, a daemon on
// 127.0.0.1 (port 0, read back from its log), pipelining through TLS
// records, and the checks the client itself must make on the daemon.
#include <gtest/gtest.h>

#include "key_helpers.h"

namespace signet::e2e {
namespace {

class TlsClientTest : public DaemonTest {
 protected:
  std::vector<std::string> DaemonArgs() override { return TlsTestPki(); }

  void SetUp() override {
    DaemonTest::SetUp();
    port_ = TcpPort();
    ASSERT_GT(port_, 0);
  }

  client::ConnectOptions Options(const std::string& cert = "client") {
    client::ConnectOptions options;
    options.address = "tcp://127.0.0.1:" + std::to_string(port_);
    options.tls_ca_file = Path("ca.pem");
    if (!cert.empty()) {
      options.tls_cert_file = Path(cert + ".pem");
      options.tls_key_file = Path(cert + ".key");
    }
    return options;
  }

  // Refused: the connection fails at the handshake or at the first call.
  ::testing::AssertionResult Refused(const client::ConnectOptions& options) {
    auto connected = client::Client::Connect(options);
    if (!connected.ok()) {
      return ::testing::AssertionSuccess() << connected.error().message;
    }
    auto info = (*connected)->GetInfo();
    if (!info.ok()) return ::testing::AssertionSuccess() << info.error().message;
    return ::testing::AssertionFailure() << "the daemon served the connection";
  }

  int port_ = 0;
};

TEST_F(TlsClientTest, PipelinedSignaturesThroughTls) {
  auto connected = client::Client::Connect(Options());
  ASSERT_TRUE(connected.ok()) << connected.error().message;
  UserSession user{std::move(*connected)};
  auto info = user.client->GetInfo();
  ASSERT_TRUE(info.ok()) << info.error().message;
  ASSERT_FALSE(info->slots.empty());
  user.slot = info->slots.front().slot_id;
  auto session = user.client->OpenSession(user.slot);
  ASSERT_TRUE(session.ok());
  user.session = *session;
  ASSERT_TRUE(user.client->Login(user.session, CKU_USER, ToBytes(kUserPin)).ok());
  auto pair = GenerateKeyPair(user, "ed25519", "over-tls", /*token=*/false);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  auto public_key = ReadPublicKey(user, pair->public_key);
  ASSERT_TRUE(public_key.ok());

  // Pipeline enough requests to fill TLS records and socket buffers.
  std::vector<client::Pending<client::Bytes>> pending;
  for (int n = 0; n < 300; ++n) {
    auto ticket = user.client->SendSign(user.session, pair->private_key,
                                        client::Mechanism{CKM_EDDSA},
                                        ToBytes("tls message " + std::to_string(n)));
    ASSERT_TRUE(ticket.ok());
    pending.push_back(*ticket);
  }
  for (int n = 0; n < 300; ++n) {
    auto signature = user.client->Wait(pending[n]);
    ASSERT_TRUE(signature.ok()) << signature.error().message;
    EXPECT_TRUE(crypto::Verify(*public_key, {crypto::SignScheme::kEddsa},
                               AsBytes("tls message " + std::to_string(n)), *signature)
                    .ok());
  }
}

TEST_F(TlsClientTest, CliReachesTheDaemonOverTcp) {
  ProgramResult random = RunProgram(
      {BinaryPath("signet"), "random", "--bytes", "16", "--socket",
       "tcp://127.0.0.1:" + std::to_string(port_), "--tls-ca", Path("ca.pem"), "--tls-cert",
       Path("client.pem"), "--tls-key", Path("client.key")});
  EXPECT_EQ(random.exit_code, 0) << random.err;
  EXPECT_EQ(random.out.size(), 33u) << random.out;
}

TEST_F(TlsClientTest, DaemonCertificateMustMatchTheName) {
  client::ConnectOptions options = Options();
  options.tls_server_name = "not-the-daemon.example";
  auto connected = client::Client::Connect(options);
  ASSERT_FALSE(connected.ok());
  EXPECT_EQ(connected.error().code, CKR_DEVICE_ERROR);
  EXPECT_NE(connected.error().message.find("TLS handshake"), std::string::npos)
      << connected.error().message;
}

TEST_F(TlsClientTest, DaemonCertificateMustChainToTheCa) {
  client::ConnectOptions options = Options();
  options.tls_ca_file = Path("other-ca.pem");
  auto connected = client::Client::Connect(options);
  ASSERT_FALSE(connected.ok());
  EXPECT_EQ(connected.error().code, CKR_DEVICE_ERROR);
}

TEST_F(TlsClientTest, DaemonKeepsServingAfterRefusals) {
  EXPECT_TRUE(Refused(Options("")));
  EXPECT_TRUE(Refused(Options("intruder")));
  auto connected = client::Client::Connect(Options());
  ASSERT_TRUE(connected.ok()) << connected.error().message;
  EXPECT_TRUE((*connected)->GetInfo().ok());
}

}  // namespace
}  // namespace signet::e2e
