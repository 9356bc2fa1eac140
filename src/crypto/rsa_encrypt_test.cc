// RSA encryption checked by an independent implementation: signet encrypts
// and the `openssl pkeyutl` command-line tool decrypts, and the reverse,
// for PKCS#1 v1.5, raw RSA and OAEP (SHA-1 and SHA-256, with and without a
// label, an MGF1 hash other than the OAEP hash). Then the failures PKCS#11
// names: lengths, bad padding, a wrong label.
#include "crypto/rsa_encrypt.h"

#include <gtest/gtest.h>

#include "crypto/crypto_test_util.h"

namespace signet::crypto {
namespace {

using testing::CachedKey;
using testing::ReadFile;
using testing::RunOpenssl;
using testing::TempDir;
using testing::WriteFile;

struct CipherCase {
  std::string name;
  RsaCipherParams params;
  std::string label;                  // OAEP label, as text
  std::vector<std::string> pkeyopts;  // the same scheme for `openssl pkeyutl`
};

std::vector<CipherCase> Cases() {
  return {
      {"pkcs1", {.padding = RsaPadding::kPkcs1}, "", {"rsa_padding_mode:pkcs1"}},
      {"oaep-sha1",
       {.padding = RsaPadding::kOaep},
       "",
       {"rsa_padding_mode:oaep", "rsa_oaep_md:sha1", "rsa_mgf1_md:sha1"}},
      {"oaep-sha256",
       {.padding = RsaPadding::kOaep,
        .oaep_digest = DigestAlg::kSha256,
        .mgf1_digest = DigestAlg::kSha256},
       "",
       {"rsa_padding_mode:oaep", "rsa_oaep_md:sha256", "rsa_mgf1_md:sha256"}},
      {"oaep-sha256-label",
       {.padding = RsaPadding::kOaep,
        .oaep_digest = DigestAlg::kSha256,
        .mgf1_digest = DigestAlg::kSha256},
       "signet label",
       {"rsa_padding_mode:oaep", "rsa_oaep_md:sha256", "rsa_mgf1_md:sha256",
        // "signet label" in hex
        "rsa_oaep_label:7369676e6574206c6162656c"}},
      {"oaep-sha384-mgf1-sha1-label",
       {.padding = RsaPadding::kOaep,
        .oaep_digest = DigestAlg::kSha384,
        .mgf1_digest = DigestAlg::kSha1},
       "signet label",
       {"rsa_padding_mode:oaep", "rsa_oaep_md:sha384", "rsa_mgf1_md:sha1",
        "rsa_oaep_label:7369676e6574206c6162656c"}},
  };
}

class RsaEncryptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    key_ = CachedKey({KeyType::kRsa, 2048});
    ASSERT_NE(key_, nullptr);
    auto der = key_->ToPkcs8Der();
    ASSERT_TRUE(der.ok());
    WriteFile(dir_.File("key.der"), ByteView(*der));
    auto pub = key_->Public();
    ASSERT_TRUE(pub.ok());
    pub_.emplace(*pub);
    auto pem = pub->ToPem();
    ASSERT_TRUE(pem.ok());
    WriteFile(dir_.File("pub.pem"), *pem);
  }

  // Pkeyutl runs `openssl pkeyutl` on in.bin into out.bin; true on success.
  bool Pkeyutl(bool encrypt, const std::vector<std::string>& pkeyopts) {
    std::vector<std::string> args = {"pkeyutl", encrypt ? "-encrypt" : "-decrypt",
                                     "-in",     dir_.File("in.bin"),
                                     "-out",    dir_.File("out.bin")};
    if (encrypt) {
      args.insert(args.end(), {"-pubin", "-inkey", dir_.File("pub.pem")});
    } else {
      args.insert(args.end(), {"-keyform", "DER", "-inkey", dir_.File("key.der")});
    }
    for (const std::string& opt : pkeyopts) args.insert(args.end(), {"-pkeyopt", opt});
    return RunOpenssl(args, dir_.File("log")) == 0;
  }

  TempDir dir_;
  const PrivateKey* key_ = nullptr;
  std::optional<PublicKey> pub_;
};

TEST_F(RsaEncryptTest, SignetEncryptsOpensslDecrypts) {
  const Bytes message = {'p', 'r', 'e', 'm', 'a', 's', 't', 'e', 'r', 0, 1, 2, 3};
  for (CipherCase c : Cases()) {
    SCOPED_TRACE(c.name);
    c.params.label = AsBytes(c.label);
    auto ct = RsaEncrypt(*pub_, c.params, message);
    ASSERT_TRUE(ct.ok()) << ct.error().message;
    EXPECT_EQ(ct->size(), 256u);
    WriteFile(dir_.File("in.bin"), ByteView(*ct));
    ASSERT_TRUE(Pkeyutl(false, c.pkeyopts));
    EXPECT_EQ(ReadFile(dir_.File("out.bin")), message);
  }
}

TEST_F(RsaEncryptTest, OpensslEncryptsSignetDecrypts) {
  const Bytes message = {'s', 'e', 'c', 'r', 'e', 't', 0xff, 0x00, 0x7f};
  for (CipherCase c : Cases()) {
    SCOPED_TRACE(c.name);
    c.params.label = AsBytes(c.label);
    WriteFile(dir_.File("in.bin"), ByteView(message));
    ASSERT_TRUE(Pkeyutl(true, c.pkeyopts));
    const Bytes ct = ReadFile(dir_.File("out.bin"));
    auto plain = RsaDecrypt(*key_, c.params, ct);
    ASSERT_TRUE(plain.ok()) << plain.error().message;
    EXPECT_EQ(Bytes(plain->begin(), plain->end()), message);
  }
}

TEST_F(RsaEncryptTest, RawRsaPadsShortInputWithZerosAndMatchesOpenssl) {
  const Bytes message = {0x01, 0x02, 0x03};
  const RsaCipherParams raw{.padding = RsaPadding::kNone};
  auto ct = RsaEncrypt(*pub_, raw, message);
  ASSERT_TRUE(ct.ok()) << ct.error().message;
  WriteFile(dir_.File("in.bin"), ByteView(*ct));
  ASSERT_TRUE(Pkeyutl(false, {"rsa_padding_mode:none"}));
  Bytes expected(256 - message.size(), 0);
  expected.insert(expected.end(), message.begin(), message.end());
  EXPECT_EQ(ReadFile(dir_.File("out.bin")), expected);
  auto plain = RsaDecrypt(*key_, raw, *ct);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(Bytes(plain->begin(), plain->end()), expected);
  // A value not below the modulus is no RSA input.
  const Bytes too_big(256, 0xff);
  EXPECT_EQ(RsaEncrypt(*pub_, raw, too_big).error().code, CKR_DATA_INVALID);
  EXPECT_EQ(RsaDecrypt(*key_, raw, too_big).error().code, CKR_ENCRYPTED_DATA_INVALID);
}

TEST_F(RsaEncryptTest, InputLengthsArePkcs11Errors) {
  const RsaCipherParams pkcs1{.padding = RsaPadding::kPkcs1};
  const RsaCipherParams oaep256{.padding = RsaPadding::kOaep,
                                .oaep_digest = DigestAlg::kSha256,
                                .mgf1_digest = DigestAlg::kSha256};
  EXPECT_TRUE(RsaEncrypt(*pub_, pkcs1, Bytes(256 - 11, 1)).ok());
  EXPECT_EQ(RsaEncrypt(*pub_, pkcs1, Bytes(256 - 10, 1)).error().code, CKR_DATA_LEN_RANGE);
  EXPECT_TRUE(RsaEncrypt(*pub_, oaep256, Bytes(256 - 66, 1)).ok());
  EXPECT_EQ(RsaEncrypt(*pub_, oaep256, Bytes(256 - 65, 1)).error().code, CKR_DATA_LEN_RANGE);
  EXPECT_EQ(RsaEncrypt(*pub_, {.padding = RsaPadding::kNone}, Bytes(257, 0)).error().code,
            CKR_DATA_LEN_RANGE);
  EXPECT_EQ(RsaDecrypt(*key_, pkcs1, Bytes(255, 1)).error().code, CKR_ENCRYPTED_DATA_LEN_RANGE);
  EXPECT_EQ(RsaDecrypt(*key_, pkcs1, Bytes(257, 1)).error().code, CKR_ENCRYPTED_DATA_LEN_RANGE);
}

// Every decryption failure looks the same: one code, one message.
TEST_F(RsaEncryptTest, PaddingFailuresAreOneIndistinguishableError) {
  const Bytes message = {'k', 'e', 'y'};
  const RsaCipherParams pkcs1{.padding = RsaPadding::kPkcs1};
  const RsaCipherParams oaep{.padding = RsaPadding::kOaep};
  std::vector<Error> errors;
  // Blocks built with raw RSA so that each check fails every time (a
  // tampered or other-scheme ciphertext passes the v1.5 check now and then):
  // a v1.5 block of type 3, a v1.5 block without the zero that ends its
  // padding, and a block whose first byte is not zero.
  const RsaCipherParams raw{.padding = RsaPadding::kNone};
  auto raw_block = [&](std::uint8_t first, std::uint8_t second, std::uint8_t fill) {
    Bytes block(256, fill);
    block[0] = first;
    block[1] = second;
    auto ct = RsaEncrypt(*pub_, raw, block);
    EXPECT_TRUE(ct.ok());
    return ct.ok() ? *ct : Bytes{};
  };
  for (const Bytes& ct : {raw_block(0, 3, 0xff), raw_block(0, 2, 0xff)}) {
    errors.push_back(RsaDecrypt(*key_, pkcs1, ct).error());
  }
  errors.push_back(RsaDecrypt(*key_, oaep, raw_block(1, 0, 0x10)).error());
  // A v1.5 ciphertext under OAEP (its label hash check fails but once in
  // 2^160), and OAEP under the wrong label.
  auto pkcs1_ct = RsaEncrypt(*pub_, pkcs1, message);
  ASSERT_TRUE(pkcs1_ct.ok());
  errors.push_back(RsaDecrypt(*key_, oaep, *pkcs1_ct).error());
  auto oaep_ct = RsaEncrypt(*pub_, oaep, message);
  ASSERT_TRUE(oaep_ct.ok());
  RsaCipherParams labelled = oaep;
  labelled.label = AsBytes("other");
  errors.push_back(RsaDecrypt(*key_, labelled, *oaep_ct).error());
  for (const Error& e : errors) {
    EXPECT_EQ(e.code, CKR_ENCRYPTED_DATA_INVALID);
    EXPECT_EQ(e.message, errors.front().message);
  }
}

// CKM_RSA_X_509 signatures: `openssl pkeyutl -verifyrecover` with no
// padding recovers from signet's raw signature the input left-padded to k
// bytes, and signet verifies openssl's private-key operation on it
// (`pkeyutl -decrypt`, no padding: OpenSSL 3.0's `-sign` / `-verify` take
// nothing longer than a hash).
TEST_F(RsaEncryptTest, RawSignaturesAgreeWithOpensslPkeyutl) {
  const Bytes input = {'r', 'a', 'w', 0x00, 0x42};
  Bytes padded(256 - input.size(), 0);
  padded.insert(padded.end(), input.begin(), input.end());
  auto sig = RsaRawSign(*key_, input);
  ASSERT_TRUE(sig.ok()) << sig.error().message;
  ASSERT_EQ(sig->size(), 256u);
  WriteFile(dir_.File("padded.bin"), ByteView(padded));
  WriteFile(dir_.File("sig.bin"), ByteView(*sig));
  ASSERT_EQ(RunOpenssl({"pkeyutl", "-verifyrecover", "-pubin", "-inkey", dir_.File("pub.pem"),
                        "-pkeyopt", "rsa_padding_mode:none", "-in", dir_.File("sig.bin"), "-out",
                        dir_.File("recovered.bin")},
                       dir_.File("log")),
            0);
  EXPECT_EQ(ReadFile(dir_.File("recovered.bin")), padded);
  EXPECT_TRUE(RsaRawVerify(*pub_, input, *sig).ok());
  ASSERT_EQ(RunOpenssl({"pkeyutl", "-decrypt", "-keyform", "DER", "-inkey", dir_.File("key.der"),
                        "-pkeyopt", "rsa_padding_mode:none", "-in", dir_.File("padded.bin"), "-out",
                        dir_.File("theirs.bin")},
                       dir_.File("log")),
            0);
  const Bytes theirs = ReadFile(dir_.File("theirs.bin"));
  EXPECT_EQ(theirs, *sig);  // raw RSA is deterministic
  EXPECT_TRUE(RsaRawVerify(*pub_, padded, theirs).ok());
  // Another input, a changed signature, lengths.
  EXPECT_EQ(RsaRawVerify(*pub_, Bytes{'r', 'a', 'w'}, *sig).error().code, CKR_SIGNATURE_INVALID);
  Bytes bad = *sig;
  bad[200] ^= 1;
  EXPECT_EQ(RsaRawVerify(*pub_, input, bad).error().code, CKR_SIGNATURE_INVALID);
  EXPECT_EQ(RsaRawVerify(*pub_, input, ByteView(*sig).first(255)).error().code,
            CKR_SIGNATURE_LEN_RANGE);
  EXPECT_EQ(RsaRawSign(*key_, Bytes(257, 1)).error().code, CKR_DATA_LEN_RANGE);
  EXPECT_EQ(RsaRawSign(*key_, Bytes(256, 0xff)).error().code, CKR_DATA_INVALID);
}

}  // namespace
}  // namespace signet::crypto
