// Key agreement against published known answers: the NIST CAVS 14.1 "ECC
// CDH Primitive" vectors (SP 800-56A, the first of each curve) and the
// NIST CAVS ANSI X9.63-2001 KDF vectors (SP 800-135, with and without
// shared info, one per hash); then against the `openssl` command-line tool
// (pkeyutl -derive on secp256k1, for which NIST publishes no vector, and
// the kdf command); then the refusals. X25519 and X448: RFC 7748 section
// 5.2 (the function's test vectors) and section 6 (the Diffie-Hellman
// exchanges), and agreement with `openssl pkeyutl -derive`.
#include "crypto/key_agreement.h"

#include <gtest/gtest.h>

#include <string>

#include "base/hex.h"
#include "crypto/crypto_test_util.h"

namespace signet::crypto {
namespace {

using testing::ReadFile;
using testing::RunOpenssl;
using testing::TempDir;
using testing::WriteFile;

Bytes H(std::string_view hex) {
  auto bytes = FromHex(hex);
  EXPECT_TRUE(bytes.has_value()) << hex;
  return bytes.value_or(Bytes{});
}

std::string Hex(const SecureBytes& bytes) { return ToHex(ByteView(bytes.data(), bytes.size())); }

struct CdhVector {
  KeyType curve;
  std::string d;     // dIUT
  std::string peer;  // 04 || QCAVSx || QCAVSy
  std::string z;     // ZIUT
};

// The first vector (COUNT = 0) of each curve's section.
const CdhVector kCdhVectors[] = {
    {KeyType::kEcP256, "7d7dc5f71eb29ddaf80d6214632eeae03d9058af1fb6d22ed80badb62bc1a534",
     "04700c48f77f56584c5cc632ca65640db91b6bacce3a4df6b42ce7cc838833d287"
     "db71e509e3fd9b060ddb20ba5c51dcc5948d46fbf640dfe0441782cab85fa4ac",
     "46fc62106420ff012e54a434fbdd2d25ccc5852060561e68040dd7778997bd7b"},
    {KeyType::kEcP384,
     "3cc3122a68f0d95027ad38c067916ba0eb8c38894d22e1b15618b6818a661774ad463b205da88cf699ab4d43c9cf9"
     "8a1",
     "04a7c76b970c3b5fe8b05d2838ae04ab47697b9eaf52e764592efda27fe7513272734466b400091adbf2d68c58e0c"
     "50066ac68f19f2e1cb879aed43a9969b91a0839c4c38a49749b661efedf243451915ed0905a32b060992b468c6476"
     "6fc8437a",
     "5f9d29dc5e31a163060356213669c8ce132e22f57c9a04f40ba7fcead493b457e5621e766c40a2e3d4d6a04b25e53"
     "3f1"},
    {KeyType::kEcP521,
     "017eecc07ab4b329068fba65e56a1f8890aa935e57134ae0ffcce802735151f4eac6564f6ee9974c5e6887a1fefee"
     "5743ae2241bfeb95d5ce31ddcb6f9edb4d6fc47",
     "0400685a48e86c79f0f0875f7bc18d25eb5fc8c0b07e5da4f4370f3a9490340854334b1e1b87fa395464c60626124"
     "a4e70d0f785601d37c09870ebf176666877a2046d01ba52c56fc8776d9e8f5db4f0cc27636d0b741bbe0540069794"
     "2e80b739884a83bde99e0f6716939e632bc8986fa18dccd443a348b6c3e522497955a4f3c302f676",
     "005fc70477c3e63bc3954bd0df3ea0d1f41ee21746ed95fc5e1fdf90930d5e136672d72cc770742d1711c3c3a4c33"
     "4a0ad9759436a4d3c5bf6e74b9578fac148c831"},
};

TEST(EcdhSharedSecret, MatchesTheNistCdhVectors) {
  for (const CdhVector& v : kCdhVectors) {
    SCOPED_TRACE(KeySpecName({.type = v.curve}));
    auto own = PrivateKey::FromEcPrivateValue(EcParamsDer(v.curve), H(v.d));
    ASSERT_TRUE(own.ok()) << own.error().message;
    auto peer = PublicKey::FromEcPoint(EcParamsDer(v.curve), H(v.peer));
    ASSERT_TRUE(peer.ok()) << peer.error().message;
    for (bool cofactor : {false, true}) {
      auto z = EcdhSharedSecret(*own, *peer, cofactor);
      ASSERT_TRUE(z.ok()) << z.error().message;
      EXPECT_EQ(Hex(*z), v.z);
    }
  }
}

TEST(EcdhSharedSecret, BothSidesAgreeAndOpensslDerivesTheSameOnSecp256k1) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  auto a = PrivateKey::Generate({.type = KeyType::kEcSecp256k1});
  auto b = PrivateKey::Generate({.type = KeyType::kEcSecp256k1});
  ASSERT_TRUE(a.ok() && b.ok());
  auto a_pub = a->Public();
  auto b_pub = b->Public();
  ASSERT_TRUE(a_pub.ok() && b_pub.ok());
  auto ab = EcdhSharedSecret(*a, *b_pub, false);
  auto ba = EcdhSharedSecret(*b, *a_pub, true);
  ASSERT_TRUE(ab.ok() && ba.ok());
  EXPECT_EQ(ab->size(), 32u);
  EXPECT_EQ(Hex(*ab), Hex(*ba));

  auto a_der = a->ToPkcs8Der();
  auto b_spki = b_pub->ToDer();
  ASSERT_TRUE(a_der.ok() && b_spki.ok());
  WriteFile(dir.File("a.der"), ByteView(a_der->data(), a_der->size()));
  WriteFile(dir.File("b_pub.der"), *b_spki);
  ASSERT_EQ(
      RunOpenssl({"pkeyutl", "-derive", "-keyform", "DER", "-inkey", dir.File("a.der"), "-peerform",
                  "DER", "-peerkey", dir.File("b_pub.der"), "-out", dir.File("z.bin")},
                 dir.File("log")),
      0)
      << ToHex(ReadFile(dir.File("log")));
  EXPECT_EQ(ToHex(ReadFile(dir.File("z.bin"))), Hex(*ab));
}

TEST(EcdhSharedSecret, RefusesAPeerOnAnotherCurveAndANonEcKey) {
  auto own = PrivateKey::Generate({.type = KeyType::kEcP256});
  auto other = PrivateKey::Generate({.type = KeyType::kEcP384});
  auto ed = PrivateKey::Generate({.type = KeyType::kEd25519});
  ASSERT_TRUE(own.ok() && other.ok() && ed.ok());
  auto other_pub = other->Public();
  auto own_pub = own->Public();
  ASSERT_TRUE(other_pub.ok() && own_pub.ok());
  EXPECT_EQ(EcdhSharedSecret(*own, *other_pub, false).error().code, CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(EcdhSharedSecret(*ed, *own_pub, false).error().code, CKR_KEY_TYPE_INCONSISTENT);
}

// RFC 7748 section 5.2: scalar, u-coordinate, output (the first vectors
// of each function).
struct XdhVector {
  KeyType type;
  std::string scalar, u, out;
};
const XdhVector kXdhVectors[] = {
    {KeyType::kX25519, "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
     "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
     "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"},
    {KeyType::kX25519, "4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
     "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
     "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"},
    {KeyType::kX448,
     "3d262fddf9ec8e88495266fea19a34d28882acef045104d0d1aae121700a779c984c24f8cdd78fbff44943eba368f"
     "5"
     "4b29259a4f1c600ad3",
     "06fce640fa3487bfda5f6cf2d5263f8aad88334cbd07437f020f08f9814dc031ddbdc38c19c6da2583fa5429db94a"
     "d"
     "a18aa7a7fb4ef8a086",
     "ce3e4ff95a60dc6697da1db1d85e6afbdf79b50a2412d7546d5f239fe14fbaadeb445fc66a01b0779d98223961111"
     "e"
     "21766282f73dd96b6f"},
};

TEST(EcdhSharedSecret, X25519AndX448MatchRfc7748Section52) {
  for (const XdhVector& v : kXdhVectors) {
    SCOPED_TRACE(KeySpecName({.type = v.type}));
    auto own = PrivateKey::FromEcPrivateValue(EcParamsDer(v.type), H(v.scalar));
    ASSERT_TRUE(own.ok()) << own.error().message;
    auto peer = PublicKey::FromEcPoint(EcParamsDer(v.type), H(v.u));
    ASSERT_TRUE(peer.ok()) << peer.error().message;
    auto z = EcdhSharedSecret(*own, *peer, false);
    ASSERT_TRUE(z.ok()) << z.error().message;
    EXPECT_EQ(Hex(*z), v.out);
  }
}

// RFC 7748 section 6: Alice's and Bob's keys; each side's public key comes
// from its private key, and both sides reach K.
struct XdhExchange {
  KeyType type;
  std::string alice, alice_public, bob, bob_public, k;
};
const XdhExchange kXdhExchanges[] = {
    {KeyType::kX25519, "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a",
     "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a",
     "5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb",
     "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f",
     "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"},
    {KeyType::kX448,
     "9a8f4925d1519f5775cf46b04b5800d4ee9ee8bae8bc5565d498c28dd9c9baf574a9419744897391006382a6f127a"
     "b"
     "1d9ac2d8c0a598726b",
     "9b08f7cc31b7e3e67d22d5aea121074a273bd2b83de09c63faa73d2c22c5d9bbc836647241d953d40c5b12da88120"
     "d"
     "53177f80e532c41fa0",
     "1c306a7ac2a0e2e0990b294470cba339e6453772b075811d8fad0d1d6927c120bb5ee8972b0d3e21374c9c921b09d"
     "1"
     "b0366f10b65173992d",
     "3eb7a829b0cd20f5bcfc0b599b6feccf6da4627107bdb0d4f345b43027d8b972fc3e34fb4232a13ca706dcb57aec3"
     "d"
     "ae07bdc1c67bf33609",
     "07fff4181ac6cc95ec1c16a94a0f74d12da232ce40a77552281d282bb60c0b56fd2464c335543936521c24403085d"
     "5"
     "9a449a5037514a879d"},
};

TEST(EcdhSharedSecret, X25519AndX448ExchangesOfRfc7748Section6) {
  for (const XdhExchange& v : kXdhExchanges) {
    SCOPED_TRACE(KeySpecName({.type = v.type}));
    auto alice = PrivateKey::FromEcPrivateValue(EcParamsDer(v.type), H(v.alice));
    auto bob = PrivateKey::FromEcPrivateValue(EcParamsDer(v.type), H(v.bob));
    ASSERT_TRUE(alice.ok() && bob.ok());
    auto alice_public = alice->Public();
    auto bob_public = bob->Public();
    ASSERT_TRUE(alice_public.ok() && bob_public.ok());
    auto alice_point = alice_public->EcPoint();
    auto bob_point = bob_public->EcPoint();
    ASSERT_TRUE(alice_point.ok() && bob_point.ok());
    EXPECT_EQ(ToHex(*alice_point), v.alice_public);
    EXPECT_EQ(ToHex(*bob_point), v.bob_public);
    auto ab = EcdhSharedSecret(*alice, *bob_public, false);
    auto ba = EcdhSharedSecret(*bob, *alice_public, true);
    ASSERT_TRUE(ab.ok() && ba.ok());
    EXPECT_EQ(Hex(*ab), v.k);
    EXPECT_EQ(Hex(*ba), v.k);
  }
}

TEST(EcdhSharedSecret, X25519AgreesWithOpensslAndRefusesASmallOrderPoint) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  for (KeyType type : {KeyType::kX25519, KeyType::kX448}) {
    SCOPED_TRACE(KeySpecName({.type = type}));
    auto a = PrivateKey::Generate({.type = type});
    auto b = PrivateKey::Generate({.type = type});
    ASSERT_TRUE(a.ok() && b.ok());
    auto b_pub = b->Public();
    ASSERT_TRUE(b_pub.ok());
    auto ab = EcdhSharedSecret(*a, *b_pub, false);
    ASSERT_TRUE(ab.ok()) << ab.error().message;
    auto a_der = a->ToPkcs8Der();
    auto b_spki = b_pub->ToDer();
    ASSERT_TRUE(a_der.ok() && b_spki.ok());
    WriteFile(dir.File("a.der"), ByteView(a_der->data(), a_der->size()));
    WriteFile(dir.File("b_pub.der"), *b_spki);
    ASSERT_EQ(RunOpenssl({"pkeyutl", "-derive", "-keyform", "DER", "-inkey", dir.File("a.der"),
                          "-peerform", "DER", "-peerkey", dir.File("b_pub.der"), "-out",
                          dir.File("z.bin")},
                         dir.File("log")),
              0)
        << ToHex(ReadFile(dir.File("log")));
    EXPECT_EQ(ToHex(ReadFile(dir.File("z.bin"))), Hex(*ab));
  }
  // u = 0 has small order: the result would be all zero (RFC 7748 section 6.1).
  auto own = PrivateKey::Generate({.type = KeyType::kX25519});
  auto zero = PublicKey::FromEcPoint(EcParamsDer(KeyType::kX25519), Bytes(32, 0));
  ASSERT_TRUE(own.ok() && zero.ok());
  EXPECT_EQ(EcdhSharedSecret(*own, *zero, false).error().code, CKR_MECHANISM_PARAM_INVALID);
  // And an X25519 peer for an X448 key is another curve.
  auto x448 = PrivateKey::Generate({.type = KeyType::kX448});
  auto own_pub = own->Public();
  ASSERT_TRUE(x448.ok() && own_pub.ok());
  EXPECT_EQ(EcdhSharedSecret(*x448, *own_pub, false).error().code, CKR_MECHANISM_PARAM_INVALID);
}

struct KdfVector {
  DigestAlg digest;
  std::string z;
  std::string shared_info;
  std::string key;
};

const KdfVector kKdfVectors[] = {
    {DigestAlg::kSha1, "1c7d7b5f0597b03d06a018466ed1a93e30ed4b04dc64ccdd", "",
     "bf71dffd8f4d99223936beb46fee8ccc"},
    {DigestAlg::kSha1, "fd17198b89ab39c4ab5d7cca363b82f9fd7e23c3984dc8a2",
     "856a53f3e36a26bbc5792879f307cce2",
     "6e5fad865cb4a51c95209b16df0cc490bc2c9064405c5bccd4ee4832a531fbe7f10cb79e2eab6ab1149fbd5a23cf"
     "dabc41242269c9df22f628c4424333855b64e95e2d4fb8469c669f17176c07d103376b10b384ec5763d8b8c61040"
     "9f19aca8eb31f9d85cc61a8d6d4a03d03e5a506b78d6847e93d295ee548c65afedd2efec"},
    {DigestAlg::kSha224, "9ba3226ba0fca6bd5ddaef5b8d763a4d3303bc258d90468c", "",
     "15ccbd7d6b8f918335799b3920e69c1f"},
    {DigestAlg::kSha224, "da67a73072d521a8272c69023573012ddf9b46bff65b3900",
     "727997aed53e78f74b1d66743a4ea4d2",
     "dfc3126c5eebf9a58d89730e8d8ff7cc772592f28c10b349b437d9d068698a22e532eae975dfaf9c5c6a9f2935ea"
     "fb05353013c253444e61f07bc9ddd15948e614bdc7e445ba3b1893f42f87f18fb352d49956009a642c362d45410b"
     "43a9ab376e9261210739174759511d1f9e52f6ec73dfed446dbafaf7fd1a57113abc2e8d"},
    {DigestAlg::kSha256, "96c05619d56c328ab95fe84b18264b08725b85e33fd34f08", "",
     "443024c3dae66b95e6f5670601558f71"},
    {DigestAlg::kSha256, "22518b10e70f2a3f243810ae3254139efbee04aa57c7af7d",
     "75eef81aa3041e33b80971203d2c0c52",
     "c498af77161cc59f2962b9a713e2b215152d139766ce34a776df11866a69bf2e52a13d9c7c6fc878c50c5ea0bc7b"
     "00e0da2447cfd874f6cf92f30d0097111485500c90c3af8b487872d04685d14c8d1dc8d7fa08beb0ce0ababc11f0"
     "bd496269142d43525a78e5bc79a17f59676a5706dc54d54d4d1f0bd7e386128ec26afc21"},
    {DigestAlg::kSha384, "d8554db1b392cd55c3fe957bed76af09c13ac2a9392f88f6", "",
     "671a46aada145162f8ddf1ca586a1cda"},
    {DigestAlg::kSha384, "c051fd22539c9de791d6c43a854b8f80a6bf70190050854a",
     "1317504aa34759bb4c931e3b78201945",
     "cf6a84434734ac6949e1d7976743277be789906908ad3ca3a8923da7f476abbeb574306d7243031a85566914bfd2"
     "47d2519c479953d9d55b6b831e56260806c39af21b74e3ecf470e3bd8332791c8a23c13352514fdef00c2d1a408b"
     "a31b2d3f9fdcb373895484649a645d1845eec91b5bfdc5ad28c7824984482002dd4a8677"},
    {DigestAlg::kSha512, "87fc0d8c4477485bb574f5fcea264b30885dc8d90ad82782", "",
     "947665fbb9152153ef460238506a0245"},
    {DigestAlg::kSha512,
     "00aa5bb79b33e389fa58ceadc047197f14e73712f452caa9fc4c9adb369348b81507392f1a86ddfdb7c4ff8231c4"
     "bd0f44e44a1b55b1404747a9e2e753f55ef05a2d",
     "e3b5b4c1b0d5cf1d2b3a2f9937895d31",
     "4463f869f3cc18769b52264b0112b5858f7ad32a5a2d96d8cffabf7fa733633d6e4dd2a599acceb3ea54a6217ce0"
     "b50eef4f6b40a5c30250a5a8eeee208002267089dbf351f3f5022aa9638bf1ee419dea9c4ff745a25ac27bda33ca"
     "08bd56dd1a59b4106cf2dbbc0ab2aa8e2efa7b17902d34276951ceccab87f9661c3e8816"},
};

TEST(X963Kdf, MatchesTheNistCavsVectors) {
  for (const KdfVector& v : kKdfVectors) {
    SCOPED_TRACE(std::string(FactsOf(v.digest).name) + " " + v.z);
    Bytes want = H(v.key);
    auto key = X963Kdf(v.digest, H(v.z), H(v.shared_info), want.size());
    ASSERT_TRUE(key.ok()) << key.error().message;
    EXPECT_EQ(Hex(*key), v.key);
  }
}

TEST(X963Kdf, AgreesWithTheOpensslKdfCommand) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  Bytes z = H("46fc62106420ff012e54a434fbdd2d25ccc5852060561e68040dd7778997bd7b");
  Bytes info = H("0102030405");
  auto key = X963Kdf(DigestAlg::kSha384, z, info, 40);
  ASSERT_TRUE(key.ok());
  ASSERT_EQ(RunOpenssl({"kdf", "-keylen", "40", "-kdfopt", "digest:SHA384", "-kdfopt",
                        "hexsecret:" + ToHex(z), "-kdfopt", "hexinfo:" + ToHex(info), "-binary",
                        "-out", dir.File("key.bin"), "X963KDF"},
                       dir.File("log")),
            0)
      << ToHex(ReadFile(dir.File("log")));
  EXPECT_EQ(ToHex(ReadFile(dir.File("key.bin"))), Hex(*key));
}

TEST(X963Kdf, RefusesNoHashAndAZeroLength) {
  Bytes z(32, 7);
  EXPECT_EQ(X963Kdf(DigestAlg::kNone, z, {}, 16).error().code, CKR_MECHANISM_PARAM_INVALID);
  EXPECT_EQ(X963Kdf(DigestAlg::kSha256, z, {}, 0).error().code, CKR_KEY_SIZE_RANGE);
}

}  // namespace
}  // namespace signet::crypto
