// signetd over TCP with TLS 1.3 and client certificates: certificates made
// by the openssl CLI, the daemon on 127.0.0.1 port 0, the client library
// connecting with and without an acceptable client certificate, and the
// openssl CLI as an independent client proving TLS 1.2 is refused.
#include <gtest/gtest.h>


#include "key_helpers.h"

namespace signet::e2e {
namespace {

class TlsTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    const std::string kCa = "basicConstraints=critical,CA:TRUE";
    MakeCertificate("ca", "", "ca test CA", kCa);
    MakeCertificate("rogue", "", "rogue test CA", kCa);
    MakeCertificate("server", "ca", "localhost", "subjectAltName=DNS:localhost,IP:127.0.0.1");
    MakeCertificate("client", "ca", "client", "extendedKeyUsage=clientAuth");
    MakeCertificate("intruder", "rogue", "intruder", "extendedKeyUsage=clientAuth");
    ASSERT_EQ(daemon_.Terminate(), 0);
    StartDaemon({"--listen", "127.0.0.1:0", "--tls-cert", Path("server.pem"), "--tls-key",
                 Path("server.key"), "--tls-client-ca", Path("ca.pem")});
    const int port = TcpPort();
    ASSERT_GT(port, 0);
    port_ = std::to_string(port);
  }

  Result<std::unique_ptr<client::Client>> ConnectTls(const std::string& cert) {
    client::ConnectOptions options;
    options.address = "tcp://127.0.0.1:" + port_;
    options.tls_ca_file = Path("ca.pem");
    options.tls_server_name = "localhost";
    if (!cert.empty()) {
      options.tls_cert_file = Path(cert + ".pem");
      options.tls_key_file = Path(cert + ".key");
    }
    options.timeout = std::chrono::seconds(20);
    return client::Client::Connect(options);
  }

  std::string port_;
};

TEST_F(TlsTest, ClientWithCertificateSigns) {
  auto client = ConnectTls("client");
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto info = (*client)->GetInfo();
  ASSERT_TRUE(info.ok()) << info.error().message;
  ASSERT_GE(info->slots.size(), 2u);
  UserSession user;
  user.client = std::move(*client);
  auto session = user.client->OpenSession(info->slots[0].slot_id);
  ASSERT_TRUE(session.ok()) << session.error().message;
  user.session = *session;
  ASSERT_TRUE(user.client->Login(user.session, CKU_USER, ToBytes(kUserPin)).ok());
  auto pair = GenerateKeyPair(user, "ed25519", "over-tls", /*token=*/false);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  auto sig = user.client->Sign(user.session, pair->private_key, client::Mechanism{CKM_EDDSA},
                               ToBytes("tls"));
  ASSERT_TRUE(sig.ok()) << sig.error().message;
  auto key = ReadPublicKey(user, pair->public_key);
  ASSERT_TRUE(key.ok());
  WriteTextFile(Path("ed.pem"), *key->ToPem());
  WriteTextFile(Path("msg"), "tls");
  WriteTextFile(Path("sig"), std::string(sig->begin(), sig->end()));
  auto verify = OpenSsl({"pkeyutl", "-verify", "-pubin", "-inkey", Path("ed.pem"), "-rawin", "-in",
                         Path("msg"), "-sigfile", Path("sig")});
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
}

TEST_F(TlsTest, ClientWithoutCertificateIsRefused) {
  auto client = ConnectTls("");
  if (client.ok()) {
    // TLS 1.3 may report the missing certificate only on the first read.
    EXPECT_FALSE((*client)->GetInfo().ok());
  }
  EXPECT_TRUE(daemon_.running());
}

TEST_F(TlsTest, ClientCertificateFromAnotherCaIsRefused) {
  auto client = ConnectTls("intruder");
  if (client.ok()) {
    EXPECT_FALSE((*client)->GetInfo().ok());
  }
  // The daemon keeps serving good clients.
  auto good = ConnectTls("client");
  ASSERT_TRUE(good.ok()) << good.error().message;
  EXPECT_TRUE((*good)->GetInfo().ok());
}

TEST_F(TlsTest, Tls12IsRefused) {
  auto handshake = [&](const std::string& version) {
    return OpenSsl({"s_client", "-connect", "127.0.0.1:" + port_, version, "-cert",
                    Path("client.pem"), "-key", Path("client.key"), "-CAfile", Path("ca.pem"),
                    "-verify_return_error"});
  };
  auto tls13 = handshake("-tls1_3");  // control: the same client gets in with 1.3
  EXPECT_EQ(tls13.exit_code, 0) << tls13.err;
  EXPECT_NE(tls13.out.find("TLSv1.3"), std::string::npos);
  auto tls12 = handshake("-tls1_2");
  EXPECT_NE(tls12.exit_code, 0) << tls12.out;
}

}  // namespace
}  // namespace signet::e2e
