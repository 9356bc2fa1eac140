// Every signature scheme signet offers, checked by an independent verifier:
// signet signs, the `openssl` command-line tool verifies (and must reject a
// tampered message); and the reverse, `openssl` makes the key and the
// signature and signet verifies through the imported PEM public key.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "crypto/crypto_test_util.h"
#include "crypto/sign.h"

namespace signet::crypto {
namespace {

using testing::CachedKey;
using testing::ReadFile;
using testing::RunOpenssl;
using testing::TempDir;
using testing::WriteFile;

struct CliCase {
  std::string name;
  KeySpec spec;
  SignParams params;
};

std::vector<CliCase> Cases() {
  std::vector<CliCase> cases;
  const KeySpec rsa{KeyType::kRsa, 2048};
  for (DigestAlg d : {DigestAlg::kSha256, DigestAlg::kSha384, DigestAlg::kSha512}) {
    std::string h(DigestName(d));
    for (bool pre : {false, true}) {
      std::string form = pre ? " prehashed" : "";
      cases.push_back({"RSA PKCS#1 " + h + form,
                       rsa,
                       {.scheme = SignScheme::kRsaPkcs1, .digest = d, .prehashed = pre}});
      cases.push_back({"RSA PSS " + h + form,
                       rsa,
                       {.scheme = SignScheme::kRsaPss, .digest = d, .prehashed = pre}});
    }
  }
  cases.push_back({"RSA-4096 PKCS#1 sha512",
                   {KeyType::kRsa, 4096},
                   {.scheme = SignScheme::kRsaPkcs1, .digest = DigestAlg::kSha512}});
  cases.push_back({"RSA-1024 PSS sha256",
                   {KeyType::kRsa, 1024},
                   {.scheme = SignScheme::kRsaPss, .digest = DigestAlg::kSha256}});
  for (auto [type, name] : {std::pair{KeyType::kEcP256, "P-256"},
                            {KeyType::kEcP384, "P-384"},
                            {KeyType::kEcP521, "P-521"},
                            {KeyType::kEcSecp256k1, "secp256k1"},
                            {KeyType::kEcP192, "secp192r1"}}) {
    for (bool pre : {false, true}) {
      cases.push_back(
          {std::string("ECDSA ") + name + (pre ? " prehashed" : ""),
           {type, 0},
           {.scheme = SignScheme::kEcdsa, .digest = DigestAlg::kSha256, .prehashed = pre}});
    }
  }
  cases.push_back({"ECDSA P-384 sha384",
                   {KeyType::kEcP384, 0},
                   {.scheme = SignScheme::kEcdsa, .digest = DigestAlg::kSha384}});
  // secp256k1 signs through libsecp256k1 (above) unless OpenSSL is asked
  // for; digests longer than its 256-bit order are truncated alike.
  const KeySpec k1{KeyType::kEcSecp256k1, 0};
  cases.push_back({"ECDSA secp256k1 OpenSSL engine",
                   k1,
                   {.scheme = SignScheme::kEcdsa, .engine = SignEngine::kOpenssl}});
  for (DigestAlg d : {DigestAlg::kSha384, DigestAlg::kSha512}) {
    for (bool pre : {false, true}) {
      cases.push_back({"ECDSA secp256k1 " + std::string(DigestName(d)) + (pre ? " prehashed" : ""),
                       k1,
                       {.scheme = SignScheme::kEcdsa, .digest = d, .prehashed = pre}});
    }
  }
  cases.push_back({"Ed25519", {KeyType::kEd25519, 0}, {.scheme = SignScheme::kEddsa}});
  return cases;
}

// VerifyArgs is the openssl command that checks `sig` over the file `data`:
// `dgst -verify` for messages, `pkeyutl -verify` for digests and Ed25519.
std::vector<std::string> VerifyArgs(const SignParams& p, const std::string& pub,
                                    const std::string& data, const std::string& sig) {
  const std::string digest(DigestName(p.digest));
  if (p.scheme == SignScheme::kEddsa) {
    return {"pkeyutl", "-verify", "-pubin", "-inkey", pub, "-rawin", "-in", data, "-sigfile", sig};
  }
  std::vector<std::string> args;
  if (p.prehashed || p.digest == DigestAlg::kNone) {
    args = {"pkeyutl", "-verify", "-pubin", "-inkey", pub, "-in", data, "-sigfile", sig};
    if (p.digest != DigestAlg::kNone) args.insert(args.end(), {"-pkeyopt", "digest:" + digest});
  } else {
    args = {"dgst", "-" + digest, "-verify", pub, "-signature", sig, data};
  }
  if (p.scheme == SignScheme::kRsaPss) {
    const char* opt = args[0] == "dgst" ? "-sigopt" : "-pkeyopt";
    args.insert(args.end() - (args[0] == "dgst" ? 1 : 0),
                {opt, "rsa_padding_mode:pss", opt, "rsa_pss_saltlen:-1"});
  }
  return args;
}

TEST(OpensslCli, VerifiesEverySignetSignatureAndRejectsTampering) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string pub = dir.File("pub.pem"), data = dir.File("data"), sig = dir.File("sig");
  const std::string log = dir.File("openssl.log");
  const ByteView message = AsBytes("signet signs, openssl verifies");
  for (const CliCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    const PrivateKey* key = CachedKey(c.spec);
    ASSERT_NE(key, nullptr);
    WriteFile(pub, *key->Public()->ToPem());
    Bytes input = c.params.prehashed ? *Digest(c.params.digest, message)
                                     : Bytes(message.begin(), message.end());
    auto signature = Sign(*key, c.params, input);
    ASSERT_TRUE(signature.ok()) << signature.error().message;
    WriteFile(sig, *signature);
    WriteFile(data, input);
    EXPECT_EQ(RunOpenssl(VerifyArgs(c.params, pub, data, sig), log), 0)
        << std::string(ReadFile(log).begin(), ReadFile(log).end());
    input[0] ^= 0x01;
    WriteFile(data, input);
    EXPECT_NE(RunOpenssl(VerifyArgs(c.params, pub, data, sig)), 0) << "tampered input accepted";
  }
}

// The PKCS#11 forms that openssl does not read directly: raw r||s ECDSA
// (converted back to DER) and CKM_RSA_PKCS over a caller's DigestInfo.
TEST(OpensslCli, VerifiesRawEcdsaAndRawPkcs1) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string pub = dir.File("pub.pem"), data = dir.File("data"), sig = dir.File("sig");
  const ByteView message = AsBytes("pkcs11 forms");

  const PrivateKey* ec = CachedKey({KeyType::kEcP521, 0});
  SignParams raw{.scheme = SignScheme::kEcdsa, .ecdsa_format = EcdsaFormat::kRaw};
  Bytes rs = *Sign(*ec, raw, message);
  ASSERT_EQ(rs.size(), 132u);
  WriteFile(pub, *ec->Public()->ToPem());
  WriteFile(data, message);
  WriteFile(sig, *EcdsaRawToDer(rs));
  EXPECT_EQ(RunOpenssl({"dgst", "-sha256", "-verify", pub, "-signature", sig, data}), 0);

  const PrivateKey* rsa = CachedKey({KeyType::kRsa, 2048});
  Bytes info = {0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
                0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20};
  Bytes digest = *Digest(DigestAlg::kSha256, message);
  info.insert(info.end(), digest.begin(), digest.end());
  SignParams pkcs{.scheme = SignScheme::kRsaPkcs1, .digest = DigestAlg::kNone};
  WriteFile(pub, *rsa->Public()->ToPem());
  WriteFile(sig, *Sign(*rsa, pkcs, info));
  EXPECT_EQ(RunOpenssl({"dgst", "-sha256", "-verify", pub, "-signature", sig, data}), 0);
  WriteFile(data, info);
  EXPECT_EQ(RunOpenssl(VerifyArgs(pkcs, pub, data, sig)), 0);
}

// LowS: the second INTEGER of a DER ECDSA signature, as `openssl
// asn1parse` prints it, is at most `half_order` (64 hex digits).
bool LowS(const std::string& asn1parse_output, const std::string& half_order) {
  std::string s;
  std::size_t at = 0;
  for (int found = 0; found < 2; ++found) {
    at = asn1parse_output.find("INTEGER", at);
    if (at == std::string::npos) return false;
    const std::size_t colon = asn1parse_output.find(':', at);
    const std::size_t end = asn1parse_output.find('\n', colon);
    s = asn1parse_output.substr(colon + 1, end - colon - 1);
    at = end;
  }
  s.erase(0, s.find_first_not_of('0'));
  if (s.size() > half_order.size()) return false;
  s.insert(0, half_order.size() - s.size(), '0');
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s <= half_order;
}

// secp256k1 through libsecp256k1: every signature verifies with `openssl
// pkeyutl` and is low-S (s <= n/2, read by `openssl asn1parse`), over
// digests and over CKM_ECDSA input shorter and longer than 32 bytes.
TEST(OpensslCli, Secp256k1SignaturesVerifyAndAreLowS) {
  // n/2 for secp256k1's order n (SEC 2 section 2.4.1).
  const std::string half_order = "7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0";
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string pub = dir.File("pub.pem"), data = dir.File("data"), sig = dir.File("sig");
  const PrivateKey* key = CachedKey({KeyType::kEcSecp256k1, 0});
  ASSERT_NE(key, nullptr);
  WriteFile(pub, *key->Public()->ToPem());
  for (int i = 0; i < 12; ++i) {
    const std::size_t size = i % 3 == 0 ? 20 : i % 3 == 1 ? 32 : 64;
    SCOPED_TRACE(std::to_string(i) + ": " + std::to_string(size) + "-byte input");
    const SignParams p{.scheme = SignScheme::kEcdsa, .digest = DigestAlg::kNone, .prehashed = true};
    Bytes input(size);
    for (std::size_t b = 0; b < size; ++b) input[b] = static_cast<std::uint8_t>(i * 31 + b * 7);
    auto signature = Sign(*key, p, input);
    ASSERT_TRUE(signature.ok()) << signature.error().message;
    WriteFile(sig, *signature);
    WriteFile(data, input);
    EXPECT_EQ(RunOpenssl(VerifyArgs(p, pub, data, sig)), 0);
    const std::string log = dir.File("asn1-" + std::to_string(i));
    ASSERT_EQ(RunOpenssl({"asn1parse", "-inform", "DER", "-in", sig}, log), 0);
    const Bytes parsed = ReadFile(log);
    const std::string text(parsed.begin(), parsed.end());
    EXPECT_TRUE(LowS(text, half_order)) << text;
  }
}

// A secp256k1 key generated through libsecp256k1 is one OpenSSL's own key
// check accepts (the point is on the curve and is d*G).
TEST(OpensslCli, Secp256k1GeneratedKeyPassesOpensslCheck) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string der = dir.File("key.der");
  auto key = PrivateKey::Generate({KeyType::kEcSecp256k1, 0});
  ASSERT_TRUE(key.ok());
  WriteFile(der, *key->ToPkcs8Der());
  const std::string log = dir.File("check.log");
  EXPECT_EQ(RunOpenssl({"pkey", "-inform", "DER", "-in", der, "-check", "-noout"}, log), 0)
      << std::string(ReadFile(log).begin(), ReadFile(log).end());
}

struct ReverseCase {
  std::string name;
  std::vector<std::string> genpkey;    // args after "genpkey"
  std::vector<std::string> sign_opts;  // extra args for `openssl dgst -sign`
  SignParams params;
};

// openssl makes the key and signs; signet imports the PEM public key and
// verifies, and rejects the signature over a different message.
TEST(OpensslCli, SignetVerifiesOpensslSignatures) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string key = dir.File("key.pem"), pub = dir.File("pub.pem");
  const std::string data = dir.File("data"), sig = dir.File("sig");
  const std::string message = "openssl signs, signet verifies";
  WriteFile(data, message);
  const std::vector<std::string> rsa = {"-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"};
  auto ec = [](const char* curve) {
    return std::vector<std::string>{"-algorithm", "EC", "-pkeyopt",
                                    std::string("ec_paramgen_curve:") + curve};
  };
  const std::vector<ReverseCase> cases = {
      {"RSA PKCS#1 sha256", rsa, {"-sha256"}, {.scheme = SignScheme::kRsaPkcs1}},
      {"RSA PSS sha384",
       rsa,
       {"-sha384", "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:-1"},
       {.scheme = SignScheme::kRsaPss, .digest = DigestAlg::kSha384}},
      {"ECDSA P-256", ec("P-256"), {"-sha256"}, {.scheme = SignScheme::kEcdsa}},
      {"ECDSA P-384",
       ec("P-384"),
       {"-sha384"},
       {.scheme = SignScheme::kEcdsa, .digest = DigestAlg::kSha384}},
      {"ECDSA P-521",
       ec("P-521"),
       {"-sha512"},
       {.scheme = SignScheme::kEcdsa, .digest = DigestAlg::kSha512}},
      // Verified by libsecp256k1; openssl signs high-S half the time.
      {"ECDSA secp256k1", ec("secp256k1"), {"-sha256"}, {.scheme = SignScheme::kEcdsa}},
      {"ECDSA secp256k1 sha512",
       ec("secp256k1"),
       {"-sha512"},
       {.scheme = SignScheme::kEcdsa, .digest = DigestAlg::kSha512}},
      {"Ed25519", {"-algorithm", "ED25519"}, {}, {.scheme = SignScheme::kEddsa}},
  };
  for (const ReverseCase& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> gen = {"genpkey", "-out", key};
    gen.insert(gen.end(), c.genpkey.begin(), c.genpkey.end());
    ASSERT_EQ(RunOpenssl(gen), 0);
    ASSERT_EQ(RunOpenssl({"pkey", "-in", key, "-pubout", "-out", pub}), 0);
    std::vector<std::string> sign;
    if (c.params.scheme == SignScheme::kEddsa) {
      sign = {"pkeyutl", "-sign", "-inkey", key, "-rawin", "-in", data, "-out", sig};
    } else {
      sign = {"dgst", "-sign", key, "-out", sig};
      sign.insert(sign.begin() + 1, c.sign_opts.begin(), c.sign_opts.end());
      sign.push_back(data);
    }
    ASSERT_EQ(RunOpenssl(sign), 0);
    Bytes pem = ReadFile(pub);
    auto public_key = PublicKey::FromPem(std::string(pem.begin(), pem.end()));
    ASSERT_TRUE(public_key.ok()) << public_key.error().message;
    Bytes signature = ReadFile(sig);
    auto ok = Verify(*public_key, c.params, AsBytes(message), signature);
    EXPECT_TRUE(ok.ok()) << ok.error().message;
    auto tampered = Verify(*public_key, c.params, AsBytes(message + "!"), signature);
    ASSERT_FALSE(tampered.ok());
    EXPECT_EQ(tampered.error().code, CKR_SIGNATURE_INVALID);
  }
}

}  // namespace
}  // namespace signet::crypto
