// Key wrapping under RSA keys through the PKCS#11 module against a real
// signetd, checked by an independent implementation (the openssl
// command-line tool holding the same RSA key): what C_WrapKey makes under
// the public key, `openssl pkeyutl -decrypt` opens to the key's value; what
// `openssl pkeyutl -encrypt` makes, C_UnwrapKey turns into a key that
// encrypts as `openssl enc` does with that value. CKM_RSA_AES_KEY_WRAP moves
// a private key: openssl takes signet's blob apart (`pkeyutl -decrypt` of
// the RSA block, `enc -d -id-aes256-wrap-pad` of the rest) into a PKCS#8
// that `openssl pkey` reads, and signet unwraps a blob openssl put together
// into a key that signs.
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cstdio>
#include <fstream>
#include <iterator>

#include "base/hex.h"
#include "base/secure_bytes.h"
#include "ec_verify.h"
#include "module_fixture.h"

namespace signet::e2e {
namespace {

std::vector<CK_BYTE> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void WriteBytes(const std::string& path, const std::vector<CK_BYTE>& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
}

// BigEndian reads one RSA parameter of `key`.
std::vector<CK_BYTE> BigEndian(const EVP_PKEY* key, const char* name) {
  BIGNUM* bn = nullptr;
  if (EVP_PKEY_get_bn_param(key, name, &bn) != 1) return {};
  std::vector<CK_BYTE> out(static_cast<std::size_t>(BN_num_bytes(bn)));
  BN_bn2bin(bn, out.data());
  BN_clear_free(bn);
  return out;
}

// OaepCase: one OAEP parameter set, for PKCS#11 and for `openssl pkeyutl`.
struct OaepCase {
  const char* name;
  CK_MECHANISM_TYPE hash;
  CK_RSA_PKCS_MGF_TYPE mgf;
  std::string label;
  std::vector<std::string> pkeyopts;
};

std::vector<OaepCase> OaepCases() {
  return {
      {"oaep-sha1", CKM_SHA_1, CKG_MGF1_SHA1, "", {"rsa_oaep_md:sha1", "rsa_mgf1_md:sha1"}},
      {"oaep-sha256-label",
       CKM_SHA256,
       CKG_MGF1_SHA256,
       "signet",
       {"rsa_oaep_md:sha256", "rsa_mgf1_md:sha256", "rsa_oaep_label:" + ToHex(AsBytes("signet"))}},
      {"oaep-sha384-mgf1-sha1",
       CKM_SHA384,
       CKG_MGF1_SHA1,
       "",
       {"rsa_oaep_md:sha384", "rsa_mgf1_md:sha1"}},
  };
}

class WrapTest : public ModuleTest {
 protected:
  void SetUp() override {
    ModuleTest::SetUp();
    if (HasFatalFailure()) return;
    s_ = OpenSession();
    LoginUser(s_);
  }

  // ImportRsa makes a 2048-bit RSA key with openssl (rsa.pem, rsa-pub.pem)
  // and imports it: a public key that wraps and a private key that unwraps,
  // neither with a data role.
  void ImportRsa(CK_OBJECT_HANDLE* pub, CK_OBJECT_HANDLE* priv) {
    ProgramResult made = OpenSsl({"genpkey", "-algorithm", "RSA", "-pkeyopt",
                                  "rsa_keygen_bits:2048", "-out", Path("rsa.pem")});
    ASSERT_EQ(made.exit_code, 0) << made.err;
    ProgramResult out =
        OpenSsl({"pkey", "-in", Path("rsa.pem"), "-pubout", "-out", Path("rsa-pub.pem")});
    ASSERT_EQ(out.exit_code, 0) << out.err;
    std::FILE* file = std::fopen(Path("rsa.pem").c_str(), "r");
    ASSERT_NE(file, nullptr);
    EVP_PKEY* key = PEM_read_PrivateKey(file, nullptr, nullptr, nullptr);
    std::fclose(file);
    ASSERT_NE(key, nullptr);
    std::vector<CK_BYTE> n = BigEndian(key, OSSL_PKEY_PARAM_RSA_N);
    std::vector<CK_BYTE> e = BigEndian(key, OSSL_PKEY_PARAM_RSA_E);
    std::vector<CK_BYTE> d = BigEndian(key, OSSL_PKEY_PARAM_RSA_D);
    EVP_PKEY_free(key);
    CK_OBJECT_CLASS pub_class = CKO_PUBLIC_KEY, priv_class = CKO_PRIVATE_KEY;
    CK_KEY_TYPE rsa = CKK_RSA;
    CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
    CK_ATTRIBUTE pub_t[] = {{CKA_CLASS, &pub_class, sizeof pub_class},
                            {CKA_KEY_TYPE, &rsa, sizeof rsa},
                            {CKA_MODULUS, n.data(), n.size()},
                            {CKA_PUBLIC_EXPONENT, e.data(), e.size()},
                            {CKA_WRAP, &yes, sizeof yes},
                            {CKA_ENCRYPT, &no, sizeof no}};
    ASSERT_EQ(p11()->C_CreateObject(s_, pub_t, std::size(pub_t), pub), CKR_OK);
    CK_ATTRIBUTE priv_t[] = {{CKA_CLASS, &priv_class, sizeof priv_class},
                             {CKA_KEY_TYPE, &rsa, sizeof rsa},
                             {CKA_MODULUS, n.data(), n.size()},
                             {CKA_PUBLIC_EXPONENT, e.data(), e.size()},
                             {CKA_PRIVATE_EXPONENT, d.data(), d.size()},
                             {CKA_UNWRAP, &yes, sizeof yes},
                             {CKA_DECRYPT, &no, sizeof no}};
    ASSERT_EQ(p11()->C_CreateObject(s_, priv_t, std::size(priv_t), priv), CKR_OK);
  }

  // AesKey imports an extractable, non-sensitive AES key of `value`.
  CK_OBJECT_HANDLE AesKey(const std::vector<CK_BYTE>& value) {
    CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
    CK_KEY_TYPE type = CKK_AES;
    CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
    CK_ATTRIBUTE t[] = {{CKA_CLASS, &cls, sizeof cls},
                        {CKA_KEY_TYPE, &type, sizeof type},
                        {CKA_VALUE, const_cast<CK_BYTE*>(value.data()), value.size()},
                        {CKA_SENSITIVE, &no, sizeof no},
                        {CKA_EXTRACTABLE, &yes, sizeof yes}};
    CK_OBJECT_HANDLE key = CK_INVALID_HANDLE;
    EXPECT_EQ(p11()->C_CreateObject(s_, t, std::size(t), &key), CKR_OK);
    return key;
  }

  // Wrap runs C_WrapKey, length query first.
  CK_RV Wrap(CK_MECHANISM mech, CK_OBJECT_HANDLE wrapping, CK_OBJECT_HANDLE key,
             std::vector<CK_BYTE>* out) {
    CK_ULONG len = 0;
    CK_RV rv = p11()->C_WrapKey(s_, &mech, wrapping, key, nullptr, &len);
    if (rv != CKR_OK) return rv;
    out->resize(len);
    rv = p11()->C_WrapKey(s_, &mech, wrapping, key, out->data(), &len);
    out->resize(len);
    return rv;
  }

  // UnwrapAes runs C_UnwrapKey into a sensitive AES key that encrypts.
  CK_RV UnwrapAes(CK_MECHANISM mech, CK_OBJECT_HANDLE unwrapping, std::vector<CK_BYTE> wrapped,
                  CK_OBJECT_HANDLE* key) {
    CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
    CK_KEY_TYPE type = CKK_AES;
    CK_BBOOL yes = CK_TRUE;
    CK_ATTRIBUTE t[] = {{CKA_CLASS, &cls, sizeof cls},
                        {CKA_KEY_TYPE, &type, sizeof type},
                        {CKA_ENCRYPT, &yes, sizeof yes},
                        {CKA_SENSITIVE, &yes, sizeof yes}};
    return p11()->C_UnwrapKey(s_, &mech, unwrapping, wrapped.data(), wrapped.size(), t,
                              std::size(t), key);
  }

  // ExpectEncryptsLikeOpenSsl: `key` encrypts a test message under
  // CKM_AES_CBC exactly as `openssl enc -aes-256-cbc` with `value` does.
  void ExpectEncryptsLikeOpenSsl(CK_OBJECT_HANDLE key, const std::vector<CK_BYTE>& value) {
    std::vector<CK_BYTE> iv(16, 0x5a), plain(64);
    for (std::size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<CK_BYTE>(i * 7);
    CK_MECHANISM cbc = {CKM_AES_CBC, iv.data(), iv.size()};
    ASSERT_EQ(p11()->C_EncryptInit(s_, &cbc, key), CKR_OK);
    std::vector<CK_BYTE> ours(plain.size());
    CK_ULONG len = ours.size();
    ASSERT_EQ(p11()->C_Encrypt(s_, plain.data(), plain.size(), ours.data(), &len), CKR_OK);
    ours.resize(len);
    WriteBytes(Path("plain"), plain);
    ProgramResult enc = OpenSsl({"enc", "-aes-256-cbc", "-nopad", "-K", ToHex(value), "-iv",
                                 ToHex(iv), "-in", Path("plain"), "-out", Path("theirs.enc")});
    ASSERT_EQ(enc.exit_code, 0) << enc.err;
    EXPECT_EQ(ours, ReadBytes(Path("theirs.enc")));
  }

  CK_SESSION_HANDLE s_ = CK_INVALID_HANDLE;
};

TEST_F(WrapTest, RsaWrapsOpenSslDecryptsAndOpenSslWrapsRsaUnwraps) {
  CK_OBJECT_HANDLE pub = 0, priv = 0;
  ASSERT_NO_FATAL_FAILURE(ImportRsa(&pub, &priv));
  std::vector<CK_BYTE> value(32);
  for (std::size_t i = 0; i < value.size(); ++i) value[i] = static_cast<CK_BYTE>(0xa0 + i);
  const CK_OBJECT_HANDLE aes = AesKey(value);
  WriteBytes(Path("value"), value);

  // CKM_RSA_PKCS both ways.
  std::vector<CK_BYTE> wrapped;
  CK_MECHANISM pkcs = {CKM_RSA_PKCS, nullptr, 0};
  ASSERT_EQ(Wrap(pkcs, pub, aes, &wrapped), CKR_OK);
  ASSERT_EQ(wrapped.size(), 256u);
  WriteBytes(Path("pkcs.wrapped"), wrapped);
  ProgramResult dec =
      OpenSsl({"pkeyutl", "-decrypt", "-inkey", Path("rsa.pem"), "-pkeyopt",
               "rsa_padding_mode:pkcs1", "-in", Path("pkcs.wrapped"), "-out", Path("pkcs.out")});
  ASSERT_EQ(dec.exit_code, 0) << dec.err;
  EXPECT_EQ(ReadBytes(Path("pkcs.out")), value);
  ProgramResult enc =
      OpenSsl({"pkeyutl", "-encrypt", "-pubin", "-inkey", Path("rsa-pub.pem"), "-pkeyopt",
               "rsa_padding_mode:pkcs1", "-in", Path("value"), "-out", Path("pkcs.theirs")});
  ASSERT_EQ(enc.exit_code, 0) << enc.err;
  CK_OBJECT_HANDLE unwrapped = 0;
  ASSERT_EQ(UnwrapAes(pkcs, priv, ReadBytes(Path("pkcs.theirs")), &unwrapped), CKR_OK);
  ExpectEncryptsLikeOpenSsl(unwrapped, value);

  // CKM_RSA_PKCS_OAEP with several hashes and a label, both ways.
  for (const OaepCase& c : OaepCases()) {
    SCOPED_TRACE(c.name);
    CK_RSA_PKCS_OAEP_PARAMS params = {c.hash, c.mgf, CKZ_DATA_SPECIFIED,
                                      c.label.empty() ? nullptr : const_cast<char*>(c.label.data()),
                                      c.label.size()};
    CK_MECHANISM oaep = {CKM_RSA_PKCS_OAEP, &params, sizeof params};
    ASSERT_EQ(Wrap(oaep, pub, aes, &wrapped), CKR_OK);
    WriteBytes(Path("oaep.wrapped"), wrapped);
    std::vector<std::string> args = {"pkeyutl",  "-decrypt",
                                     "-inkey",   Path("rsa.pem"),
                                     "-in",      Path("oaep.wrapped"),
                                     "-out",     Path("oaep.out"),
                                     "-pkeyopt", "rsa_padding_mode:oaep"};
    for (const std::string& opt : c.pkeyopts) args.insert(args.end(), {"-pkeyopt", opt});
    ProgramResult opened = OpenSsl(args);
    ASSERT_EQ(opened.exit_code, 0) << opened.err;
    EXPECT_EQ(ReadBytes(Path("oaep.out")), value);

    args = {"pkeyutl",
            "-encrypt",
            "-pubin",
            "-inkey",
            Path("rsa-pub.pem"),
            "-in",
            Path("value"),
            "-out",
            Path("oaep.theirs"),
            "-pkeyopt",
            "rsa_padding_mode:oaep"};
    for (const std::string& opt : c.pkeyopts) args.insert(args.end(), {"-pkeyopt", opt});
    ProgramResult sealed = OpenSsl(args);
    ASSERT_EQ(sealed.exit_code, 0) << sealed.err;
    ASSERT_EQ(UnwrapAes(oaep, priv, ReadBytes(Path("oaep.theirs")), &unwrapped), CKR_OK);
    ExpectEncryptsLikeOpenSsl(unwrapped, value);
    // One flipped bit: no key.
    std::vector<CK_BYTE> tampered = ReadBytes(Path("oaep.theirs"));
    tampered[7] ^= 0x10;
    EXPECT_EQ(UnwrapAes(oaep, priv, tampered, &unwrapped), CKR_WRAPPED_KEY_INVALID);
  }
}

// RsaAesKeyWrapParams: CK_RSA_AES_KEY_WRAP_PARAMS as PKCS#11 v2.40 section
// 2.1.21 lays it out (p11-kit's header lacks it, as an application's might).
struct RsaAesKeyWrapParams {
  CK_ULONG ulAESKeyBits;
  CK_RSA_PKCS_OAEP_PARAMS* pOAEPParams;
};

// Concat: `a` followed by `b`.
std::vector<CK_BYTE> Concat(std::vector<CK_BYTE> a, const std::vector<CK_BYTE>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST_F(WrapTest, RsaAesMovesPrivateKeysToAndFromOpenSsl) {
  CK_OBJECT_HANDLE rsa_pub = 0, rsa_priv = 0;
  ASSERT_NO_FATAL_FAILURE(ImportRsa(&rsa_pub, &rsa_priv));
  const std::vector<std::string> oaep_opts = {"-pkeyopt", "rsa_padding_mode:oaep",
                                              "-pkeyopt", "rsa_oaep_md:sha256",
                                              "-pkeyopt", "rsa_mgf1_md:sha256"};
  CK_RSA_PKCS_OAEP_PARAMS oaep = {CKM_SHA256, CKG_MGF1_SHA256, CKZ_DATA_SPECIFIED, nullptr, 0};
  RsaAesKeyWrapParams params = {256, &oaep};
  CK_MECHANISM rsa_aes = {CKM_RSA_AES_KEY_WRAP, &params, sizeof params};

  // signet -> openssl: an extractable P-256 key made in signet.
  CK_MECHANISM gen = {CKM_EC_KEY_PAIR_GEN, nullptr, 0};
  const CK_BYTE p256[] = {0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};
  CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
  CK_ATTRIBUTE pub_t[] = {{CKA_EC_PARAMS, const_cast<CK_BYTE*>(p256), sizeof p256},
                          {CKA_VERIFY, &yes, sizeof yes}};
  CK_ATTRIBUTE priv_t[] = {{CKA_SIGN, &yes, sizeof yes},
                           {CKA_SENSITIVE, &no, sizeof no},
                           {CKA_EXTRACTABLE, &yes, sizeof yes}};
  CK_OBJECT_HANDLE ec_pub = 0, ec_priv = 0;
  ASSERT_EQ(p11()->C_GenerateKeyPair(s_, &gen, pub_t, std::size(pub_t), priv_t, std::size(priv_t),
                                     &ec_pub, &ec_priv),
            CKR_OK);
  std::vector<CK_BYTE> wrapped;
  ASSERT_EQ(Wrap(rsa_aes, rsa_pub, ec_priv, &wrapped), CKR_OK);
  ASSERT_GT(wrapped.size(), 256u);
  WriteBytes(Path("head"), {wrapped.begin(), wrapped.begin() + 256});
  WriteBytes(Path("tail"), {wrapped.begin() + 256, wrapped.end()});
  std::vector<std::string> args = {"pkeyutl", "-decrypt",   "-inkey", Path("rsa.pem"),
                                   "-in",     Path("head"), "-out",   Path("aes.key")};
  args.insert(args.end(), oaep_opts.begin(), oaep_opts.end());
  ProgramResult head = OpenSsl(args);
  ASSERT_EQ(head.exit_code, 0) << head.err;
  const std::vector<CK_BYTE> aes_key = ReadBytes(Path("aes.key"));
  ASSERT_EQ(aes_key.size(), 32u);
  ProgramResult tail = OpenSsl({"enc", "-d", "-id-aes256-wrap-pad", "-K", ToHex(aes_key), "-iv",
                                "A65959A6", "-in", Path("tail"), "-out", Path("ours.p8")});
  ASSERT_EQ(tail.exit_code, 0) << tail.err;
  ProgramResult pkey = OpenSsl(
      {"pkey", "-inform", "DER", "-in", Path("ours.p8"), "-pubout", "-out", Path("ours-pub.pem")});
  ASSERT_EQ(pkey.exit_code, 0) << pkey.err;
  const std::vector<CK_BYTE> pem = ReadBytes(Path("ours-pub.pem"));
  EXPECT_EQ(std::string(pem.begin(), pem.end()), EcPublicKeyPem(s_, ec_pub));

  // openssl -> signet: a P-256 key made by openssl, its PKCS#8 wrapped
  // under a fresh AES key that is OAEP-encrypted to signet's RSA key.
  ProgramResult made = OpenSsl({"genpkey", "-algorithm", "EC", "-pkeyopt",
                                "ec_paramgen_curve:P-256", "-out", Path("ec.pem")});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ASSERT_EQ(OpenSsl({"pkcs8", "-topk8", "-nocrypt", "-in", Path("ec.pem"), "-outform", "DER",
                     "-out", Path("theirs.p8")})
                .exit_code,
            0);
  ASSERT_EQ(
      OpenSsl({"pkey", "-in", Path("ec.pem"), "-pubout", "-out", Path("ec-pub.pem")}).exit_code, 0);
  std::vector<CK_BYTE> theirs_key(32);
  for (std::size_t i = 0; i < theirs_key.size(); ++i) theirs_key[i] = static_cast<CK_BYTE>(i + 1);
  WriteBytes(Path("theirs.key"), theirs_key);
  args = {"pkeyutl", "-encrypt",         "-pubin", "-inkey",           Path("rsa-pub.pem"),
          "-in",     Path("theirs.key"), "-out",   Path("theirs.head")};
  args.insert(args.end(), oaep_opts.begin(), oaep_opts.end());
  ProgramResult sealed = OpenSsl(args);
  ASSERT_EQ(sealed.exit_code, 0) << sealed.err;
  ProgramResult kwp = OpenSsl({"enc", "-id-aes256-wrap-pad", "-K", ToHex(theirs_key), "-iv",
                               "A65959A6", "-in", Path("theirs.p8"), "-out", Path("theirs.tail")});
  ASSERT_EQ(kwp.exit_code, 0) << kwp.err;
  std::vector<CK_BYTE> blob =
      Concat(ReadBytes(Path("theirs.head")), ReadBytes(Path("theirs.tail")));
  CK_OBJECT_CLASS cls = CKO_PRIVATE_KEY;
  CK_ATTRIBUTE unwrap_t[] = {{CKA_CLASS, &cls, sizeof cls}, {CKA_SIGN, &yes, sizeof yes}};
  CK_OBJECT_HANDLE moved = 0;
  ASSERT_EQ(p11()->C_UnwrapKey(s_, &rsa_aes, rsa_priv, blob.data(), blob.size(), unwrap_t,
                               std::size(unwrap_t), &moved),
            CKR_OK);
  CK_MECHANISM ecdsa = {CKM_ECDSA_SHA256, nullptr, 0};
  std::vector<CK_BYTE> message = {'m', 'o', 'v', 'e', 'd'};
  ASSERT_EQ(p11()->C_SignInit(s_, &ecdsa, moved), CKR_OK);
  std::vector<CK_BYTE> sig(64);
  CK_ULONG sig_len = sig.size();
  ASSERT_EQ(p11()->C_Sign(s_, message.data(), message.size(), sig.data(), &sig_len), CKR_OK);
  sig.resize(sig_len);
  const std::vector<CK_BYTE> ec_pub_pem = ReadBytes(Path("ec-pub.pem"));
  EXPECT_TRUE(VerifyEcdsaP256(std::string(ec_pub_pem.begin(), ec_pub_pem.end()), message, sig));
  // A flipped bit in the AES-wrapped part: no key.
  blob[blob.size() - 3] ^= 0x01;
  EXPECT_EQ(p11()->C_UnwrapKey(s_, &rsa_aes, rsa_priv, blob.data(), blob.size(), unwrap_t,
                               std::size(unwrap_t), &moved),
            CKR_WRAPPED_KEY_INVALID);
}

}  // namespace
}  // namespace signet::e2e
