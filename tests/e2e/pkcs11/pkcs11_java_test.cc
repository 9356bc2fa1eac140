// Java, unchanged, on signet: the JDK's SunPKCS11 provider loads
// libsignet-pkcs11.so, logs in, makes EC P-256 and RSA-2048 key pairs on the
// token and signs through java.security.Signature (java/SignetJavaProbe.java,
// run with the JDK's source launcher). Every signature is then checked by
// the openssl tool with the public key Java read back from the token.
#include <gtest/gtest.h>

#include "module_fixture.h"

namespace signet::e2e {
namespace {

using Pkcs11JavaTest = DaemonTest;

TEST_F(Pkcs11JavaTest, SunPkcs11GeneratesAndSignsAndOpensslVerifies) {
  ProgramResult java =
      RunProgram({"/usr/bin/java", SIGNET_JAVA_PROBE, ModulePath(), kUserPin, dir_.path()},
                 {{"SIGNET_SOCKET", socket_path()}});
  ASSERT_EQ(java.exit_code, 0) << java.out << java.err;
  EXPECT_NE(java.out.find("EC key pair made on the token, signed, verified by SunEC"),
            std::string::npos)
      << java.out;
  EXPECT_NE(java.out.find("RSA key pair made on the token, signed, verified by SunRsaSign"),
            std::string::npos)
      << java.out;
  for (const std::string key : {"EC", "RSA"}) {
    ProgramResult verify =
        OpenSsl({"dgst", "-sha256", "-verify", Path(key + ".pub.der"), "-keyform", "DER",
                 "-signature", Path(key + ".sig"), Path(key + ".msg")});
    EXPECT_EQ(verify.exit_code, 0) << key << ": " << verify.out << verify.err;
    EXPECT_NE(verify.out.find("Verified OK"), std::string::npos) << verify.out;
  }
}

}  // namespace
}  // namespace signet::e2e
