// Issue 11 point 7 through the module: an RSA private key created with only
// the attributes PKCS#11 requires (CKA_MODULUS and CKA_PRIVATE_EXPONENT,
// v2.40 §2.1.4), with or without CKA_PUBLIC_EXPONENT, is accepted and signs;
// the openssl command-line tool verifies the signature with the public key
// of the PEM file the components came from.
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cstdio>
#include <fstream>

#include "module_fixture.h"

namespace signet::e2e {
namespace {

using RsaImportTest = ModuleTest;

// BigEndian reads one RSA parameter of `key`.
std::vector<CK_BYTE> BigEndian(const EVP_PKEY* key, const char* name) {
  BIGNUM* bn = nullptr;
  if (EVP_PKEY_get_bn_param(key, name, &bn) != 1) return {};
  std::vector<CK_BYTE> out(static_cast<std::size_t>(BN_num_bytes(bn)));
  BN_bn2bin(bn, out.data());
  BN_clear_free(bn);
  return out;
}

void WriteFile(const std::string& path, const std::vector<CK_BYTE>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

TEST_F(RsaImportTest, KeyOfModulusAndPrivateExponentSignsAndOpensslVerifies) {
  const std::string key_pem = Path("rsa.pem"), pub_pem = Path("rsa-pub.pem");
  ProgramResult made = OpenSsl(
      {"genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key_pem});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ProgramResult pub = OpenSsl({"pkey", "-in", key_pem, "-pubout", "-out", pub_pem});
  ASSERT_EQ(pub.exit_code, 0) << pub.err;
  std::FILE* file = std::fopen(key_pem.c_str(), "r");
  ASSERT_NE(file, nullptr);
  EVP_PKEY* key = PEM_read_PrivateKey(file, nullptr, nullptr, nullptr);
  std::fclose(file);
  ASSERT_NE(key, nullptr);
  std::vector<CK_BYTE> n = BigEndian(key, OSSL_PKEY_PARAM_RSA_N);
  std::vector<CK_BYTE> e = BigEndian(key, OSSL_PKEY_PARAM_RSA_E);
  std::vector<CK_BYTE> d = BigEndian(key, OSSL_PKEY_PARAM_RSA_D);
  EVP_PKEY_free(key);
  ASSERT_FALSE(n.empty() || e.empty() || d.empty());

  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  const std::string message = "signed by a key given as n, e, d";
  WriteFile(Path("msg"), {message.begin(), message.end()});
  for (bool with_e : {true, false}) {
    SCOPED_TRACE(with_e ? "n, e, d" : "n, d");
    CK_OBJECT_CLASS cls = CKO_PRIVATE_KEY;
    CK_KEY_TYPE type = CKK_RSA;
    CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
    std::vector<CK_ATTRIBUTE> tmpl = {
        {CKA_CLASS, &cls, sizeof cls},
        {CKA_KEY_TYPE, &type, sizeof type},
        {CKA_TOKEN, &no, sizeof no},
        {CKA_PRIVATE, &yes, sizeof yes},
        {CKA_SIGN, &yes, sizeof yes},
        {CKA_MODULUS, n.data(), n.size()},
        {CKA_PRIVATE_EXPONENT, d.data(), d.size()},
    };
    if (with_e) tmpl.push_back({CKA_PUBLIC_EXPONENT, e.data(), e.size()});
    CK_OBJECT_HANDLE priv = CK_INVALID_HANDLE;
    ASSERT_EQ(p11()->C_CreateObject(s, tmpl.data(), tmpl.size(), &priv), CKR_OK);
    CK_MECHANISM mech = {CKM_SHA256_RSA_PKCS, nullptr, 0};
    ASSERT_EQ(p11()->C_SignInit(s, &mech, priv), CKR_OK);
    std::vector<CK_BYTE> sig(n.size());
    CK_ULONG len = sig.size();
    ASSERT_EQ(p11()->C_Sign(s, (CK_BYTE_PTR)message.data(), message.size(), sig.data(), &len),
              CKR_OK);
    sig.resize(len);
    WriteFile(Path("sig"), sig);
    ProgramResult verified =
        OpenSsl({"dgst", "-sha256", "-verify", pub_pem, "-signature", Path("sig"), Path("msg")});
    EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
    sig[sig.size() / 2] ^= 1;
    WriteFile(Path("sig"), sig);
    EXPECT_NE(
        OpenSsl({"dgst", "-sha256", "-verify", pub_pem, "-signature", Path("sig"), Path("msg")})
            .exit_code,
        0);
    // The public exponent of a key given without it is there to read.
    EXPECT_EQ(ReadAttribute(s, priv, CKA_PUBLIC_EXPONENT), e);
  }
}

}  // namespace
}  // namespace signet::e2e
