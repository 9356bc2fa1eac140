// Tests for keys.h: key specs, CKA_EC_PARAMS, generation limits, PKCS#8 and
// SubjectPublicKeyInfo codecs, and the PKCS#11 component forms. Encodings
// are cross-checked against the `openssl` command-line tool.
#include "crypto/keys.h"

#include <gtest/gtest.h>

#include "crypto/crypto_test_util.h"

namespace signet::crypto {
namespace {

using testing::CachedKey;
using testing::ReadFile;
using testing::RunOpenssl;
using testing::TempDir;
using testing::WriteFile;

const KeySpec kAllSpecs[] = {{KeyType::kRsa, 2048},      {KeyType::kEcP256, 0},
                             {KeyType::kEcP384, 0},      {KeyType::kEcP521, 0},
                             {KeyType::kEcSecp256k1, 0}, {KeyType::kEd25519, 0}};

TEST(KeySpec, ParsesEveryNameAndBack) {
  for (const char* name : {"rsa:2048", "rsa:1024", "ec:p256", "ec:p384", "ec:p521", "ec:secp256k1",
                           "ec:secp192r1", "ed25519"}) {
    auto spec = ParseKeySpec(name);
    ASSERT_TRUE(spec.ok()) << name;
    EXPECT_EQ(KeySpecName(*spec), name);
  }
  EXPECT_EQ(ParseKeySpec("rsa:3072")->rsa_bits, 3072);
  EXPECT_EQ(ParseKeySpec("ec:p192")->type, KeyType::kEcP192);
  EXPECT_TRUE(IsBenchOnly(KeyType::kEcP192));
  EXPECT_FALSE(IsBenchOnly(KeyType::kEcP256));
}

TEST(KeySpec, RejectsUnknownNames) {
  for (const char* name : {"", "rsa", "rsa:", "rsa:20x8", "rsa:-1", "ec:p255", "ED25519", "dsa"}) {
    auto spec = ParseKeySpec(name);
    ASSERT_FALSE(spec.ok()) << name;
    EXPECT_EQ(spec.error().code, CKR_ARGUMENTS_BAD);
  }
}

// The DER OIDs must be exactly what OpenSSL writes for the named curve.
TEST(EcParams, MatchOpensslEncodings) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::pair<KeyType, const char*> curves[] = {{KeyType::kEcP256, "prime256v1"},
                                                    {KeyType::kEcP384, "secp384r1"},
                                                    {KeyType::kEcP521, "secp521r1"},
                                                    {KeyType::kEcSecp256k1, "secp256k1"},
                                                    {KeyType::kEcP192, "prime192v1"}};
  for (const auto& [type, name] : curves) {
    std::string out = dir.File(std::string(name) + ".der");
    ASSERT_EQ(RunOpenssl({"ecparam", "-name", name, "-outform", "DER", "-out", out}), 0);
    EXPECT_EQ(EcParamsDer(type), ReadFile(out)) << name;
    EXPECT_EQ(*KeyTypeFromEcParams(ReadFile(out)), type) << name;
    EXPECT_TRUE(IsEc(type));
  }
  EXPECT_FALSE(IsEc(KeyType::kRsa));
  EXPECT_FALSE(IsEc(KeyType::kEd25519));
  EXPECT_TRUE(EcParamsDer(KeyType::kRsa).empty());
}

TEST(EcParams, Ed25519AcceptsOidAndPrintableString) {
  EXPECT_EQ(EcParamsDer(KeyType::kEd25519), (Bytes{0x06, 0x03, 0x2b, 0x65, 0x70}));
  EXPECT_EQ(*KeyTypeFromEcParams(EcParamsDer(KeyType::kEd25519)), KeyType::kEd25519);
  const char kPrintable[] =
      "\x13\x0c"
      "edwards25519";
  EXPECT_EQ(*KeyTypeFromEcParams(AsBytes(std::string_view(kPrintable, 14))), KeyType::kEd25519);
}

TEST(EcParams, UnknownCurveIsNotSupported) {
  // secp224r1 (1.3.132.0.33) and a truncated P-256 OID.
  for (Bytes der : {Bytes{0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x21},
                    Bytes{0x06, 0x08, 0x2a, 0x86, 0x48}, Bytes{}}) {
    auto type = KeyTypeFromEcParams(der);
    ASSERT_FALSE(type.ok());
    EXPECT_EQ(type.error().code, CKR_CURVE_NOT_SUPPORTED);
  }
}

TEST(Generate, EveryTypeReportsItsSpec) {
  for (const auto& spec : kAllSpecs) {
    const PrivateKey* key = CachedKey(spec);
    ASSERT_NE(key, nullptr) << KeySpecName(spec);
    EXPECT_EQ(KeySpecName(key->spec()), KeySpecName(spec));
    auto pub = key->Public();
    ASSERT_TRUE(pub.ok());
    EXPECT_EQ(KeySpecName(pub->spec()), KeySpecName(spec));
  }
}

TEST(Generate, RsaSizeLimits) {
  for (int bits : {0, 512, 1023, 4097, 8192}) {
    auto key = PrivateKey::Generate({KeyType::kRsa, bits});
    ASSERT_FALSE(key.ok()) << bits;
    EXPECT_EQ(key.error().code, CKR_KEY_SIZE_RANGE);
  }
  auto weak = PrivateKey::Generate({KeyType::kRsa, 512}, {.allow_weak_rsa = true});
  ASSERT_TRUE(weak.ok());
  EXPECT_EQ(weak->spec().rsa_bits, 512);
  auto too_weak = PrivateKey::Generate({KeyType::kRsa, 384}, {.allow_weak_rsa = true});
  EXPECT_FALSE(too_weak.ok());
  auto small = PrivateKey::Generate({KeyType::kRsa, 1024});
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(*small->Public()->RsaPublicExponent(), (Bytes{0x01, 0x00, 0x01}));
  EXPECT_EQ(small->Public()->RsaModulus()->size(), 128u);
}

// Our PKCS#8 must parse with `openssl pkey` and give the same public key.
TEST(Pkcs8, RoundTripsAndOpensslReadsIt) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  for (const auto& spec : kAllSpecs) {
    const PrivateKey* key = CachedKey(spec);
    ASSERT_NE(key, nullptr);
    auto der = key->ToPkcs8Der();
    ASSERT_TRUE(der.ok());
    auto back = PrivateKey::FromPkcs8Der(*der);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(KeySpecName(back->spec()), KeySpecName(spec));
    Bytes ours = *key->Public()->ToDer();
    EXPECT_EQ(*back->Public()->ToDer(), ours);

    std::string in = dir.File("key.p8"), out = dir.File("pub.der");
    WriteFile(in, *der);
    ASSERT_EQ(RunOpenssl(
                  {"pkey", "-inform", "DER", "-in", in, "-pubout", "-outform", "DER", "-out", out}),
              0)
        << KeySpecName(spec);
    EXPECT_EQ(ReadFile(out), ours) << KeySpecName(spec);
  }
}

TEST(Pkcs8, ReadsKeysMadeByOpenssl) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  std::string pem = dir.File("k.pem"), der = dir.File("k.p8");
  ASSERT_EQ(RunOpenssl({"genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384",
                        "-out", pem}),
            0);
  ASSERT_EQ(RunOpenssl({"pkcs8", "-topk8", "-nocrypt", "-in", pem, "-outform", "DER", "-out", der}),
            0);
  Bytes bytes = ReadFile(der);
  auto key = PrivateKey::FromPkcs8Der(bytes);
  ASSERT_TRUE(key.ok()) << key.error().message;
  EXPECT_EQ(key->spec().type, KeyType::kEcP384);
}

// FromEncoded reads what openssl writes: PEM and DER, PKCS#8 and the
// traditional RSA / EC forms; the key is the one openssl made (same public
// key); encrypted keys and garbage are refused.
TEST(EncodedPrivateKey, ReadsOpensslFilesInEveryCommonForm) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  struct Case {
    std::vector<std::string> genpkey;
    std::vector<std::string> convert;  // turns k.pem into k.out ({} = use k.pem)
    KeyType type;
  };
  const std::vector<Case> cases = {
      {{"-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"}, {}, KeyType::kRsa},
      {{"-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"},
       {"rsa", "-traditional", "-outform", "DER"},
       KeyType::kRsa},
      {{"-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"},
       {"ec", "-outform", "PEM"},
       KeyType::kEcP256},
      {{"-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"},
       {"pkcs8", "-topk8", "-nocrypt", "-outform", "DER"},
       KeyType::kEcP256},
      {{"-algorithm", "ED25519"}, {}, KeyType::kEd25519},
  };
  for (const Case& c : cases) {
    std::string pem = dir.File("k.pem"), out = dir.File("k.out"), pub = dir.File("pub.der");
    std::vector<std::string> gen = {"genpkey"};
    gen.insert(gen.end(), c.genpkey.begin(), c.genpkey.end());
    gen.insert(gen.end(), {"-out", pem});
    ASSERT_EQ(RunOpenssl(gen), 0);
    std::string input = pem;
    if (!c.convert.empty()) {
      std::vector<std::string> convert = c.convert;
      convert.insert(convert.end(), {"-in", pem, "-out", out});
      ASSERT_EQ(RunOpenssl(convert), 0) << c.convert[0];
      input = out;
    }
    ASSERT_EQ(RunOpenssl({"pkey", "-in", pem, "-pubout", "-outform", "DER", "-out", pub}), 0);
    auto key = PrivateKey::FromEncoded(ReadFile(input));
    ASSERT_TRUE(key.ok()) << key.error().message;
    EXPECT_EQ(key->spec().type, c.type);
    EXPECT_EQ(*key->Public()->ToDer(), ReadFile(pub));
  }

  std::string encrypted = dir.File("enc.pem");
  ASSERT_EQ(RunOpenssl({"genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                        "-aes-128-cbc", "-pass", "pass:secret", "-out", encrypted}),
            0);
  EXPECT_EQ(PrivateKey::FromEncoded(ReadFile(encrypted)).error().code,
            CKR_ATTRIBUTE_VALUE_INVALID);
  EXPECT_EQ(PrivateKey::FromEncoded(Bytes{'n', 'o', 'p', 'e'}).error().code,
            CKR_ATTRIBUTE_VALUE_INVALID);
}

TEST(Pkcs8, RejectsGarbageTruncationAndTrailingBytes) {
  SecureBytes der = *CachedKey({KeyType::kEcP256, 0})->ToPkcs8Der();
  SecureBytes truncated(der.begin(), der.end() - 1);
  SecureBytes trailing = der;
  trailing.push_back(0);
  for (const SecureBytes& bad : {SecureBytes{}, SecureBytes{0x30, 0x00}, truncated, trailing}) {
    auto key = PrivateKey::FromPkcs8Der(bad);
    ASSERT_FALSE(key.ok());
    EXPECT_EQ(key.error().code, CKR_ATTRIBUTE_VALUE_INVALID);
  }
}

TEST(PublicKeyCodec, DerAndPemRoundTripAndMatchOpenssl) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  for (const auto& spec : kAllSpecs) {
    auto pub = *CachedKey(spec)->Public();
    Bytes der = *pub.ToDer();
    std::string pem = *pub.ToPem();
    EXPECT_EQ(*PublicKey::FromDer(der)->ToDer(), der);
    EXPECT_EQ(*PublicKey::FromPem(pem)->ToDer(), der);
    // openssl converts our PEM to DER byte-for-byte the same.
    std::string in = dir.File("pub.pem"), out = dir.File("pub.der");
    WriteFile(in, pem);
    ASSERT_EQ(RunOpenssl({"pkey", "-pubin", "-in", in, "-outform", "DER", "-out", out}), 0);
    EXPECT_EQ(ReadFile(out), der) << KeySpecName(spec);
  }
}

TEST(PublicKeyCodec, RejectsGarbageAndUnsupportedTypes) {
  auto bad = PublicKey::FromDer(Bytes{0x30, 0x03, 0x02, 0x01, 0x00});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, CKR_ATTRIBUTE_VALUE_INVALID);
  EXPECT_FALSE(
      PublicKey::FromPem("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n").ok());

  TempDir dir;
  ASSERT_TRUE(dir.ok());
  std::string priv = dir.File("x.pem"), pub = dir.File("x.der");
  // An RSA-PSS-restricted key is a type signet does not take.
  ASSERT_EQ(RunOpenssl({"genpkey", "-algorithm", "RSA-PSS", "-pkeyopt", "rsa_keygen_bits:1024",
                        "-out", priv}),
            0);
  ASSERT_EQ(RunOpenssl({"pkey", "-in", priv, "-pubout", "-outform", "DER", "-out", pub}), 0);
  auto pss = PublicKey::FromDer(ReadFile(pub));
  ASSERT_FALSE(pss.ok());
  EXPECT_EQ(pss.error().code, CKR_KEY_TYPE_INCONSISTENT);
  // Ed448 keys are read (for EdDSA).
  ASSERT_EQ(RunOpenssl({"genpkey", "-algorithm", "ED448", "-out", priv}), 0);
  ASSERT_EQ(RunOpenssl({"pkey", "-in", priv, "-pubout", "-outform", "DER", "-out", pub}), 0);
  auto ed448 = PublicKey::FromDer(ReadFile(pub));
  ASSERT_TRUE(ed448.ok()) << ed448.error().message;
  EXPECT_EQ(ed448->spec().type, KeyType::kEd448);
  EXPECT_EQ(ed448->EcPoint()->size(), 57u);
  // X25519 and X448 keys are read (for key agreement).
  ASSERT_EQ(RunOpenssl({"genpkey", "-algorithm", "X448", "-out", priv}), 0);
  ASSERT_EQ(RunOpenssl({"pkey", "-in", priv, "-pubout", "-outform", "DER", "-out", pub}), 0);
  auto x448 = PublicKey::FromDer(ReadFile(pub));
  ASSERT_TRUE(x448.ok()) << x448.error().message;
  EXPECT_EQ(x448->spec().type, KeyType::kX448);
  EXPECT_EQ(x448->EcPoint()->size(), 56u);
  // CKA_EC_PARAMS may name them by PKCS#11 3.0's printable strings too.
  const Bytes curve25519 = {0x13, 0x0a, 'c', 'u', 'r', 'v', 'e', '2', '5', '5', '1', '9'};
  const Bytes curve448 = {0x13, 0x08, 'c', 'u', 'r', 'v', 'e', '4', '4', '8'};
  EXPECT_EQ(*KeyTypeFromEcParams(curve25519), KeyType::kX25519);
  EXPECT_EQ(*KeyTypeFromEcParams(curve448), KeyType::kX448);
}

TEST(PublicKeyCodec, RsaComponentsRoundTrip) {
  auto pub = *CachedKey({KeyType::kRsa, 2048})->Public();
  Bytes n = *pub.RsaModulus();
  Bytes e = *pub.RsaPublicExponent();
  EXPECT_EQ(n.size(), 256u);
  EXPECT_NE(n[0], 0);
  EXPECT_EQ(e, (Bytes{0x01, 0x00, 0x01}));
  auto rebuilt = PublicKey::FromRsaComponents(n, e);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.error().message;
  EXPECT_EQ(*rebuilt->ToDer(), *pub.ToDer());
  EXPECT_FALSE(PublicKey::FromRsaComponents({}, e).ok());
  EXPECT_FALSE(PublicKey::FromRsaComponents(n, Bytes{0x02}).ok());  // even exponent
  auto not_ec = pub.EcPoint();
  ASSERT_FALSE(not_ec.ok());
  EXPECT_EQ(not_ec.error().code, CKR_KEY_TYPE_INCONSISTENT);
}

TEST(PublicKeyCodec, EcPointRoundTripsRawAndWrapped) {
  for (const auto& spec : kAllSpecs) {
    if (spec.type == KeyType::kRsa) continue;
    auto pub = *CachedKey(spec)->Public();
    Bytes point = *pub.EcPoint();
    Bytes params = EcParamsDer(spec.type);
    Bytes der = *pub.ToDer();
    auto raw = PublicKey::FromEcPoint(params, point);
    ASSERT_TRUE(raw.ok()) << KeySpecName(spec) << ": " << raw.error().message;
    EXPECT_EQ(*raw->ToDer(), der);
    // CKA_EC_POINT form: DER OCTET STRING around the point.
    Bytes wrapped{0x04};
    if (point.size() >= 0x80) wrapped.push_back(0x81);
    wrapped.push_back(static_cast<std::uint8_t>(point.size()));
    wrapped.insert(wrapped.end(), point.begin(), point.end());
    auto from_wrapped = PublicKey::FromEcPoint(params, wrapped);
    ASSERT_TRUE(from_wrapped.ok()) << KeySpecName(spec);
    EXPECT_EQ(*from_wrapped->ToDer(), der);
    auto rsa = pub.RsaModulus();
    EXPECT_FALSE(rsa.ok());
  }
}

TEST(PublicKeyCodec, EcPointRejectsOffCurveAndBadLengths) {
  auto pub = *CachedKey({KeyType::kEcP256, 0})->Public();
  Bytes params = EcParamsDer(KeyType::kEcP256);
  Bytes point = *pub.EcPoint();
  ASSERT_EQ(point.size(), 65u);
  Bytes off_curve = point;
  off_curve[64] ^= 0x01;
  EXPECT_FALSE(PublicKey::FromEcPoint(params, off_curve).ok());
  EXPECT_FALSE(PublicKey::FromEcPoint(params, Bytes(point.begin(), point.end() - 1)).ok());
  auto wrong_curve = PublicKey::FromEcPoint(EcParamsDer(KeyType::kEcP384), point);
  EXPECT_FALSE(wrong_curve.ok());
  auto ed = PublicKey::FromEcPoint(EcParamsDer(KeyType::kEd25519), Bytes(31, 0x01));
  ASSERT_FALSE(ed.ok());
  EXPECT_EQ(ed.error().code, CKR_ATTRIBUTE_VALUE_INVALID);
  auto unknown = PublicKey::FromEcPoint(Bytes{0x06, 0x01, 0x00}, point);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, CKR_CURVE_NOT_SUPPORTED);
}

TEST(PublicKeyCodec, CompressedPointIsExportedUncompressed) {
  auto pub = *CachedKey({KeyType::kEcP256, 0})->Public();
  Bytes point = *pub.EcPoint();
  Bytes compressed{static_cast<std::uint8_t>(0x02 | (point[64] & 1))};
  compressed.insert(compressed.end(), point.begin() + 1, point.begin() + 33);
  auto imported = PublicKey::FromEcPoint(EcParamsDer(KeyType::kEcP256), compressed);
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(*imported->EcPoint(), point);
}

}  // namespace
}  // namespace signet::crypto
