// How the module reaches signetd, seen from a host application that links
// no OpenSSL (pkcs11_module_probe): over the Unix socket the module loads
// neither libcrypto nor libssl into the host; over tcp:// it loads TLS
// (libsignet-tls.so, from the module's directory) on first use and works
// through it, with the daemon's certificate checked, and without the plugin
// it fails with an error that names it. Either way the probe's signature verifies under
// OpenSSL with the public key it read back.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "base/hex.h"
#include "ec_verify.h"
#include "module_fixture.h"

namespace signet::e2e {
namespace {

constexpr const char* kMessage = "signet module probe";

std::string ProbePath() { return std::string(SIGNET_BINARY_DIR) + "/tests/pkcs11_module_probe"; }

// ParseProbe splits the probe's output into its key=value lines.
std::map<std::string, std::string> ParseProbe(const std::string& out) {
  std::map<std::string, std::string> fields;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    auto eq = line.find('=');
    if (eq != std::string::npos) fields[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return fields;
}

// ExpectVerifiedSignature: the probe signed kMessage with a key whose
// public half it printed, and OpenSSL agrees.
void ExpectVerifiedSignature(const std::map<std::string, std::string>& fields) {
  ASSERT_TRUE(fields.count("ec_point") && fields.count("signature"));
  std::string pem = P256PointToPem(FromHex(fields.at("ec_point")).value_or(Bytes{}));
  ASSERT_FALSE(pem.empty());
  std::string message = kMessage;
  EXPECT_TRUE(VerifyEcdsaP256(pem, {message.begin(), message.end()},
                              FromHex(fields.at("signature")).value_or(Bytes{})));
}

using Pkcs11UnixTransportTest = DaemonTest;

TEST_F(Pkcs11UnixTransportTest, ModuleSignsWithoutLoadingOpenSslIntoTheHost) {
  ProgramResult probe = RunProgram({ProbePath(), ModulePath(), kUserPin, kMessage},
                                   {{"SIGNET_SOCKET", socket_path()}});
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  auto fields = ParseProbe(probe.out);
  EXPECT_EQ(fields["openssl_loaded_at_init"], "no");
  EXPECT_EQ(fields["openssl_loaded"], "no") << "the module pulled libcrypto/libssl into its host";
  ExpectVerifiedSignature(fields);
}

class Pkcs11TlsTransportTest : public DaemonTest {
 protected:
  std::vector<std::string> DaemonArgs() override { return TlsTestPki(); }

  // WriteConf writes a module config for the daemon's TCP port that trusts
  // `ca` and returns its path.
  std::string WriteConf(const std::string& ca) {
    std::string conf = Path(ca + "-pkcs11.conf");
    WriteTextFile(conf, "socket = tcp://127.0.0.1:" + std::to_string(TcpPort()) + "\ntls_ca = " +
                            Path(ca + ".pem") + "\ntls_cert = " + Path("client.pem") +
                            "\ntls_key = " + Path("client.key") + "\n");
    return conf;
  }
};

TEST_F(Pkcs11TlsTransportTest, ModuleLoadsTlsOnFirstUseAndSignsThroughIt) {
  ProgramResult probe = RunProgram({ProbePath(), ModulePath(), kUserPin, kMessage},
                                   {{"SIGNET_CONF", WriteConf("ca")}});
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  auto fields = ParseProbe(probe.out);
  EXPECT_EQ(fields["openssl_loaded_at_init"], "no");
  EXPECT_EQ(fields["openssl_loaded"], "yes");  // libsignet-tls.so brought it, when needed
  ExpectVerifiedSignature(fields);
}

TEST_F(Pkcs11TlsTransportTest, ModuleRefusesADaemonItsCaDidNotCertify) {
  ProgramResult probe = RunProgram({ProbePath(), ModulePath(), kUserPin, kMessage},
                                   {{"SIGNET_CONF", WriteConf("other-ca")}});
  EXPECT_EQ(probe.exit_code, 1);
  EXPECT_NE(probe.err.find("C_GetSlotList failed: CK_RV 0x30"), std::string::npos)
      << probe.err;  // CKR_DEVICE_ERROR
  EXPECT_NE(probe.err.find("certificate verify failed"), std::string::npos) << probe.err;
}

TEST_F(Pkcs11TlsTransportTest, ModuleWithoutItsTlsPluginSaysSoAndFailsCleanly) {
  // The module copied alone, without libsignet-tls.so beside it.
  std::string lonely = Path("libsignet-pkcs11.so");
  ProgramResult copy = RunProgram({"/bin/cp", ModulePath(), lonely});
  ASSERT_EQ(copy.exit_code, 0) << copy.err;
  ProgramResult probe =
      RunProgram({ProbePath(), lonely, kUserPin, kMessage}, {{"SIGNET_CONF", WriteConf("ca")}});
  EXPECT_EQ(probe.exit_code, 1);
  EXPECT_NE(probe.err.find("C_GetSlotList failed: CK_RV 0x30"), std::string::npos) << probe.err;
  EXPECT_NE(probe.err.find("libsignet-tls.so"), std::string::npos) << probe.err;
  EXPECT_EQ(ParseProbe(probe.out)["openssl_loaded_at_init"], "no");
}

}  // namespace
}  // namespace signet::e2e
