// Tests for sign.h: every scheme round-trips, message and prehashed forms
// agree, ECDSA encodings convert, and each documented error code is returned
// for the input that should cause it. Independent verification by the
// `openssl` CLI lives in openssl_cli_verify_test.cc.
#include "crypto/sign.h"

#include <gtest/gtest.h>

#include <thread>

#include "base/hex.h"
#include "crypto/crypto_test_util.h"

namespace signet::crypto {
namespace {

using testing::CachedKey;

struct Case {
  KeySpec spec;
  SignParams params;
};

std::string Name(const Case& c) {
  return KeySpecName(c.spec) + " scheme=" + std::to_string(static_cast<int>(c.params.scheme)) +
         " digest=" + std::string(DigestName(c.params.digest)) +
         (c.params.prehashed ? " prehashed" : "");
}

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  const KeySpec rsa{KeyType::kRsa, 2048};
  for (DigestAlg d : {DigestAlg::kSha256, DigestAlg::kSha384, DigestAlg::kSha512}) {
    for (SignScheme s : {SignScheme::kRsaPkcs1, SignScheme::kRsaPss}) {
      for (bool pre : {false, true})
        cases.push_back({rsa, {.scheme = s, .digest = d, .prehashed = pre}});
    }
  }
  for (KeyType t : {KeyType::kEcP256, KeyType::kEcP384, KeyType::kEcP521, KeyType::kEcSecp256k1}) {
    for (EcdsaFormat f : {EcdsaFormat::kDer, EcdsaFormat::kRaw}) {
      for (bool pre : {false, true}) {
        cases.push_back({{t, 0},
                         {.scheme = SignScheme::kEcdsa,
                          .digest = DigestAlg::kSha256,
                          .prehashed = pre,
                          .ecdsa_format = f}});
      }
    }
  }
  cases.push_back({{KeyType::kEd25519, 0}, {.scheme = SignScheme::kEddsa}});
  cases.push_back({{KeyType::kEd448, 0}, {.scheme = SignScheme::kEddsa}});
  return cases;
}

Bytes Input(const SignParams& p, ByteView message) {
  return p.prehashed ? *Digest(p.digest, message) : Bytes(message.begin(), message.end());
}

TEST(Sign, EverySchemeRoundTripsAndRejectsTampering) {
  const ByteView message = AsBytes("the quick brown fox");
  for (const Case& c : AllCases()) {
    SCOPED_TRACE(Name(c));
    const PrivateKey* key = CachedKey(c.spec);
    ASSERT_NE(key, nullptr);
    PublicKey pub = *key->Public();
    Bytes input = Input(c.params, message);
    auto sig = Sign(*key, c.params, input);
    ASSERT_TRUE(sig.ok()) << sig.error().message;
    EXPECT_TRUE(Verify(pub, c.params, input, *sig).ok());

    Bytes other_input = Input(c.params, AsBytes("the quick brown fax"));
    auto wrong_msg = Verify(pub, c.params, other_input, *sig);
    ASSERT_FALSE(wrong_msg.ok());
    EXPECT_EQ(wrong_msg.error().code, CKR_SIGNATURE_INVALID);

    Bytes bad_sig = *sig;
    bad_sig[bad_sig.size() / 2] ^= 0x40;
    auto wrong_sig = Verify(pub, c.params, input, bad_sig);
    ASSERT_FALSE(wrong_sig.ok());
    EXPECT_EQ(wrong_sig.error().code, CKR_SIGNATURE_INVALID);
  }
}

// A signature made over the message verifies over its digest and back.
TEST(Sign, MessageAndPrehashedFormsAgree) {
  const ByteView message = AsBytes("prehash me");
  for (const Case& c : AllCases()) {
    if (c.params.prehashed || c.params.scheme == SignScheme::kEddsa) continue;
    SCOPED_TRACE(Name(c));
    const PrivateKey* key = CachedKey(c.spec);
    PublicKey pub = *key->Public();
    SignParams pre = c.params;
    pre.prehashed = true;
    Bytes digest = *Digest(c.params.digest, message);
    EXPECT_TRUE(Verify(pub, pre, digest, *Sign(*key, c.params, message)).ok());
    EXPECT_TRUE(Verify(pub, c.params, message, *Sign(*key, pre, digest)).ok());
    if (c.params.scheme == SignScheme::kRsaPkcs1) {  // deterministic
      EXPECT_EQ(*Sign(*key, c.params, message), *Sign(*key, pre, digest));
    }
  }
}

// CKM_RSA_PKCS: padding a caller-built DigestInfo gives the same bytes as
// CKM_SHA256_RSA_PKCS over the message.
TEST(Sign, RawPkcs1OverDigestInfoMatchesHashedForm) {
  const PrivateKey* key = CachedKey({KeyType::kRsa, 2048});
  const ByteView message = AsBytes("digest info");
  // DER prefix of DigestInfo{sha256} (RFC 8017 section 9.2 note 1).
  Bytes info = {0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
                0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20};
  Bytes digest = *Digest(DigestAlg::kSha256, message);
  info.insert(info.end(), digest.begin(), digest.end());
  SignParams raw{.scheme = SignScheme::kRsaPkcs1, .digest = DigestAlg::kNone};
  SignParams hashed{.scheme = SignScheme::kRsaPkcs1, .digest = DigestAlg::kSha256};
  auto sig = Sign(*key, raw, info);
  ASSERT_TRUE(sig.ok()) << sig.error().message;
  EXPECT_EQ(*sig, *Sign(*key, hashed, message));
  EXPECT_TRUE(Verify(*key->Public(), raw, info, *sig).ok());
  EXPECT_TRUE(Verify(*key->Public(), hashed, message, *sig).ok());

  auto too_long = Sign(*key, raw, Bytes(256 - 10, 0x01));
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.error().code, CKR_DATA_LEN_RANGE);
  EXPECT_TRUE(Sign(*key, raw, Bytes(256 - 11, 0x01)).ok());
}

TEST(Sign, PssSaltLengthsAndMgf1) {
  const PrivateKey* key = CachedKey({KeyType::kRsa, 2048});
  PublicKey pub = *key->Public();
  const ByteView message = AsBytes("pss");
  for (int salt : {0, 20, 32, -1}) {
    SignParams p{.scheme = SignScheme::kRsaPss, .digest = DigestAlg::kSha256, .pss_salt_len = salt};
    auto sig = Sign(*key, p, message);
    ASSERT_TRUE(sig.ok()) << salt;
    EXPECT_TRUE(Verify(pub, p, message, *sig).ok()) << salt;
  }
  SignParams mgf{
      .scheme = SignScheme::kRsaPss, .digest = DigestAlg::kSha256, .pss_mgf1 = DigestAlg::kSha512};
  Bytes sig = *Sign(*key, mgf, message);
  EXPECT_TRUE(Verify(pub, mgf, message, sig).ok());
  SignParams same_mgf = mgf;
  same_mgf.pss_mgf1 = DigestAlg::kNone;
  EXPECT_FALSE(Verify(pub, same_mgf, message, sig).ok());
  SignParams bad_salt{.scheme = SignScheme::kRsaPss, .pss_salt_len = -3};
  EXPECT_EQ(Sign(*key, bad_salt, message).error().code, CKR_MECHANISM_PARAM_INVALID);
  SignParams no_hash{.scheme = SignScheme::kRsaPss, .digest = DigestAlg::kNone};
  EXPECT_EQ(Sign(*key, no_hash, message).error().code, CKR_MECHANISM_PARAM_INVALID);
}

// CKM_ECDSA: the caller's hash of any length is signed as given.
TEST(Sign, EcdsaOverRawHashOfAnyLength) {
  const PrivateKey* key = CachedKey({KeyType::kEcP256, 0});
  SignParams p{.scheme = SignScheme::kEcdsa,
               .digest = DigestAlg::kNone,
               .prehashed = true,
               .ecdsa_format = EcdsaFormat::kRaw};
  Bytes sha1_sized(20, 0xab);
  auto sig = Sign(*key, p, sha1_sized);
  ASSERT_TRUE(sig.ok());
  EXPECT_EQ(sig->size(), 64u);
  EXPECT_TRUE(Verify(*key->Public(), p, sha1_sized, *sig).ok());
  SignParams unhashed = p;
  unhashed.prehashed = false;
  EXPECT_EQ(Sign(*key, unhashed, sha1_sized).error().code, CKR_MECHANISM_PARAM_INVALID);
}

TEST(EcdsaFormat, RawAndDerConvert) {
  for (KeyType t : {KeyType::kEcP256, KeyType::kEcP384, KeyType::kEcP521, KeyType::kEcSecp256k1}) {
    const PrivateKey* key = CachedKey({t, 0});
    SignParams der_params{.scheme = SignScheme::kEcdsa};
    Bytes der = *Sign(*key, der_params, AsBytes("m"));
    std::size_t fb = EcFieldBytes(t);
    Bytes raw = *EcdsaDerToRaw(der, fb);
    EXPECT_EQ(raw.size(), 2 * fb);
    EXPECT_EQ(*EcdsaRawToDer(raw), der);
    SignParams raw_params = der_params;
    raw_params.ecdsa_format = EcdsaFormat::kRaw;
    EXPECT_TRUE(Verify(*key->Public(), raw_params, AsBytes("m"), raw).ok());
  }
  EXPECT_EQ(EcFieldBytes(KeyType::kEcP521), 66u);
  EXPECT_EQ(EcdsaDerToRaw(Bytes{0x30, 0x00}, 32).error().code, CKR_SIGNATURE_INVALID);
  EXPECT_EQ(EcdsaRawToDer(Bytes(63, 1)).error().code, CKR_SIGNATURE_LEN_RANGE);
  // An r wider than the field cannot be squeezed into raw form.
  Bytes wide_der = *EcdsaRawToDer(Bytes(2 * 33, 0x7f));
  EXPECT_EQ(EcdsaDerToRaw(wide_der, 32).error().code, CKR_SIGNATURE_INVALID);
}

TEST(SignErrors, SchemeMustFitKey) {
  const PrivateKey* rsa = CachedKey({KeyType::kRsa, 2048});
  const PrivateKey* ec = CachedKey({KeyType::kEcP256, 0});
  const PrivateKey* ed = CachedKey({KeyType::kEd25519, 0});
  const ByteView m = AsBytes("x");
  EXPECT_EQ(Sign(*rsa, {.scheme = SignScheme::kEcdsa}, m).error().code, CKR_KEY_TYPE_INCONSISTENT);
  EXPECT_EQ(Sign(*ec, {.scheme = SignScheme::kRsaPss}, m).error().code, CKR_KEY_TYPE_INCONSISTENT);
  EXPECT_EQ(Sign(*ed, {.scheme = SignScheme::kEcdsa}, m).error().code, CKR_KEY_TYPE_INCONSISTENT);
  EXPECT_EQ(Sign(*ec, {.scheme = SignScheme::kEddsa}, m).error().code, CKR_KEY_TYPE_INCONSISTENT);
  EXPECT_EQ(Verify(*rsa->Public(), {.scheme = SignScheme::kEddsa}, m, Bytes(64)).error().code,
            CKR_KEY_TYPE_INCONSISTENT);
  EXPECT_EQ(Sign(*rsa, {.digest = DigestAlg::kMd5}, m).error().code, CKR_MECHANISM_INVALID);
}

TEST(SignErrors, PrehashedDigestMustHaveItsLength) {
  const PrivateKey* rsa = CachedKey({KeyType::kRsa, 2048});
  const PrivateKey* ec = CachedKey({KeyType::kEcP384, 0});
  SignParams p{.digest = DigestAlg::kSha384, .prehashed = true};
  EXPECT_EQ(Sign(*rsa, p, Bytes(32)).error().code, CKR_DATA_LEN_RANGE);
  p.scheme = SignScheme::kRsaPss;
  EXPECT_EQ(Sign(*rsa, p, Bytes(49)).error().code, CKR_DATA_LEN_RANGE);
  p.scheme = SignScheme::kEcdsa;
  EXPECT_EQ(Sign(*ec, p, Bytes(0)).error().code, CKR_DATA_LEN_RANGE);
  EXPECT_EQ(Verify(*ec->Public(), p, Bytes(47), Bytes(70, 1)).error().code, CKR_DATA_LEN_RANGE);
}

TEST(SignErrors, ImpossibleSignatureLengths) {
  const ByteView m = AsBytes("x");
  PublicKey rsa = *CachedKey({KeyType::kRsa, 2048})->Public();
  PublicKey ec = *CachedKey({KeyType::kEcP256, 0})->Public();
  PublicKey ed = *CachedKey({KeyType::kEd25519, 0})->Public();
  EXPECT_EQ(Verify(rsa, {}, m, Bytes(255, 1)).error().code, CKR_SIGNATURE_LEN_RANGE);
  EXPECT_EQ(Verify(rsa, {}, m, Bytes(257, 1)).error().code, CKR_SIGNATURE_LEN_RANGE);
  EXPECT_EQ(Verify(rsa, {}, m, Bytes(256, 1)).error().code, CKR_SIGNATURE_INVALID);
  SignParams raw{.scheme = SignScheme::kEcdsa, .ecdsa_format = EcdsaFormat::kRaw};
  EXPECT_EQ(Verify(ec, raw, m, Bytes(63, 1)).error().code, CKR_SIGNATURE_LEN_RANGE);
  EXPECT_EQ(Verify(ec, raw, m, Bytes(64, 1)).error().code, CKR_SIGNATURE_INVALID);
  SignParams der{.scheme = SignScheme::kEcdsa};
  EXPECT_EQ(Verify(ec, der, m, Bytes{}).error().code, CKR_SIGNATURE_LEN_RANGE);
  EXPECT_EQ(Verify(ec, der, m, Bytes(500, 1)).error().code, CKR_SIGNATURE_LEN_RANGE);
  EXPECT_EQ(Verify(ec, der, m, Bytes(20, 1)).error().code, CKR_SIGNATURE_INVALID);
  SignParams eddsa{.scheme = SignScheme::kEddsa};
  EXPECT_EQ(Verify(ed, eddsa, m, Bytes(63, 1)).error().code, CKR_SIGNATURE_LEN_RANGE);
  EXPECT_EQ(Verify(ed, eddsa, m, Bytes(64, 1)).error().code, CKR_SIGNATURE_INVALID);
}

// One key, many threads: what the daemon's worker pool does.
// RFC 8032 section 7.4, the first two Ed448 vectors (blank message, one
// octet; no context): the key from its 57-byte secret, the public key and
// the exact signature (EdDSA is deterministic), which verifies, and fails
// to once tampered with.
TEST(Sign, Ed448GivesRfc8032Section74Signatures) {
  struct Vector {
    const char *secret, *public_key, *message, *signature;
  };
  const Vector vectors[] = {
      {"6c82a562cb808d10d632be89c8513ebf6c929f34ddfa8c9f63c9960ef6e348a3528c8a3fcc2f044e39a3fc5b94"
       "492f8f032e7549a20098f95b",
       "5fd7449b59b461fd2ce787ec616ad46a1da1342485a70e1f8a0ea75d80e96778edf124769b46c7061bd6783df1"
       "e50f6cd1fa1abeafe8256180",
       "",
       "533a37f6bbe457251f023c0d88f976ae2dfb504a843e34d2074fd823d41a591f2b233f034f628281f2fd7a22dd"
       "d47d7828c59bd0a21bfd3980ff0d2028d4b18a9df63e006c5d1c2d345b925d8dc00b4104852db99ac5c7cdda85"
       "30a113a0f4dbb61149f05a7363268c71d95808ff2e652600"},
      {"c4eab05d357007c632f3dbb48489924d552b08fe0c353a0d4a1f00acda2c463afbea67c5e8d2877c5e3bc397a6"
       "59949ef8021e954e0a12274e",
       "43ba28f430cdff456ae531545f7ecd0ac834a55d9358c0372bfa0c6c6798c0866aea01eb00742802b8438ea4cb"
       "82169c235160627b4c3a9480",
       "03",
       "26b8f91727bd62897af15e41eb43c377efb9c610d48f2335cb0bd0087810f4352541b143c4b981b7e18f62de8c"
       "cdf633fc1bf037ab7cd779805e0dbcc0aae1cbcee1afb2e027df36bc04dcecbf154336c19f0af7e0a6472905e7"
       "99f1953d2a0ff3348ab21aa4adafd1d234441cf807c03a00"},
  };
  const SignParams eddsa{.scheme = SignScheme::kEddsa};
  for (const Vector& v : vectors) {
    SCOPED_TRACE(v.public_key);
    auto key = PrivateKey::FromEcPrivateValue(EcParamsDer(KeyType::kEd448), *FromHex(v.secret));
    ASSERT_TRUE(key.ok()) << key.error().message;
    EXPECT_EQ(key->spec().type, KeyType::kEd448);
    auto pub = key->Public();
    ASSERT_TRUE(pub.ok());
    EXPECT_EQ(ToHex(*pub->EcPoint()), v.public_key);
    const Bytes message = *FromHex(v.message);
    auto sig = Sign(*key, eddsa, message);
    ASSERT_TRUE(sig.ok()) << sig.error().message;
    EXPECT_EQ(ToHex(*sig), v.signature);
    EXPECT_TRUE(Verify(*pub, eddsa, message, *sig).ok());
    Bytes bad = *sig;
    bad[10] ^= 1;
    EXPECT_EQ(Verify(*pub, eddsa, message, bad).error().code, CKR_SIGNATURE_INVALID);
    EXPECT_EQ(Verify(*pub, eddsa, message, Bytes(64)).error().code, CKR_SIGNATURE_LEN_RANGE);
    // CK_EDDSA_PARAMS without prehash or context: plain Ed448 still.
    SignParams with_params = eddsa;
    with_params.eddsa = EddsaInstance{};
    EXPECT_EQ(ToHex(*Sign(*key, with_params, message)), v.signature);
  }
  // The printable curve name of PKCS#11 3.0 names the same curve.
  const Bytes edwards448 = {0x13, 0x0a, 'e', 'd', 'w', 'a', 'r', 'd', 's', '4', '4', '8'};
  EXPECT_EQ(*KeyTypeFromEcParams(edwards448), KeyType::kEd448);
  EXPECT_EQ(ParseKeySpec("ed448")->type, KeyType::kEd448);
}

// RFC 8032 section 7's vectors for the instances CK_EDDSA_PARAMS select
// (libdecaf signs them): Ed25519ctx (7.2, all four), Ed25519ph (7.3),
// Ed448 with a context (7.4, "1 octet (with context)") and Ed448ph (7.5,
// both). EdDSA is deterministic, so each signature must come out exactly;
// it verifies, and fails to under a changed context, under the other
// prehash flag, over another message, or once tampered with.
TEST(Sign, EddsaInstancesGiveRfc8032Section7Signatures) {
  struct Vector {
    KeyType type;
    bool prehash;
    const char *secret, *public_key, *message, *context, *signature;
  };
  const char* k25519ctx = "0305334e381af78f141cb666f6199f57bc3495335a256a95bd2a55bf546663f6";
  const char* p25519ctx = "dfc9425e4f968f7f0c29f0259cf5f9aed6851c2bb4ad8bfb860cfee0ab248292";
  const char* k448ph =
      "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42ef7822e0d5104127dc05d6dbefde"
      "69e3ab2cec7c867c6e2c49";
  const char* p448ph =
      "259b71c19f83ef77a7abd26524cbdb3161b590a48f7d17de3ee0ba9c52beb743c09428a131d6b1b57303d90d8132"
      "c276d5ed3d5d01c0f53880";
  const Vector vectors[] = {
      {KeyType::kEd25519, false, k25519ctx, p25519ctx, "f726936d19c800494e3fdaff20b276a8", "666f6f",
       "55a4cc2f70a54e04288c5f4cd1e45a7bb520b36292911876cada7323198dd87a8b36950b95130022907a7fb7c4e"
       "9"
       "b2d5f6cca685a587b4b21f4b888e4e7edb0d"},
      {KeyType::kEd25519, false, k25519ctx, p25519ctx, "f726936d19c800494e3fdaff20b276a8", "626172",
       "fc60d5872fc46b3aa69f8b5b4351d5808f92bcc044606db097abab6dbcb1aee3216c48e8b3b66431b5b186d1d28"
       "f"
       "8ee15a5ca2df6668346291c2043d4eb3e90d"},
      {KeyType::kEd25519, false, k25519ctx, p25519ctx, "508e9e6882b979fea900f62adceaca35", "666f6f",
       "8b70c1cc8310e1de20ac53ce28ae6e7207f33c3295e03bb5c0732a1d20dc64908922a8b052cf99b7c4fe107a5ab"
       "b"
       "5b2c4085ae75890d02df26269d8945f84b0b"},
      {KeyType::kEd25519, false, "ab9c2853ce297ddab85c993b3ae14bcad39b2c682beabc27d6d4eb20711d6560",
       "0f1d1274943b91415889152e893d80e93275a1fc0b65fd71b4b0dda10ad7d772",
       "f726936d19c800494e3fdaff20b276a8", "666f6f",
       "21655b5f1aa965996b3f97b3c849eafba922a0a62992f73b3d1b73106a84ad85e9b86a7b6005ea868337ff2d20a"
       "7"
       "f5fbd4cd10b0be49a68da2b2e0dc0ad8960f"},
      {KeyType::kEd25519, true, "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
       "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf", "616263", "",
       "98a70222f0b8121aa9d30f813d683f809e462b469c7ff87639499bb94e6dae4131f85042463c2a355a2003d062a"
       "d"
       "f5aaa10b8c61e636062aaad11c2a26083406"},
      {KeyType::kEd448, false,
       "c4eab05d357007c632f3dbb48489924d552b08fe0c353a0d4a1f00acda2c463afbea67c5e8d2877c5e3bc397a65"
       "9"
       "949ef8021e954e0a12274e",
       "43ba28f430cdff456ae531545f7ecd0ac834a55d9358c0372bfa0c6c6798c0866aea01eb00742802b8438ea4cb8"
       "2"
       "169c235160627b4c3a9480",
       "03", "666f6f",
       "d4f8f6131770dd46f40867d6fd5d5055de43541f8c5e35abbcd001b32a89f7d2151f7647f11d8ca2ae279fb842d"
       "6"
       "07217fce6e042f6815ea000c85741de5c8da1144a6a1aba7f96de42505d7a7298524fda538fccbbb754f578c1ca"
       "d"
       "10d54d0d5428407e85dcbc98a49155c13764e66c3c00"},
      {KeyType::kEd448, true, k448ph, p448ph, "616263", "",
       "822f6901f7480f3d5f562c592994d9693602875614483256505600bbc281ae381f54d6bce2ea911574932f52a4e"
       "6"
       "cadd78769375ec3ffd1b801a0d9b3f4030cd433964b6457ea39476511214f97469b57dd32dbc560a9a94d00bff0"
       "7"
       "620464a3ad203df7dc7ce360c3cd3696d9d9fab90f00"},
      {KeyType::kEd448, true, k448ph, p448ph, "616263", "666f6f",
       "c32299d46ec8ff02b54540982814dce9a05812f81962b649d528095916a2aa481065b1580423ef927ecf0af5888"
       "f"
       "90da0f6a9a85ad5dc3f280d91224ba9911a3653d00e484e2ce232521481c8658df304bb7745a73514cdb9bf3e15"
       "7"
       "84ab71284f8d0704a608c54a6b62d97beb511d132100"},
  };
  for (const Vector& v : vectors) {
    SCOPED_TRACE(std::string(v.signature).substr(0, 16));
    auto key = PrivateKey::FromEcPrivateValue(EcParamsDer(v.type), *FromHex(v.secret));
    ASSERT_TRUE(key.ok()) << key.error().message;
    auto pub = key->Public();
    ASSERT_TRUE(pub.ok());
    EXPECT_EQ(ToHex(*pub->EcPoint()), v.public_key);
    SignParams p{.scheme = SignScheme::kEddsa};
    p.eddsa = EddsaInstance{v.prehash, *FromHex(v.context)};
    const Bytes message = *FromHex(v.message);
    auto sig = Sign(*key, p, message);
    ASSERT_TRUE(sig.ok()) << sig.error().message;
    EXPECT_EQ(ToHex(*sig), v.signature);
    EXPECT_TRUE(Verify(*pub, p, message, *sig).ok());

    SignParams other_context{.scheme = SignScheme::kEddsa};
    other_context.eddsa = EddsaInstance{v.prehash, *FromHex(std::string(v.context) + "21")};
    EXPECT_EQ(Verify(*pub, other_context, message, *sig).error().code, CKR_SIGNATURE_INVALID);
    SignParams other_flag{.scheme = SignScheme::kEddsa};
    // Without prehash or context, plain EdDSA (Ed25519ctx needs a context).
    const bool flipped = !v.prehash;
    if (flipped || !p.eddsa->context.empty()) {
      other_flag.eddsa = EddsaInstance{flipped, p.eddsa->context};
    }
    EXPECT_EQ(Verify(*pub, other_flag, message, *sig).error().code, CKR_SIGNATURE_INVALID);
    Bytes longer = message;
    longer.push_back(0);
    EXPECT_EQ(Verify(*pub, p, longer, *sig).error().code, CKR_SIGNATURE_INVALID);
    Bytes bad = *sig;
    bad[5] ^= 1;
    EXPECT_EQ(Verify(*pub, p, message, bad).error().code, CKR_SIGNATURE_INVALID);
    EXPECT_EQ(Verify(*pub, p, message, Bytes(sig->size() - 1)).error().code,
              CKR_SIGNATURE_LEN_RANGE);
  }
}

// The instances' parameter rules (EddsaInstance): Ed25519ctx needs a
// context; a context is at most 255 bytes, for either curve, signing or
// verifying.
TEST(Sign, EddsaInstanceParametersAreChecked) {
  const PrivateKey& ed25519 = *CachedKey({KeyType::kEd25519, 0});
  const PrivateKey& ed448 = *CachedKey({KeyType::kEd448, 0});
  SignParams p{.scheme = SignScheme::kEddsa};
  p.eddsa = EddsaInstance{};
  EXPECT_EQ(Sign(ed25519, p, Bytes{1}).error().code, CKR_MECHANISM_PARAM_INVALID);
  EXPECT_TRUE(Sign(ed448, p, Bytes{1}).ok());
  p.eddsa->context = Bytes(kMaxEddsaContext, 'c');
  EXPECT_TRUE(Sign(ed25519, p, Bytes{1}).ok());
  EXPECT_TRUE(Sign(ed448, p, Bytes{1}).ok());
  p.eddsa->context.push_back('c');
  for (const PrivateKey* key : {&ed25519, &ed448}) {
    EXPECT_EQ(Sign(*key, p, Bytes{1}).error().code, CKR_MECHANISM_PARAM_INVALID);
    EXPECT_EQ(Verify(*key->Public(), p, Bytes{1}, Bytes(64)).error().code,
              CKR_MECHANISM_PARAM_INVALID);
  }
}

TEST(Sign, SameKeyFromManyThreads) {
  const PrivateKey* rsa = CachedKey({KeyType::kRsa, 2048});
  const PrivateKey* ec = CachedKey({KeyType::kEcP256, 0});
  const PrivateKey* ed = CachedKey({KeyType::kEd25519, 0});
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Bytes m = {static_cast<std::uint8_t>(t)};
      for (int i = 0; i < 20; ++i) {
        for (auto [key, params] : {std::pair{rsa, SignParams{.scheme = SignScheme::kRsaPss}},
                                   std::pair{ec, SignParams{.scheme = SignScheme::kEcdsa}},
                                   std::pair{ed, SignParams{.scheme = SignScheme::kEddsa}}}) {
          auto sig = Sign(*key, params, m);
          if (!sig.ok() || !Verify(*key->Public(), params, m, *sig).ok()) ++failures;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(Sign, RsaSizesAtTheEdgesOfTheRange) {
  for (int bits : {1024, 4096}) {
    auto key = PrivateKey::Generate({KeyType::kRsa, bits});
    ASSERT_TRUE(key.ok());
    SignParams p{.scheme = SignScheme::kRsaPss, .digest = DigestAlg::kSha384};
    Bytes sig = *Sign(*key, p, AsBytes("edge"));
    EXPECT_EQ(sig.size(), static_cast<std::size_t>(bits / 8));
    EXPECT_TRUE(Verify(*key->Public(), p, AsBytes("edge"), sig).ok());
    if (bits == 1024) {
      // 128-byte modulus < 64 (SHA-512) + 64 (salt) + 2: PSS cannot encode it.
      p.digest = DigestAlg::kSha512;
      EXPECT_EQ(Sign(*key, p, AsBytes("edge")).error().code, CKR_KEY_SIZE_RANGE);
    }
  }
}

}  // namespace
}  // namespace signet::crypto
