// NSS (Firefox's, Thunderbird's and many servers' crypto library), unchanged,
// on signet: modutil registers libsignet-pkcs11.so in a fresh NSS database,
// certutil lists the token, then makes self-signed certificates whose key
// pairs (EC P-256 and RSA-2048) it generates on the token, signs on the
// token and stores there. The openssl tool checks each certificate's
// signature against the public key in it, and certutil -K lists the keys.
#include <gtest/gtest.h>

#include "module_fixture.h"

namespace signet::e2e {
namespace {

class Pkcs11NssTest : public DaemonTest {
 protected:
  ProgramResult Nss(const std::string& tool, std::vector<std::string> args) {
    args.insert(args.begin(), "/usr/bin/" + tool);
    return RunProgram(args, {{"SIGNET_SOCKET", socket_path()}});
  }
  std::string Db() const { return "sql:" + Path("nssdb"); }
};

TEST_F(Pkcs11NssTest, CertutilMakesSelfSignedCertificatesWithTokenKeys) {
  ASSERT_EQ(RunProgram({"/bin/mkdir", Path("nssdb")}).exit_code, 0);
  ProgramResult init = Nss("certutil", {"-N", "-d", Db(), "--empty-password"});
  ASSERT_EQ(init.exit_code, 0) << init.err;
  ProgramResult add =
      Nss("modutil", {"-dbdir", Db(), "-add", "signet", "-libfile", ModulePath(), "-force"});
  ASSERT_EQ(add.exit_code, 0) << add.out << add.err;
  ProgramResult tokens = Nss("certutil", {"-U", "-d", Db()});
  ASSERT_EQ(tokens.exit_code, 0) << tokens.err;
  EXPECT_NE(tokens.out.find(std::string("token: ") + kTokenLabel), std::string::npos) << tokens.out;

  WriteTextFile(Path("pin"), std::string(kUserPin) + "\n");
  WriteTextFile(Path("noise"), "nss needs some noise for its own rng seeding; any bytes do");
  struct KeyCase {
    std::string nickname;
    std::vector<std::string> key_args;
  };
  for (const KeyCase& c : {KeyCase{"nss-ec", {"-k", "ec", "-q", "nistp256"}},
                           KeyCase{"nss-rsa", {"-k", "rsa", "-g", "2048"}}}) {
    SCOPED_TRACE(c.nickname);
    std::vector<std::string> args = {
        "-S", "-d",         Db(), "-h", kTokenLabel, "-f", Path("pin"), "-s", "CN=" + c.nickname,
        "-n", c.nickname,   "-x", "-t", "C,,",       "-Z", "SHA256",    "-v", "12",
        "-z", Path("noise")};
    args.insert(args.end(), c.key_args.begin(), c.key_args.end());
    ProgramResult made = Nss("certutil", args);
    ASSERT_EQ(made.exit_code, 0) << made.out << made.err;

    ProgramResult cert = Nss("certutil", {"-L", "-d", Db(), "-h", kTokenLabel, "-f", Path("pin"),
                                          "-n", std::string(kTokenLabel) + ":" + c.nickname, "-a"});
    ASSERT_EQ(cert.exit_code, 0) << cert.err;
    std::string pem = Path(c.nickname + ".pem");
    WriteTextFile(pem, cert.out);
    ProgramResult verify = OpenSsl({"verify", "-CAfile", pem, pem});
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
    EXPECT_NE(verify.out.find(": OK"), std::string::npos) << verify.out;
  }
  ProgramResult keys = Nss("certutil", {"-K", "-d", Db(), "-h", kTokenLabel, "-f", Path("pin")});
  ASSERT_EQ(keys.exit_code, 0) << keys.err;
  EXPECT_NE(keys.out.find(std::string(kTokenLabel) + ":nss-ec"), std::string::npos) << keys.out;
  EXPECT_NE(keys.out.find(std::string(kTokenLabel) + ":nss-rsa"), std::string::npos) << keys.out;
}

}  // namespace
}  // namespace signet::e2e
