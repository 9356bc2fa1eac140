// Generic secrets and MACs through the PKCS#11 module against a real
// signetd, checked by an independent implementation: OpenSC's pkcs11-tool
// generates a generic secret and MACs a file, and `openssl mac` over the
// same key and file must give the same HMAC; AES-CMAC (and the *_GENERAL
// lengths) through the C API must equal `openssl mac ... CMAC`.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <map>

#include "base/hex.h"
#include "module_fixture.h"

namespace signet::e2e {
namespace {

std::string Upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

std::string Trim(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

// ReadBytes: a whole file's bytes.
std::vector<std::uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class MacTest : public ModuleTest {
 protected:
  std::map<std::string, std::string> Env() const {
    return {{"SIGNET_SOCKET", socket_path()}, {"PKCS11_MODULE_PATH", ModulePath()}};
  }

  // PkcsTool runs pkcs11-tool on the module, logged in as the user.
  ProgramResult PkcsTool(std::vector<std::string> args) {
    args.insert(args.begin(),
                {"/usr/bin/pkcs11-tool", "--module", ModulePath(), "--login", "--pin", kUserPin});
    return RunProgram(args, Env());
  }

  // OpenSslMac runs `openssl mac` (HMAC with `digest`, or CMAC with
  // `cipher`) over Path(file) under `key`; its upper-case hex output.
  std::string OpenSslMac(const std::string& alg, const std::string& option, const std::string& name,
                         const std::vector<std::uint8_t>& key, const std::string& file) {
    ProgramResult mac =
        OpenSsl({"mac", option, name, "-macopt", "hexkey:" + ToHex(key), "-in", Path(file), alg});
    EXPECT_EQ(mac.exit_code, 0) << mac.err;
    return Trim(mac.out);
  }

  // CreateSecret imports a session secret key that signs and verifies.
  CK_OBJECT_HANDLE CreateSecret(CK_SESSION_HANDLE s, CK_KEY_TYPE type,
                                std::vector<std::uint8_t> value) {
    CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
    CK_BBOOL yes = CK_TRUE;
    CK_ATTRIBUTE t[] = {{CKA_CLASS, &cls, sizeof cls},
                        {CKA_KEY_TYPE, &type, sizeof type},
                        {CKA_VALUE, value.data(), value.size()},
                        {CKA_SIGN, &yes, sizeof yes},
                        {CKA_VERIFY, &yes, sizeof yes}};
    CK_OBJECT_HANDLE h = 0;
    EXPECT_EQ(p11()->C_CreateObject(s, t, std::size(t), &h), CKR_OK);
    return h;
  }

  // Sign runs C_SignInit + C_Sign (length query first) and returns the MAC.
  std::vector<CK_BYTE> Sign(CK_SESSION_HANDLE s, CK_MECHANISM mech, CK_OBJECT_HANDLE key,
                            std::vector<CK_BYTE> data) {
    EXPECT_EQ(p11()->C_SignInit(s, &mech, key), CKR_OK);
    CK_ULONG len = 0;
    EXPECT_EQ(p11()->C_Sign(s, data.data(), data.size(), nullptr, &len), CKR_OK);
    std::vector<CK_BYTE> mac(len);
    EXPECT_EQ(p11()->C_Sign(s, data.data(), data.size(), mac.data(), &len), CKR_OK);
    mac.resize(len);
    return mac;
  }

  CK_RV Verify(CK_SESSION_HANDLE s, CK_MECHANISM mech, CK_OBJECT_HANDLE key,
               std::vector<CK_BYTE> data, std::vector<CK_BYTE> mac) {
    if (CK_RV rv = p11()->C_VerifyInit(s, &mech, key); rv != CKR_OK) return rv;
    return p11()->C_Verify(s, data.data(), data.size(), mac.data(), mac.size());
  }
};

// The lane's "must show": pkcs11-tool --keygen GENERIC:32, then --sign with
// each HMAC equals `openssl mac ... HMAC` over the same file and key, and
// --verify accepts it (and refuses a changed file).
TEST_F(MacTest, PkcsToolHmacOfGenericSecretEqualsOpenSslMac) {
  ProgramResult gen = PkcsTool({"--keygen", "--key-type", "GENERIC:32", "--label", "hmac-key",
                                "--id", "51", "--usage-sign", "--extractable"});
  ASSERT_EQ(gen.exit_code, 0) << gen.out << gen.err;
  // Read the key's value to give it to openssl (it is not sensitive: the
  // template pkcs11-tool sends without --sensitive says so).
  ProgramResult read = PkcsTool(
      {"--read-object", "--type", "secrkey", "--id", "51", "--output-file", Path("key.bin")});
  ASSERT_EQ(read.exit_code, 0) << read.out << read.err;
  const std::vector<std::uint8_t> key = ReadBytes(Path("key.bin"));
  ASSERT_EQ(key.size(), 32u);

  std::string message;
  for (int i = 0; i < 300; ++i) message += "signet MACs this line " + std::to_string(i) + "\n";
  WriteTextFile(Path("msg"), message);
  const std::pair<const char*, const char*> mechanisms[] = {{"SHA-1-HMAC", "SHA1"},
                                                            {"SHA224-HMAC", "SHA224"},
                                                            {"SHA256-HMAC", "SHA256"},
                                                            {"SHA384-HMAC", "SHA384"},
                                                            {"SHA512-HMAC", "SHA512"}};
  for (const auto& [mechanism, digest] : mechanisms) {
    SCOPED_TRACE(mechanism);
    const std::string out = Path(std::string(mechanism) + ".mac");
    ProgramResult sign = PkcsTool({"--sign", "--id", "51", "--mechanism", mechanism, "--input-file",
                                   Path("msg"), "--output-file", out});
    ASSERT_EQ(sign.exit_code, 0) << sign.out << sign.err;
    EXPECT_EQ(Upper(ToHex(ReadBytes(out))), OpenSslMac("HMAC", "-digest", digest, key, "msg"));
    ProgramResult verify = PkcsTool({"--verify", "--id", "51", "--mechanism", mechanism,
                                     "--input-file", Path("msg"), "--signature-file", out});
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
    EXPECT_NE(verify.out.find("Signature is valid"), std::string::npos) << verify.out;
  }
  WriteTextFile(Path("other"), message + "!");
  ProgramResult tampered =
      PkcsTool({"--verify", "--id", "51", "--mechanism", "SHA256-HMAC", "--input-file",
                Path("other"), "--signature-file", Path("SHA256-HMAC.mac")});
  // pkcs11-tool 0.23 reports CKR_SIGNATURE_INVALID on stdout, exit code 0.
  EXPECT_NE(tampered.out.find("Invalid signature"), std::string::npos) << tampered.out;
  EXPECT_EQ(tampered.out.find("Signature is valid"), std::string::npos) << tampered.out;
}

// AES-CMAC and CMAC_GENERAL through the C API equal `openssl mac ... CMAC`;
// the module lets a 3.0 HMAC key type into its own HMAC only.
TEST_F(MacTest, CmacThroughTheModuleEqualsOpenSslAndHmacKeyTypesFit) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  std::vector<CK_BYTE> data(5000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<CK_BYTE>(i * 7 + 3);
  WriteTextFile(Path("cmac-input"), std::string(data.begin(), data.end()));
  for (std::size_t key_size : {16u, 24u, 32u}) {
    SCOPED_TRACE(key_size);
    std::vector<std::uint8_t> value(key_size);
    for (std::size_t i = 0; i < key_size; ++i) value[i] = static_cast<std::uint8_t>(0x40 + i);
    const CK_OBJECT_HANDLE key = CreateSecret(s, CKK_AES, value);
    const std::string cipher = "AES-" + std::to_string(key_size * 8) + "-CBC";
    const std::string expected = OpenSslMac("CMAC", "-cipher", cipher, value, "cmac-input");

    const std::vector<CK_BYTE> mac = Sign(s, {CKM_AES_CMAC, nullptr, 0}, key, data);
    EXPECT_EQ(Upper(ToHex(mac)), expected);
    CK_ULONG ten = 10;  // CK_MAC_GENERAL_PARAMS
    const std::vector<CK_BYTE> short_mac =
        Sign(s, {CKM_AES_CMAC_GENERAL, &ten, sizeof ten}, key, data);
    EXPECT_EQ(Upper(ToHex(short_mac)), expected.substr(0, 20));

    EXPECT_EQ(Verify(s, {CKM_AES_CMAC, nullptr, 0}, key, data, mac), CKR_OK);
    EXPECT_EQ(Verify(s, {CKM_AES_CMAC_GENERAL, &ten, sizeof ten}, key, data, short_mac), CKR_OK);
    std::vector<CK_BYTE> changed = mac;
    changed[3] ^= 0x80;
    EXPECT_EQ(Verify(s, {CKM_AES_CMAC, nullptr, 0}, key, data, changed), CKR_SIGNATURE_INVALID);
    EXPECT_EQ(Verify(s, {CKM_AES_CMAC, nullptr, 0}, key, data, short_mac), CKR_SIGNATURE_LEN_RANGE);
    CK_ULONG seventeen = 17;
    CK_MECHANISM too_long = {CKM_AES_CMAC_GENERAL, &seventeen, sizeof seventeen};
    ASSERT_EQ(p11()->C_SignInit(s, &too_long, key), CKR_OK);  // the daemon checks the value
    CK_ULONG len = 0;
    EXPECT_EQ(p11()->C_Sign(s, data.data(), data.size(), nullptr, &len),
              CKR_MECHANISM_PARAM_INVALID);
  }

  // A CKK_SHA256_HMAC key signs with CKM_SHA256_HMAC, not with another hash's
  // HMAC (the daemon's GetInfo carries the row's second key type).
  std::vector<std::uint8_t> hmac_value(32, 0x21);
  const CK_OBJECT_HANDLE hmac_key = CreateSecret(s, CKK_SHA256_HMAC, hmac_value);
  const std::vector<CK_BYTE> hmac = Sign(s, {CKM_SHA256_HMAC, nullptr, 0}, hmac_key, data);
  EXPECT_EQ(Upper(ToHex(hmac)), OpenSslMac("HMAC", "-digest", "SHA256", hmac_value, "cmac-input"));
  CK_MECHANISM sha384 = {CKM_SHA384_HMAC, nullptr, 0};
  EXPECT_EQ(p11()->C_SignInit(s, &sha384, hmac_key), CKR_KEY_TYPE_INCONSISTENT);
  CK_MECHANISM cmac = {CKM_AES_CMAC, nullptr, 0};
  EXPECT_EQ(p11()->C_SignInit(s, &cmac, hmac_key), CKR_KEY_TYPE_INCONSISTENT);

  // Multi-part: the same MAC as one call.
  CK_MECHANISM sha256 = {CKM_SHA256_HMAC, nullptr, 0};
  ASSERT_EQ(p11()->C_SignInit(s, &sha256, hmac_key), CKR_OK);
  ASSERT_EQ(p11()->C_SignUpdate(s, data.data(), 1000), CKR_OK);
  ASSERT_EQ(p11()->C_SignUpdate(s, data.data() + 1000, data.size() - 1000), CKR_OK);
  std::vector<CK_BYTE> parts(32);
  CK_ULONG parts_len = parts.size();
  ASSERT_EQ(p11()->C_SignFinal(s, parts.data(), &parts_len), CKR_OK);
  EXPECT_EQ(parts, hmac);
}

// The mechanism list shows the MACs with their flags and key sizes.
TEST_F(MacTest, MechanismInfoListsMacsAndGenericKeyGen) {
  CK_MECHANISM_INFO info{};
  ASSERT_EQ(p11()->C_GetMechanismInfo(TokenSlot(), CKM_SHA256_HMAC_GENERAL, &info), CKR_OK);
  EXPECT_EQ(info.flags & (CKF_SIGN | CKF_VERIFY), CKF_SIGN | CKF_VERIFY);
  EXPECT_EQ(info.ulMinKeySize, 1u);
  EXPECT_EQ(info.ulMaxKeySize, 512u);
  ASSERT_EQ(p11()->C_GetMechanismInfo(TokenSlot(), CKM_AES_CMAC, &info), CKR_OK);
  EXPECT_EQ(info.ulMinKeySize, 16u);
  ASSERT_EQ(p11()->C_GetMechanismInfo(TokenSlot(), CKM_GENERIC_SECRET_KEY_GEN, &info), CKR_OK);
  EXPECT_NE(info.flags & CKF_GENERATE, 0u);
  EXPECT_EQ(info.ulMaxKeySize, 4096u);  // bits, as the specification counts them here
}

}  // namespace
}  // namespace signet::e2e
