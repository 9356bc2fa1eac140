// Triple DES through the PKCS#11 module against a real signetd, checked by
// an independent implementation: a key made with CKM_DES3_KEY_GEN encrypts
// with CKM_DES3_CBC_PAD and `openssl enc -d -des-ede3-cbc` decrypts it;
// openssl's encryption decrypts through the module; CKM_DES3_ECB of a
// two-key key equals `openssl enc -des-ede-ecb`; CKM_DES3_CMAC in parts
// equals `openssl mac ... CMAC`; a key wrapped with CKM_DES3_CBC_PAD opens
// with `openssl enc -d`, and openssl's encryption of a key unwraps. Single
// DES (OpenSSL's legacy provider, which signetd loads unless told
// `--legacy-des false`): listed without CKF_WRAP, and a CKM_DES_KEY_GEN key's
// CKM_DES_CBC_PAD agrees with `openssl enc -des-cbc -provider legacy` both
// ways; a daemon without the provider neither lists nor runs it.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>

#include "base/hex.h"
#include "module_fixture.h"

namespace signet::e2e {
namespace {

std::vector<std::uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void WriteBytes(const std::string& path, const std::vector<CK_BYTE>& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
}

class Des3Test : public ModuleTest {
 protected:
  // Crypt runs C_EncryptInit + C_Encrypt (or the Decrypt pair), length
  // query first; the rv of the call that failed, or the output.
  CK_RV Crypt(bool encrypt, CK_SESSION_HANDLE s, CK_MECHANISM mech, CK_OBJECT_HANDLE key,
              std::vector<CK_BYTE> in, std::vector<CK_BYTE>* out) {
    CK_RV rv = encrypt ? p11()->C_EncryptInit(s, &mech, key) : p11()->C_DecryptInit(s, &mech, key);
    if (rv != CKR_OK) return rv;
    CK_ULONG len = 0;
    auto call = [&](CK_BYTE_PTR buffer) {
      return encrypt ? p11()->C_Encrypt(s, in.data(), in.size(), buffer, &len)
                     : p11()->C_Decrypt(s, in.data(), in.size(), buffer, &len);
    };
    if ((rv = call(nullptr)) != CKR_OK) return rv;
    out->resize(len);
    if ((rv = call(out->data())) != CKR_OK) return rv;
    out->resize(len);
    return CKR_OK;
  }

  // ReadableKey generates a session key with `mechanism` that encrypts and
  // decrypts and whose value the test reads (asserting success).
  CK_OBJECT_HANDLE ReadableKey(CK_SESSION_HANDLE s, CK_MECHANISM_TYPE mechanism) {
    CK_MECHANISM gen = {mechanism, nullptr, 0};
    CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
    CK_ATTRIBUTE t[] = {{CKA_ENCRYPT, &yes, sizeof yes},
                        {CKA_DECRYPT, &yes, sizeof yes},
                        {CKA_SENSITIVE, &no, sizeof no},
                        {CKA_EXTRACTABLE, &yes, sizeof yes}};
    CK_OBJECT_HANDLE key = 0;
    EXPECT_EQ(p11()->C_GenerateKey(s, &gen, t, std::size(t), &key), CKR_OK);
    return key;
  }

  // CbcPadAgreesWithOpenSslEnc: `mechanism` (a CBC_PAD one) under `key`
  // encrypts `plain` into `*ours`, which `openssl enc -d CIPHER` decrypts,
  // and decrypts what `openssl enc CIPHER` made of it (left in
  // Path("theirs.enc")); `openssl_extra` goes on both openssl commands.
  void CbcPadAgreesWithOpenSslEnc(CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key,
                                  CK_MECHANISM_TYPE mechanism, const std::string& cipher,
                                  std::vector<CK_BYTE> iv, const std::vector<CK_BYTE>& plain,
                                  const std::vector<std::string>& openssl_extra,
                                  std::vector<CK_BYTE>* ours) {
    const std::string key_hex = ToHex(ReadAttribute(s, key, CKA_VALUE));
    ASSERT_EQ(Crypt(true, s, {mechanism, iv.data(), iv.size()}, key, plain, ours), CKR_OK);
    WriteBytes(Path("ours.enc"), *ours);
    std::vector<std::string> dec = {
        "enc",     "-d",  cipher,           "-K",   key_hex,         "-iv",
        ToHex(iv), "-in", Path("ours.enc"), "-out", Path("ours.dec")};
    dec.insert(dec.end(), openssl_extra.begin(), openssl_extra.end());
    ProgramResult opened = OpenSsl(dec);
    ASSERT_EQ(opened.exit_code, 0) << opened.err;
    EXPECT_EQ(ReadBytes(Path("ours.dec")), plain);

    WriteBytes(Path("plain"), plain);
    std::vector<std::string> enc = {"enc",     cipher, "-K",          key_hex, "-iv",
                                    ToHex(iv), "-in",  Path("plain"), "-out",  Path("theirs.enc")};
    enc.insert(enc.end(), openssl_extra.begin(), openssl_extra.end());
    ProgramResult sealed = OpenSsl(enc);
    ASSERT_EQ(sealed.exit_code, 0) << sealed.err;
    std::vector<CK_BYTE> back;
    ASSERT_EQ(Crypt(false, s, {mechanism, iv.data(), iv.size()}, key, ReadBytes(Path("theirs.enc")),
                    &back),
              CKR_OK);
    EXPECT_EQ(back, plain);
  }
};

TEST_F(Des3Test, GeneratedKeyCbcPadAgreesWithOpenSslEncBothWays) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  const CK_OBJECT_HANDLE key = ReadableKey(s, CKM_DES3_KEY_GEN);
  const std::vector<CK_BYTE> value = ReadAttribute(s, key, CKA_VALUE);
  ASSERT_EQ(value.size(), 24u);

  std::vector<CK_BYTE> iv = {0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe};
  std::vector<CK_BYTE> plain(4100);
  for (std::size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<CK_BYTE>(i * 13 + 1);
  std::vector<CK_BYTE> ours;
  CbcPadAgreesWithOpenSslEnc(s, key, CKM_DES3_CBC_PAD, "-des-ede3-cbc", iv, plain, {}, &ours);
  EXPECT_EQ(ours.size(), 4104u);
  // A changed last block fails its padding check (or decrypts to other
  // bytes); it never gives back the plaintext.
  std::vector<CK_BYTE> tampered = ReadBytes(Path("theirs.enc"));
  tampered[tampered.size() - 9] ^= 0x01;
  std::vector<CK_BYTE> garbled;
  const CK_RV rv =
      Crypt(false, s, {CKM_DES3_CBC_PAD, iv.data(), iv.size()}, key, tampered, &garbled);
  EXPECT_TRUE(rv == CKR_ENCRYPTED_DATA_INVALID || (rv == CKR_OK && garbled != plain)) << rv;
}

TEST_F(Des3Test, TwoKeyEcbEqualsOpenSslDesEdeEcb) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  std::vector<CK_BYTE> value = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                                0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};
  CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
  CK_KEY_TYPE type = CKK_DES2;
  CK_BBOOL yes = CK_TRUE;
  CK_ATTRIBUTE t[] = {{CKA_CLASS, &cls, sizeof cls},
                      {CKA_KEY_TYPE, &type, sizeof type},
                      {CKA_VALUE, value.data(), value.size()},
                      {CKA_ENCRYPT, &yes, sizeof yes}};
  CK_OBJECT_HANDLE key = 0;
  ASSERT_EQ(p11()->C_CreateObject(s, t, std::size(t), &key), CKR_OK);
  std::vector<CK_BYTE> plain(64);
  for (std::size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<CK_BYTE>(255 - i);
  std::vector<CK_BYTE> ours;
  ASSERT_EQ(Crypt(true, s, {CKM_DES3_ECB, nullptr, 0}, key, plain, &ours), CKR_OK);
  WriteBytes(Path("plain"), plain);
  ProgramResult enc = OpenSsl({"enc", "-des-ede-ecb", "-nopad", "-K", ToHex(value), "-in",
                               Path("plain"), "-out", Path("theirs.enc")});
  ASSERT_EQ(enc.exit_code, 0) << enc.err;
  EXPECT_EQ(ours, ReadBytes(Path("theirs.enc")));
  // The module checks the key type through GetInfo's second key type: a
  // DES2 key fits CKM_DES3_*, an AES mechanism does not.
  CK_MECHANISM aes = {CKM_AES_ECB, nullptr, 0};
  EXPECT_EQ(p11()->C_EncryptInit(s, &aes, key), CKR_KEY_TYPE_INCONSISTENT);
}

TEST_F(Des3Test, CmacInPartsEqualsOpenSslMac) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
  for (CK_MECHANISM_TYPE gen_type : {CKM_DES3_KEY_GEN, CKM_DES2_KEY_GEN}) {
    SCOPED_TRACE(gen_type);
    CK_MECHANISM gen = {gen_type, nullptr, 0};
    CK_ATTRIBUTE t[] = {{CKA_SIGN, &yes, sizeof yes},
                        {CKA_VERIFY, &yes, sizeof yes},
                        {CKA_SENSITIVE, &no, sizeof no},
                        {CKA_EXTRACTABLE, &yes, sizeof yes}};
    CK_OBJECT_HANDLE key = 0;
    ASSERT_EQ(p11()->C_GenerateKey(s, &gen, t, std::size(t), &key), CKR_OK);
    const std::vector<CK_BYTE> value = ReadAttribute(s, key, CKA_VALUE);
    std::vector<CK_BYTE> message(1001);
    for (std::size_t i = 0; i < message.size(); ++i) message[i] = static_cast<CK_BYTE>(i * 5);
    CK_MECHANISM cmac = {CKM_DES3_CMAC, nullptr, 0};
    ASSERT_EQ(p11()->C_SignInit(s, &cmac, key), CKR_OK);
    for (std::size_t at = 0; at < message.size(); at += 300) {
      const CK_ULONG n = static_cast<CK_ULONG>(std::min<std::size_t>(300, message.size() - at));
      ASSERT_EQ(p11()->C_SignUpdate(s, message.data() + at, n), CKR_OK);
    }
    std::vector<CK_BYTE> mac(8);
    CK_ULONG len = mac.size();
    ASSERT_EQ(p11()->C_SignFinal(s, mac.data(), &len), CKR_OK);
    ASSERT_EQ(len, 8u);
    WriteBytes(Path("msg"), message);
    ProgramResult theirs =
        OpenSsl({"mac", "-cipher", value.size() == 24 ? "DES-EDE3-CBC" : "DES-EDE-CBC", "-macopt",
                 "hexkey:" + ToHex(value), "-in", Path("msg"), "CMAC"});
    ASSERT_EQ(theirs.exit_code, 0) << theirs.err;
    std::string expected = ToHex(mac);
    for (char& c : expected) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(theirs.out.substr(0, 16), expected);
    ASSERT_EQ(p11()->C_VerifyInit(s, &cmac, key), CKR_OK);
    EXPECT_EQ(p11()->C_Verify(s, message.data(), message.size(), mac.data(), mac.size()), CKR_OK);
  }
}

TEST_F(Des3Test, CbcPadWrapOpensWithOpenSslEncAndTheReverse) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
  // A wrapping key whose value the test reads, so the keys it wraps are
  // non-sensitive (docs/PKCS11.md "Key-management policy").
  CK_MECHANISM gen = {CKM_DES3_KEY_GEN, nullptr, 0};
  CK_ATTRIBUTE kek_t[] = {{CKA_WRAP, &yes, sizeof yes},
                          {CKA_UNWRAP, &yes, sizeof yes},
                          {CKA_SENSITIVE, &no, sizeof no},
                          {CKA_EXTRACTABLE, &yes, sizeof yes}};
  CK_OBJECT_HANDLE kek = 0;
  ASSERT_EQ(p11()->C_GenerateKey(s, &gen, kek_t, std::size(kek_t), &kek), CKR_OK);
  const std::vector<CK_BYTE> kek_value = ReadAttribute(s, kek, CKA_VALUE);
  std::vector<CK_BYTE> value(32);
  for (std::size_t i = 0; i < value.size(); ++i) value[i] = static_cast<CK_BYTE>(0x30 + i);
  CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
  CK_KEY_TYPE aes = CKK_AES;
  CK_ATTRIBUTE key_t[] = {{CKA_CLASS, &cls, sizeof cls},
                          {CKA_KEY_TYPE, &aes, sizeof aes},
                          {CKA_VALUE, value.data(), value.size()},
                          {CKA_SENSITIVE, &no, sizeof no},
                          {CKA_EXTRACTABLE, &yes, sizeof yes}};
  CK_OBJECT_HANDLE key = 0;
  ASSERT_EQ(p11()->C_CreateObject(s, key_t, std::size(key_t), &key), CKR_OK);
  std::vector<CK_BYTE> iv = {8, 7, 6, 5, 4, 3, 2, 1};
  CK_MECHANISM pad = {CKM_DES3_CBC_PAD, iv.data(), iv.size()};
  CK_ULONG len = 0;
  ASSERT_EQ(p11()->C_WrapKey(s, &pad, kek, key, nullptr, &len), CKR_OK);
  std::vector<CK_BYTE> wrapped(len);
  ASSERT_EQ(p11()->C_WrapKey(s, &pad, kek, key, wrapped.data(), &len), CKR_OK);
  ASSERT_EQ(len, 40u);  // 32 bytes and a block of padding
  WriteBytes(Path("wrapped"), wrapped);
  ProgramResult dec = OpenSsl({"enc", "-d", "-des-ede3-cbc", "-K", ToHex(kek_value), "-iv",
                               ToHex(iv), "-in", Path("wrapped"), "-out", Path("opened")});
  ASSERT_EQ(dec.exit_code, 0) << dec.err;
  EXPECT_EQ(ReadBytes(Path("opened")), value);

  std::vector<CK_BYTE> other(24);
  for (std::size_t i = 0; i < other.size(); ++i) other[i] = static_cast<CK_BYTE>(0xc0 ^ i);
  WriteBytes(Path("other"), other);
  ProgramResult enc = OpenSsl({"enc", "-des-ede3-cbc", "-K", ToHex(kek_value), "-iv", ToHex(iv),
                               "-in", Path("other"), "-out", Path("other.wrapped")});
  ASSERT_EQ(enc.exit_code, 0) << enc.err;
  std::vector<CK_BYTE> theirs = ReadBytes(Path("other.wrapped"));
  CK_ATTRIBUTE unwrap_t[] = {{CKA_CLASS, &cls, sizeof cls},
                             {CKA_KEY_TYPE, &aes, sizeof aes},
                             {CKA_SENSITIVE, &no, sizeof no},
                             {CKA_EXTRACTABLE, &yes, sizeof yes}};
  CK_OBJECT_HANDLE unwrapped = 0;
  ASSERT_EQ(p11()->C_UnwrapKey(s, &pad, kek, theirs.data(), theirs.size(), unwrap_t,
                               std::size(unwrap_t), &unwrapped),
            CKR_OK);
  EXPECT_EQ(ReadAttribute(s, unwrapped, CKA_VALUE), other);
}

// HasMechanism: the token's C_GetMechanismList names `type`.
bool HasMechanism(CK_FUNCTION_LIST_PTR p11, CK_SLOT_ID slot, CK_MECHANISM_TYPE type) {
  CK_ULONG count = 0;
  if (p11->C_GetMechanismList(slot, nullptr, &count) != CKR_OK) return false;
  std::vector<CK_MECHANISM_TYPE> types(count);
  if (p11->C_GetMechanismList(slot, types.data(), &count) != CKR_OK) return false;
  return std::find(types.begin(), types.begin() + static_cast<std::ptrdiff_t>(count), type) !=
         types.begin() + static_cast<std::ptrdiff_t>(count);
}

TEST_F(Des3Test, SingleDesCbcPadAgreesWithOpenSslsLegacyProviderBothWays) {
  ASSERT_TRUE(HasMechanism(p11(), TokenSlot(), CKM_DES_CBC_PAD));
  CK_MECHANISM_INFO info{};
  ASSERT_EQ(p11()->C_GetMechanismInfo(TokenSlot(), CKM_DES_CBC, &info), CKR_OK);
  EXPECT_EQ(info.flags & (CKF_ENCRYPT | CKF_DECRYPT | CKF_WRAP | CKF_UNWRAP),
            CKF_ENCRYPT | CKF_DECRYPT | CKF_UNWRAP);
  EXPECT_EQ(info.ulMinKeySize, 8u);
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  const CK_OBJECT_HANDLE key = ReadableKey(s, CKM_DES_KEY_GEN);
  const std::vector<CK_BYTE> value = ReadAttribute(s, key, CKA_VALUE);
  ASSERT_EQ(value.size(), 8u);
  std::vector<CK_BYTE> iv = {0x12, 0x34, 0x56, 0x78, 0x90, 0xab, 0xcd, 0xef};
  std::vector<CK_BYTE> plain(1000);
  for (std::size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<CK_BYTE>(i * 7 + 3);
  std::vector<CK_BYTE> ours;
  CbcPadAgreesWithOpenSslEnc(s, key, CKM_DES_CBC_PAD, "-des-cbc", iv, plain,
                             {"-provider", "legacy", "-provider", "default"}, &ours);
}

class NoLegacyDesTest : public Des3Test {
 protected:
  std::vector<std::string> DaemonArgs() override { return {"--legacy-des", "false"}; }
};

TEST_F(NoLegacyDesTest, SingleDesIsNeitherListedNorRun) {
  EXPECT_FALSE(HasMechanism(p11(), TokenSlot(), CKM_DES_CBC));
  EXPECT_FALSE(HasMechanism(p11(), TokenSlot(), CKM_DES_KEY_GEN));
  EXPECT_TRUE(HasMechanism(p11(), TokenSlot(), CKM_DES3_CBC));
  CK_MECHANISM_INFO info{};
  EXPECT_EQ(p11()->C_GetMechanismInfo(TokenSlot(), CKM_DES_CBC, &info), CKR_MECHANISM_INVALID);
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  CK_MECHANISM gen = {CKM_DES_KEY_GEN, nullptr, 0};
  CK_OBJECT_HANDLE key = 0;
  EXPECT_EQ(p11()->C_GenerateKey(s, &gen, nullptr, 0, &key), CKR_MECHANISM_INVALID);
}

}  // namespace
}  // namespace signet::e2e
