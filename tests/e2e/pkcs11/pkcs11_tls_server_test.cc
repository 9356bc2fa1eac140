// A TLS server whose private key never leaves signet, with real servers
// and clients no one here wrote. `openssl s_server` loads its key through
// OpenSSL's pkcs11 engine (libp11) and the module; GnuTLS's `gnutls-serv`
// loads it through the module directly (--provider). `openssl s_client`
// and `gnutls-cli` handshake and check the certificate, which the engine
// also signed with signet's key. RSA serves TLS 1.3 (RSA-PSS signatures)
// and TLS 1.2 with the RSA key exchange (the client encrypts the premaster
// secret to the public key; signet decrypts it, CKM_RSA_PKCS); ECDSA serves
// TLS 1.3 and TLS 1.2 ECDHE-ECDSA.
//
// The RSA key exchange runs under gnutls-serv: with Debian 12's libp11
// 0.4.12 and OpenSSL 3.0, s_server hands the engine a padding mode it does
// not know (RSA_PKCS1_WITH_TLS_PADDING) and fails the handshake with any
// PKCS#11 module, SoftHSMv2's included (docs/PKCS11.md "TLS servers").
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "daemon/daemon_process.h"
#include "tools_fixture.h"

namespace signet::e2e {
namespace {

class TlsServerTest : public ToolsTest {
 protected:
  // KeyUri: the engine's name for the private key labelled `label`.
  static std::string KeyUri(const std::string& label) {
    return std::string("pkcs11:token=") + kTokenLabel + ";object=" + label +
           ";type=private?pin-value=" + kUserPin;
  }

  // Certify writes Path(label + ".crt"): a self-signed certificate for
  // 127.0.0.1 whose signature the engine makes with signet's key.
  void Certify(const std::string& label) {
    ProgramResult req = Tool(
        OpenSslPath(), {"req", "-new", "-x509", "-engine", "pkcs11", "-keyform", "engine", "-key",
                        KeyUri(label), "-subj", "/CN=signet-tls-test", "-addext",
                        "subjectAltName=IP:127.0.0.1", "-days", "2", "-out", Path(label + ".crt")});
    ASSERT_EQ(req.exit_code, 0) << req.out << req.err;
  }

  // Serve starts `openssl s_server -www` on an ephemeral port with the
  // engine key `label`, for `connections` handshakes, and returns the port
  // it printed. s_server prints its ACCEPT line on stdout: the shell moves
  // it to stderr, where DaemonProcess waits for it.
  std::string Serve(const std::string& label, int connections) {
    daemon::DaemonStartOptions options;
    options.ready_line = "ACCEPT 127.0.0.1:";
    std::vector<std::string> argv = {"/bin/sh",
                                     "-c",
                                     "exec \"$@\" >&2",
                                     "sh",
                                     "/usr/bin/env",
                                     "SIGNET_SOCKET=" + socket_path(),
                                     "PKCS11_MODULE_PATH=" + ModulePath(),
                                     OpenSslPath(),
                                     "s_server",
                                     "-engine",
                                     "pkcs11",
                                     "-keyform",
                                     "engine",
                                     "-key",
                                     KeyUri(label),
                                     "-cert",
                                     Path(label + ".crt"),
                                     "-accept",
                                     "127.0.0.1:0",
                                     "-naccept",
                                     std::to_string(connections),
                                     "-www"};
    Status started = server_.StartProgram(std::move(argv), options);
    EXPECT_TRUE(started.ok()) << started.error().message;
    if (!started.ok()) return "";
    const std::string log = server_.log();
    const std::size_t at = log.find(options.ready_line) + options.ready_line.size();
    return log.substr(at, log.find_first_not_of("0123456789", at) - at);
  }

  // ServeWithGnutls starts `gnutls-serv --http` with the key
  // `label` through the module and returns its port. gnutls-serv cannot
  // report a port it chose, so the test picks one the kernel just handed
  // out (bound and released).
  std::string ServeWithGnutls(const std::string& label) {
    const std::string port = std::to_string(UnusedPort());
    daemon::DaemonStartOptions options;
    options.ready_line = "port " + port + "...done";
    std::vector<std::string> argv = {"/usr/bin/env",
                                     "SIGNET_SOCKET=" + socket_path(),
                                     "/usr/bin/gnutls-serv",
                                     "--provider",
                                     ModulePath(),
                                     "--x509keyfile",
                                     KeyUri(label),
                                     "--x509certfile",
                                     Path(label + ".crt"),
                                     "--port",
                                     port,
                                     "--http"};
    Status started = server_.StartProgram(std::move(argv), options);
    EXPECT_TRUE(started.ok()) << started.error().message;
    return started.ok() ? port : "";
  }

  static int UnusedPort() {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
                    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
    close(fd);
    EXPECT_TRUE(ok);
    return ok ? ntohs(addr.sin_port) : 0;
  }

  // SClient handshakes with `openssl s_client` (extra: version and cipher
  // options), checks the certificate against Path(label + ".crt") and asks
  // for s_server's status page; returns what it printed.
  ProgramResult SClient(const std::string& port, const std::string& label,
                        std::vector<std::string> extra) {
    std::vector<std::string> argv = {OpenSslPath(),       "s_client",  "-connect",
                                     "127.0.0.1:" + port, "-CAfile",   Path(label + ".crt"),
                                     "-verify_ip",        "127.0.0.1", "-verify_return_error",
                                     "-ign_eof",          "-brief"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return RunProgram(argv, {}, "GET / HTTP/1.0\r\n\r\n");
  }

  // GnutlsCli handshakes with gnutls-cli under `priority`, verifying the
  // certificate against Path(label + ".crt").
  ProgramResult GnutlsCli(const std::string& port, const std::string& label,
                          const std::string& priority) {
    return RunProgram({"/usr/bin/gnutls-cli", "127.0.0.1", "-p", port, "--x509cafile",
                       Path(label + ".crt"), "--priority", priority},
                      {}, "GET / HTTP/1.0\r\n\r\n");
  }

  // ServerExit waits for s_server to end by itself after its last
  // connection (-naccept) and returns its exit status.
  int ServerExit() {
    server_.WaitForLog([](const std::string&) { return false; }, std::chrono::seconds(60));
    return server_.Terminate();
  }

  daemon::DaemonProcess server_;
};

TEST_F(TlsServerTest, RsaKeySignsTls13AndTls12HandshakesThroughTheEngine) {
  GenerateAndExport("rsa:2048", "tls-rsa", "a1", {"--usage-sign", "--usage-decrypt"});
  Certify("tls-rsa");
  const std::string port = Serve("tls-rsa", 3);
  ASSERT_FALSE(port.empty()) << server_.log();
  // TLS 1.3: the server signs the handshake with RSA-PSS.
  ProgramResult tls13 = SClient(port, "tls-rsa", {"-tls1_3"});
  EXPECT_EQ(tls13.exit_code, 0) << tls13.out << tls13.err;
  EXPECT_NE(tls13.err.find("Protocol version: TLSv1.3"), std::string::npos) << tls13.err;
  EXPECT_NE(tls13.err.find("Signature type: RSA-PSS"), std::string::npos) << tls13.err;
  // TLS 1.2 ECDHE-RSA: a PKCS#1 v1.5 or PSS signature over the key share.
  ProgramResult tls12 =
      SClient(port, "tls-rsa", {"-tls1_2", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256"});
  EXPECT_EQ(tls12.exit_code, 0) << tls12.out << tls12.err;
  EXPECT_NE(tls12.err.find("Ciphersuite: ECDHE-RSA-AES128-GCM-SHA256"), std::string::npos)
      << tls12.err;
  EXPECT_NE(tls12.out.find("Cipher is ECDHE-RSA-AES128-GCM-SHA256"), std::string::npos)
      << tls12.out;
  ProgramResult gnutls = GnutlsCli(port, "tls-rsa", "NORMAL:-VERS-ALL:+VERS-TLS1.3");
  EXPECT_EQ(gnutls.exit_code, 0) << gnutls.out << gnutls.err;
  EXPECT_NE(gnutls.out.find("(TLS1.3-X.509)-(ECDHE-SECP256R1)-(RSA-PSS"), std::string::npos)
      << gnutls.out;
  EXPECT_EQ(ServerExit(), 0) << server_.log();
}

// TLS 1.2 with the RSA key exchange: the server's only private-key
// operation is the CKM_RSA_PKCS decryption of the client's premaster
// secret; a wrong decryption fails the handshake (the Finished messages
// disagree).
TEST_F(TlsServerTest, RsaKeyDecryptsTheTls12PremasterSecret) {
  GenerateAndExport("rsa:2048", "tls-kex", "a3", {"--usage-sign", "--usage-decrypt"});
  Certify("tls-kex");
  const std::string port = ServeWithGnutls("tls-kex");
  ASSERT_FALSE(port.empty()) << server_.log();
  ProgramResult openssl = SClient(port, "tls-kex", {"-tls1_2", "-cipher", "AES128-GCM-SHA256"});
  EXPECT_EQ(openssl.exit_code, 0) << openssl.out << openssl.err;
  EXPECT_NE(openssl.err.find("Protocol version: TLSv1.2"), std::string::npos) << openssl.err;
  EXPECT_NE(openssl.err.find("Ciphersuite: AES128-GCM-SHA256"), std::string::npos) << openssl.err;
  EXPECT_NE(openssl.out.find("HTTP/1.0 200 OK"), std::string::npos) << openssl.out;
  ProgramResult gnutls = GnutlsCli(port, "tls-kex", "NORMAL:-VERS-ALL:+VERS-TLS1.2:-KX-ALL:+RSA");
  EXPECT_EQ(gnutls.exit_code, 0) << gnutls.out << gnutls.err;
  EXPECT_NE(gnutls.out.find("(TLS1.2-X.509)-(RSA)-"), std::string::npos) << gnutls.out;
  EXPECT_NE(gnutls.out.find("Handshake was completed"), std::string::npos) << gnutls.out;
  server_.Kill();
}

TEST_F(TlsServerTest, EcdsaKeyServesTls13AndTls12) {
  GenerateAndExport("EC:prime256v1", "tls-ec", "a2");
  Certify("tls-ec");
  const std::string port = Serve("tls-ec", 3);
  ASSERT_FALSE(port.empty()) << server_.log();
  ProgramResult tls13 = SClient(port, "tls-ec", {"-tls1_3"});
  EXPECT_EQ(tls13.exit_code, 0) << tls13.out << tls13.err;
  EXPECT_NE(tls13.err.find("Signature type: ECDSA"), std::string::npos) << tls13.err;
  ProgramResult tls12 =
      SClient(port, "tls-ec", {"-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"});
  EXPECT_EQ(tls12.exit_code, 0) << tls12.out << tls12.err;
  EXPECT_NE(tls12.err.find("Ciphersuite: ECDHE-ECDSA-AES128-GCM-SHA256"), std::string::npos)
      << tls12.err;
  ProgramResult gnutls = GnutlsCli(port, "tls-ec", "NORMAL");
  EXPECT_EQ(gnutls.exit_code, 0) << gnutls.out << gnutls.err;
  EXPECT_NE(gnutls.out.find("Handshake was completed"), std::string::npos) << gnutls.out;
  EXPECT_EQ(ServerExit(), 0) << server_.log();
}

}  // namespace
}  // namespace signet::e2e
