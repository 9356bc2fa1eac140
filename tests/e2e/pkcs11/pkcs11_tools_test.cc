// The module driven by clients no one here wrote: OpenSC's pkcs11-tool
// (its own --test suite, key generation, signing, public key export),
// OpenSSL's pkcs11 engine (libp11), ssh-keygen -D and GnuTLS's p11tool.
// Every signature is checked by the openssl command-line tool.
#include <cstring>

#include "tools_fixture.h"

namespace signet::e2e {
namespace {

TEST_F(ToolsTest, PkcsToolSelfTestPasses) {
  // Keys first, so the self test exercises signing and verification too.
  GenerateAndExport("rsa:2048", "selftest-rsa", "41", {"--usage-sign", "--usage-decrypt"});
  GenerateAndExport("EC:prime256v1", "selftest-ec", "42");
  ProgramResult test = PkcsTool({"--test"});
  EXPECT_EQ(test.exit_code, 0) << test.out << test.err;
  EXPECT_NE(test.out.find("No errors"), std::string::npos) << test.out;
  EXPECT_NE(test.out.find("all 4 signature functions seem to work"), std::string::npos)
      << test.out;
  EXPECT_NE(test.out.find("SHA256-RSA-PKCS: OK"), std::string::npos) << test.out;
  EXPECT_NE(test.out.find("all 4 digest functions seem to work"), std::string::npos) << test.out;
  // Decryption: pkcs11-tool encrypts with its own OpenSSL to the public key
  // and decrypts through signet, OAEP with and without a label.
  const std::size_t decryption = test.out.find("Decryption (currently only for RSA)");
  ASSERT_NE(decryption, std::string::npos) << test.out;
  const std::string decrypt_part = test.out.substr(decryption);
  EXPECT_NE(decrypt_part.find("RSA-PKCS: OK"), std::string::npos) << test.out;
  EXPECT_NE(decrypt_part.find("RSA-X-509: OK"), std::string::npos) << test.out;
  EXPECT_EQ(decrypt_part.find("ERR"), std::string::npos) << test.out;
  EXPECT_NE(test.err.find("(Label) present"), std::string::npos) << test.err;
  EXPECT_NE(test.err.find("(Label) not present"), std::string::npos) << test.err;
}

TEST_F(ToolsTest, PkcsToolRsaEcEd25519SignaturesVerifyWithOpenSsl) {
  WriteTextFile(Path("msg"), "signet signs this for pkcs11-tool\n");
  GenerateAndExport("rsa:2048", "rsa", "01");
  SignFile("01", "rsa", {"--mechanism", "SHA256-RSA-PKCS"});
  ProgramResult rsa = OpenSsl({"dgst", "-sha256", "-verify", Path("rsa.pem"), "-signature",
                               Path("rsa.sig"), Path("msg")});
  EXPECT_EQ(rsa.exit_code, 0) << rsa.out << rsa.err;

  GenerateAndExport("EC:prime256v1", "ec", "02");
  SignFile("02", "ec", {"--mechanism", "ECDSA-SHA256", "--signature-format", "openssl"});
  ProgramResult ec = OpenSsl({"dgst", "-sha256", "-verify", Path("ec.pem"), "-signature",
                              Path("ec.sig"), Path("msg")});
  EXPECT_EQ(ec.exit_code, 0) << ec.out << ec.err;

  GenerateAndExport("EC:edwards25519", "ed", "03");
  SignFile("03", "ed", {"--mechanism", "EDDSA"});
  ProgramResult ed = OpenSsl({"pkeyutl", "-verify", "-pubin", "-inkey", Path("ed.pem"), "-rawin",
                              "-in", Path("msg"), "-sigfile", Path("ed.sig")});
  EXPECT_EQ(ed.exit_code, 0) << ed.out << ed.err;

  // A signature over other data must not verify (the check can fail).
  WriteTextFile(Path("other"), "something else\n");
  ProgramResult forged = OpenSsl({"dgst", "-sha256", "-verify", Path("rsa.pem"), "-signature",
                                  Path("rsa.sig"), Path("other")});
  EXPECT_NE(forged.exit_code, 0);
}

// What a TLS 1.2 server with an RSA key exchange asks of its HSM: decrypt
// what a client encrypted to the public key. `openssl pkeyutl -encrypt`
// (the independent side) encrypts a premaster-like secret, pkcs11-tool
// decrypts it through the module and signetd, PKCS#1 v1.5 and OAEP with
// the hashes pkcs11-tool takes. A tampered ciphertext must not decrypt.
TEST_F(ToolsTest, PkcsToolDecryptsOpenSslRsaCiphertexts) {
  GenerateAndExport("rsa:2048", "dec", "61", {"--usage-decrypt"});
  std::string secret = "\x03\x03premaster secret of forty-eight bytes.........";
  ASSERT_EQ(secret.size(), 48u);
  WriteTextFile(Path("secret"), secret);
  struct Case {
    std::string name;
    std::vector<std::string> pkcs11_tool;  // mechanism options
    std::vector<std::string> pkeyopts;     // the same for openssl
  };
  const Case cases[] = {
      {"pkcs1", {"-m", "RSA-PKCS"}, {"rsa_padding_mode:pkcs1"}},
      {"oaep-sha1",
       {"-m", "RSA-PKCS-OAEP", "--hash-algorithm", "SHA-1", "--mgf", "MGF1-SHA1"},
       {"rsa_padding_mode:oaep", "rsa_oaep_md:sha1", "rsa_mgf1_md:sha1"}},
      {"oaep-sha256",
       {"-m", "RSA-PKCS-OAEP", "--hash-algorithm", "SHA256", "--mgf", "MGF1-SHA256"},
       {"rsa_padding_mode:oaep", "rsa_oaep_md:sha256", "rsa_mgf1_md:sha256"}},
      {"oaep-sha512-mgf1-sha1",
       {"-m", "RSA-PKCS-OAEP", "--hash-algorithm", "SHA512", "--mgf", "MGF1-SHA1"},
       {"rsa_padding_mode:oaep", "rsa_oaep_md:sha512", "rsa_mgf1_md:sha1"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> enc = {"pkeyutl",      "-encrypt",      "-pubin",
                                    "-inkey",       Path("dec.pem"), "-in",
                                    Path("secret"), "-out",          Path(c.name + ".ct")};
    for (const std::string& opt : c.pkeyopts) enc.insert(enc.end(), {"-pkeyopt", opt});
    ProgramResult encrypted = OpenSsl(enc);
    ASSERT_EQ(encrypted.exit_code, 0) << encrypted.err;
    std::vector<std::string> dec = {
        "--decrypt",         "--id", "61", "--input-file", Path(c.name + ".ct"), "--output-file",
        Path(c.name + ".pt")};
    dec.insert(dec.end(), c.pkcs11_tool.begin(), c.pkcs11_tool.end());
    ProgramResult decrypted = PkcsTool(dec);
    ASSERT_EQ(decrypted.exit_code, 0) << decrypted.out << decrypted.err;
    const std::vector<std::uint8_t> plain = ReadBinaryFile(Path(c.name + ".pt"));
    EXPECT_EQ(std::string(plain.begin(), plain.end()), secret);
  }
  // One flipped bit: CKR_ENCRYPTED_DATA_INVALID, no plaintext.
  std::vector<std::uint8_t> ct = ReadBinaryFile(Path("pkcs1.ct"));
  ASSERT_EQ(ct.size(), 256u);
  ct[128] ^= 0x01;
  WriteTextFile(Path("tampered.ct"), std::string(ct.begin(), ct.end()));
  ProgramResult tampered = PkcsTool({"--decrypt", "--id", "61", "-m", "RSA-PKCS", "--input-file",
                                     Path("tampered.ct"), "--output-file", Path("tampered.pt")});
  EXPECT_NE(tampered.exit_code, 0);
  EXPECT_NE((tampered.out + tampered.err).find("CKR_ENCRYPTED_DATA_INVALID"), std::string::npos)
      << tampered.out << tampered.err;
}

// pkcs11-tool encrypts in parts (C_EncryptUpdate per chunk, then a Final
// sized for one block): the daemon keeps the cipher state and each part
// returns its output. A generated AES-256 key round-trips 4 KiB through
// AES-CBC-PAD; a known key imported with --write-object gives exactly what
// `openssl enc` gives, and decrypts what it made.
TEST_F(ToolsTest, PkcsToolEncryptsAndDecryptsAesCbcPadInParts) {
  std::string message(4096, '\0');
  for (std::size_t i = 0; i < message.size(); ++i) message[i] = static_cast<char>(i * 31 + 7);
  WriteTextFile(Path("msg"), message);
  const std::string iv = "000102030405060708090a0b0c0d0e0f";
  ProgramResult gen = PkcsTool(
      {"--keygen", "--key-type", "AES:32", "--label", "aes", "--id", "71", "--usage-decrypt"});
  ASSERT_EQ(gen.exit_code, 0) << gen.out << gen.err;
  auto crypt = [&](const std::string& op, const std::string& id, const std::string& in,
                   const std::string& out) {
    return PkcsTool({op, "--id", id, "-m", "AES-CBC-PAD", "--iv", iv, "--input-file", Path(in),
                     "--output-file", Path(out)});
  };
  ProgramResult enc = crypt("--encrypt", "71", "msg", "msg.ct");
  ASSERT_EQ(enc.exit_code, 0) << enc.out << enc.err;
  EXPECT_EQ(ReadBinaryFile(Path("msg.ct")).size(), 4096u + 16u);
  ProgramResult dec = crypt("--decrypt", "71", "msg.ct", "msg.pt");
  ASSERT_EQ(dec.exit_code, 0) << dec.out << dec.err;
  const std::vector<std::uint8_t> back = ReadBinaryFile(Path("msg.pt"));
  EXPECT_EQ(std::string(back.begin(), back.end()), message);

  const std::string key_hex = "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4";
  std::string key;
  for (std::size_t i = 0; i < key_hex.size(); i += 2) {
    key.push_back(static_cast<char>(std::stoi(key_hex.substr(i, 2), nullptr, 16)));
  }
  WriteTextFile(Path("key.bin"), key);
  ProgramResult import =
      PkcsTool({"--write-object", Path("key.bin"), "--type", "secrkey", "--key-type", "AES:32",
                "--id", "72", "--label", "known", "--usage-decrypt"});
  ASSERT_EQ(import.exit_code, 0) << import.out << import.err;
  ASSERT_EQ(crypt("--encrypt", "72", "msg", "known.ct").exit_code, 0);
  ProgramResult reference = OpenSsl({"enc", "-aes-256-cbc", "-K", key_hex, "-iv", iv, "-in",
                                     Path("msg"), "-out", Path("openssl.ct")});
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  EXPECT_EQ(ReadBinaryFile(Path("known.ct")), ReadBinaryFile(Path("openssl.ct")));
  ProgramResult theirs = crypt("--decrypt", "72", "openssl.ct", "openssl.pt");
  ASSERT_EQ(theirs.exit_code, 0) << theirs.out << theirs.err;
  const std::vector<std::uint8_t> plain = ReadBinaryFile(Path("openssl.pt"));
  EXPECT_EQ(std::string(plain.begin(), plain.end()), message);
}

// Key agreement as pkcs11-tool runs it: --derive with ECDH1-DERIVE takes
// the other party's public key (a DER SubjectPublicKeyInfo made by
// OpenSSL), derives a generic secret through C_DeriveKey (CKD_NULL; its
// template: a session key, CKA_SENSITIVE false, CKA_EXTRACTABLE true,
// CKA_VALUE_LEN 32 and all four of CKA_ENCRYPT/DECRYPT/WRAP/UNWRAP true)
// and reads its value back. The secret must equal what `openssl pkeyutl
// -derive` computes from the other side (its private key, signet's public
// key); a second peer gives another secret (the check can fail).
TEST_F(ToolsTest, PkcsToolDeriveAgreesWithOpenSslPkeyutlDerive) {
  GenerateAndExport("EC:prime256v1", "ecdh", "81", {"--usage-derive"});
  for (const std::string peer : {"peer1", "peer2"}) {
    ASSERT_EQ(OpenSsl({"genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out",
                       Path(peer + ".key")})
                  .exit_code,
              0);
    ASSERT_EQ(OpenSsl({"pkey", "-in", Path(peer + ".key"), "-pubout", "-outform", "DER", "-out",
                       Path(peer + ".der")})
                  .exit_code,
              0);
    ProgramResult derive = PkcsTool({"--derive", "-m", "ECDH1-DERIVE", "--id", "81", "--input-file",
                                     Path(peer + ".der"), "--output-file", Path(peer + ".signet")});
    ASSERT_EQ(derive.exit_code, 0) << derive.out << derive.err;
    ProgramResult reference =
        OpenSsl({"pkeyutl", "-derive", "-inkey", Path(peer + ".key"), "-peerkey", Path("ecdh.pem"),
                 "-out", Path(peer + ".openssl")});
    ASSERT_EQ(reference.exit_code, 0) << reference.err;
    const std::vector<std::uint8_t> ours = ReadBinaryFile(Path(peer + ".signet"));
    EXPECT_EQ(ours.size(), 32u);
    EXPECT_EQ(ours, ReadBinaryFile(Path(peer + ".openssl"))) << peer;
  }
  EXPECT_NE(ReadBinaryFile(Path("peer1.signet")), ReadBinaryFile(Path("peer2.signet")));
}

// pkcs11-tool --write-object imports an OpenSSL-made private key the way
// the specification spells it (the eight RSA components; CKA_EC_PARAMS and
// the scalar for EC). Signing with the imported key must verify against the
// public key OpenSSL derives from its own file.
TEST_F(ToolsTest, PkcsToolImportsOpenSslPrivateKeysThatThenSign) {
  WriteTextFile(Path("msg"), "signed by an imported key\n");
  struct Case {
    std::string name, id;
    std::vector<std::string> genpkey;
    std::vector<std::string> mechanism;
  };
  const Case cases[] = {
      {"imp-rsa", "51", {"-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"},
       {"--mechanism", "SHA256-RSA-PKCS"}},
      {"imp-ec", "52", {"-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"},
       {"--mechanism", "ECDSA-SHA256", "--signature-format", "openssl"}},
  };
  for (const Case& c : cases) {
    std::vector<std::string> gen = {"genpkey", "-out", Path(c.name + ".key")};
    gen.insert(gen.end(), c.genpkey.begin(), c.genpkey.end());
    ASSERT_EQ(OpenSsl(gen).exit_code, 0) << c.name;
    ASSERT_EQ(OpenSsl({"pkey", "-in", Path(c.name + ".key"), "-pubout", "-out",
                       Path(c.name + ".pem")})
                  .exit_code,
              0);
    ProgramResult put = PkcsTool({"--write-object", Path(c.name + ".key"), "--type", "privkey",
                                  "--id", c.id, "--label", c.name});
    ASSERT_EQ(put.exit_code, 0) << c.name << ": " << put.out << put.err;
    SignFile(c.id, c.name, c.mechanism);
    ProgramResult verify = OpenSsl({"dgst", "-sha256", "-verify", Path(c.name + ".pem"),
                                    "-signature", Path(c.name + ".sig"), Path("msg")});
    EXPECT_EQ(verify.exit_code, 0) << c.name << ": " << verify.out << verify.err;
  }
  // Sensitive once imported, but neither always sensitive, never extractable
  // nor local: the bytes were known outside the token (PKCS#11 §4.9).
  ProgramResult list = PkcsTool({"--list-objects", "--type", "privkey"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  std::size_t plain_sensitive = 0;
  for (std::size_t at = 0; (at = list.out.find("Access:     sensitive\n", at)) != std::string::npos;
       ++at) {
    ++plain_sensitive;
  }
  EXPECT_EQ(plain_sensitive, 2u) << list.out;
}

// Issue 11 point 16: a new token made and used with pkcs11-tool alone, as
// with SoftHSMv2: the free slot holds a present, uninitialised token;
// --init-token makes it a token (and a new free slot appears), --init-pin
// sets the user PIN as the SO, then key generation and signing, the
// signature checked by the openssl CLI.
TEST_F(ToolsTest, PkcsToolInitTokenOnTheFreeSlotThenInitPinKeygenAndSign) {
  ProgramResult slots = Tool("/usr/bin/pkcs11-tool", {"--module", ModulePath(), "--list-slots"});
  ASSERT_EQ(slots.exit_code, 0) << slots.out << slots.err;
  // "Slot N (0x..): ...\n  token state:   uninitialized"
  const std::size_t state = slots.out.find("uninitialized");
  ASSERT_NE(state, std::string::npos) << slots.out;
  const std::size_t line = slots.out.rfind("Slot ", state);
  ASSERT_NE(line, std::string::npos) << slots.out;
  const std::string slot = slots.out.substr(line + 5, slots.out.find(' ', line + 5) - line - 5);

  const std::string so_pin = "tool-so-pin", user_pin = "tool-user-pin", label = "made-by-tool";
  ProgramResult init =
      Tool("/usr/bin/pkcs11-tool", {"--module", ModulePath(), "--init-token", "--slot", slot,
                                    "--label", label, "--so-pin", so_pin});
  ASSERT_EQ(init.exit_code, 0) << init.out << init.err;
  ProgramResult pin =
      Tool("/usr/bin/pkcs11-tool",
           {"--module", ModulePath(), "--token-label", label, "--login", "--login-type", "so",
            "--so-pin", so_pin, "--init-pin", "--pin", user_pin});
  ASSERT_EQ(pin.exit_code, 0) << pin.out << pin.err;
  auto user = [&](std::vector<std::string> args) {
    args.insert(args.begin(),
                {"--module", ModulePath(), "--token-label", label, "--login", "--pin", user_pin});
    return Tool("/usr/bin/pkcs11-tool", std::move(args));
  };
  ProgramResult gen =
      user({"--keypairgen", "--key-type", "EC:prime256v1", "--label", "tool-ec", "--id", "77"});
  ASSERT_EQ(gen.exit_code, 0) << gen.out << gen.err;
  WriteTextFile(Path("msg"), "a token made by pkcs11-tool signs this\n");
  ProgramResult sign =
      user({"--sign", "--id", "77", "--mechanism", "ECDSA-SHA256", "--signature-format", "openssl",
            "--input-file", Path("msg"), "--output-file", Path("tool.sig")});
  ASSERT_EQ(sign.exit_code, 0) << sign.out << sign.err;
  ProgramResult read =
      user({"--read-object", "--type", "pubkey", "--id", "77", "--output-file", Path("tool.der")});
  ASSERT_EQ(read.exit_code, 0) << read.out << read.err;
  ASSERT_EQ(
      OpenSsl({"pkey", "-pubin", "-in", Path("tool.der"), "-out", Path("tool.pem")}).exit_code, 0);
  ProgramResult verify = OpenSsl({"dgst", "-sha256", "-verify", Path("tool.pem"), "-signature",
                                  Path("tool.sig"), Path("msg")});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  // A new free slot appeared, again holding an uninitialised token.
  ProgramResult after = Tool("/usr/bin/pkcs11-tool", {"--module", ModulePath(), "--list-slots"});
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_NE(after.out.find(label), std::string::npos) << after.out;
  EXPECT_NE(after.out.find("uninitialized"), std::string::npos) << after.out;
}

TEST_F(ToolsTest, OpenSslEngineSignsThroughPkcs11Uri) {
  GenerateAndExport("rsa:2048", "engine-rsa", "11");
  WriteTextFile(Path("msg"), "signed through libp11\n");
  ASSERT_EQ(OpenSsl({"dgst", "-sha256", "-binary", "-out", Path("dgst"), Path("msg")}).exit_code, 0);
  const std::string uri = std::string("pkcs11:token=") + kTokenLabel +
                          ";object=engine-rsa;type=private?pin-value=" + kUserPin;
  ProgramResult sign = Tool(OpenSslPath(), {"pkeyutl", "-engine", "pkcs11", "-keyform", "engine",
                                            "-inkey", uri, "-sign", "-in", Path("dgst"), "-out",
                                            Path("engine.sig"), "-pkeyopt", "digest:sha256"});
  ASSERT_EQ(sign.exit_code, 0) << sign.out << sign.err;
  ProgramResult verify = OpenSsl({"dgst", "-sha256", "-verify", Path("engine-rsa.pem"),
                                  "-signature", Path("engine.sig"), Path("msg")});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
}

TEST_F(ToolsTest, SshKeygenListsRsaAndEcKeys) {
  GenerateAndExport("rsa:2048", "ssh-rsa-key", "21");
  GenerateAndExport("EC:prime256v1", "ssh-ec-key", "22");
  ProgramResult list = Tool("/usr/bin/ssh-keygen", {"-D", ModulePath()});
  ASSERT_EQ(list.exit_code, 0) << list.out << list.err;
  EXPECT_NE(list.out.find("ssh-rsa AAAA"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("ecdsa-sha2-nistp256 AAAA"), std::string::npos) << list.out;
  // The listed RSA key is the token's: same key as pkcs11-tool exported.
  ProgramResult fp = RunProgram({"/usr/bin/ssh-keygen", "-i", "-m", "PKCS8", "-f",
                                 Path("ssh-rsa-key.pem")});
  ASSERT_EQ(fp.exit_code, 0) << fp.err;
  EXPECT_NE(list.out.find(fp.out.substr(8, 60)), std::string::npos);
}

TEST_F(ToolsTest, P11ToolListsTokenAndObjects) {
  GenerateAndExport("EC:prime256v1", "gnutls-ec", "31");
  ProgramResult tokens = Tool("/usr/bin/p11tool", {"--provider", ModulePath(), "--list-tokens"});
  ASSERT_EQ(tokens.exit_code, 0) << tokens.err;
  EXPECT_NE(tokens.out.find(kTokenLabel), std::string::npos) << tokens.out;
  auto env = Env();
  env["GNUTLS_PIN"] = kUserPin;
  ProgramResult all = RunProgram({"/usr/bin/p11tool", "--provider", ModulePath(), "--login",
                                  "--list-all", std::string("pkcs11:token=") + kTokenLabel},
                                 env);
  ASSERT_EQ(all.exit_code, 0) << all.out << all.err;
  EXPECT_NE(all.out.find("gnutls-ec"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("Private key"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("Public key"), std::string::npos) << all.out;
}

TEST_F(ToolsTest, MissingDaemonIsReportedOnceOnStderr) {
  ProgramResult list = RunProgram({"/usr/bin/pkcs11-tool", "--module", ModulePath(), "-L"},
                                  {{"SIGNET_SOCKET", Path("nobody-listens.sock")}});
  EXPECT_NE(list.exit_code, 0);
  const std::string message = "signet-pkcs11: cannot reach signetd";
  const auto first = list.err.find(message);
  ASSERT_NE(first, std::string::npos) << list.err;
  EXPECT_EQ(list.err.find(message, first + 1), std::string::npos) << list.err;
  EXPECT_NE(list.err.find("nobody-listens.sock"), std::string::npos) << list.err;
}

TEST_F(ToolsTest, BuildTreeHasP11KitModuleFile) {
  const auto text =
      ReadBinaryFile(std::string(SIGNET_BINARY_DIR) + "/share/p11-kit/modules/signet.module");
  const std::string content(text.begin(), text.end());
  EXPECT_NE(content.find("module: " + ModulePath()), std::string::npos) << content;
  EXPECT_NE(content.find("critical: no"), std::string::npos) << content;
}

}  // namespace
}  // namespace signet::e2e
