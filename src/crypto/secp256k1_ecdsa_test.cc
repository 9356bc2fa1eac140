// Tests for secp256k1 ECDSA through libsecp256k1 (secp256k1_ecdsa.h),
// with OpenSSL's generic code (SignEngine::kOpenssl) as the other side of
// every check: each engine verifies the other's signatures, in both
// encodings and for digests shorter and longer than the 256-bit order;
// libsecp256k1 signs low-S only and still accepts high-S; both engines
// give the same answer for corrupted signatures; keys from libsecp256k1
// are keys OpenSSL accepts, and a scalar libsecp256k1 refuses is refused
// at import. The `openssl` command-line tool checks the same signatures in
// openssl_cli_verify_test.cc.
#include "crypto/secp256k1_ecdsa.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <thread>

#include "base/hex.h"
#include "crypto/crypto_test_util.h"
#include "crypto/symmetric.h"

namespace signet::crypto {
namespace {

using testing::CachedKey;

constexpr KeySpec kSecp256k1{KeyType::kEcSecp256k1, 0};

// The group order n of secp256k1 (SEC 2 section 2.4.1) and n/2, big-endian.
Bytes Order() {
  return *FromHex("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141");
}
Bytes HalfOrder() {
  return *FromHex("7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0");
}

// Negated returns n - s for a 32-byte big-endian s (0 < s < n).
Bytes Negated(ByteView s) {
  const Bytes n = Order();
  Bytes out(32);
  int borrow = 0;
  for (int i = 31; i >= 0; --i) {
    const int d = n[i] - s[i] - borrow;
    out[i] = static_cast<std::uint8_t>(d & 0xff);
    borrow = d < 0 ? 1 : 0;
  }
  return out;
}

// IsLowS: s <= n/2, s being the second half of a raw r||s signature.
bool IsLowS(ByteView raw) {
  const ByteView s = raw.subspan(32);
  const Bytes half = HalfOrder();
  return !std::lexicographical_compare(half.begin(), half.end(), s.begin(), s.end());
}

SignParams Params(SignEngine engine, EcdsaFormat format, DigestAlg digest = DigestAlg::kSha256,
                  bool prehashed = true) {
  return {.scheme = SignScheme::kEcdsa,
          .digest = digest,
          .prehashed = prehashed,
          .ecdsa_format = format,
          .engine = engine};
}

Bytes RandomDigest(std::size_t size) {
  Bytes out(size);
  EXPECT_TRUE(FillRandom(out).ok());
  return out;
}

// The check below can fail: OpenSSL's own signatures are high-S half the
// time, so the same loop over SignEngine::kOpenssl finds some.
TEST(Secp256k1Ecdsa, SignsLowSOnly) {
  const PrivateKey* key = CachedKey(kSecp256k1);
  ASSERT_NE(key, nullptr);
  int openssl_high = 0;
  for (int i = 0; i < 32; ++i) {
    const Bytes digest = RandomDigest(32);
    auto ours = Sign(*key, Params(SignEngine::kDefault, EcdsaFormat::kRaw), digest);
    ASSERT_TRUE(ours.ok()) << ours.error().message;
    EXPECT_TRUE(IsLowS(*ours)) << ToHex(*ours);
    auto der = Sign(*key, Params(SignEngine::kDefault, EcdsaFormat::kDer), digest);
    ASSERT_TRUE(der.ok());
    EXPECT_TRUE(IsLowS(*EcdsaDerToRaw(*der, 32)));
    auto reference = Sign(*key, Params(SignEngine::kOpenssl, EcdsaFormat::kRaw), digest);
    ASSERT_TRUE(reference.ok());
    if (!IsLowS(*reference)) ++openssl_high;
  }
  EXPECT_GT(openssl_high, 0) << "32 OpenSSL signatures all low-S: p = 2^-32";
}

// Signatures are randomised as OpenSSL's are (RFC 6979 with extra data).
TEST(Secp256k1Ecdsa, TwoSignaturesOfOneDigestDiffer) {
  const PrivateKey* key = CachedKey(kSecp256k1);
  const Bytes digest = RandomDigest(32);
  const SignParams p = Params(SignEngine::kDefault, EcdsaFormat::kRaw);
  EXPECT_NE(*Sign(*key, p, digest), *Sign(*key, p, digest));
}

// Each engine verifies what the other signs: both encodings, messages and
// digests, and digests of other sizes than the order's (SHA-1's 20 bytes
// are a smaller number; SHA-384's and SHA-512's leftmost 32 bytes count).
TEST(Secp256k1Ecdsa, EnginesVerifyEachOther) {
  const PrivateKey* key = CachedKey(kSecp256k1);
  const PublicKey pub = *key->Public();
  const ByteView message = AsBytes("libsecp256k1 and OpenSSL agree");
  for (EcdsaFormat format : {EcdsaFormat::kDer, EcdsaFormat::kRaw}) {
    for (DigestAlg digest : {DigestAlg::kSha1, DigestAlg::kSha256, DigestAlg::kSha384,
                             DigestAlg::kSha512, DigestAlg::kNone}) {
      for (bool prehashed : {false, true}) {
        if (digest == DigestAlg::kNone && !prehashed) continue;
        SCOPED_TRACE(std::string(DigestName(digest)) + (prehashed ? " prehashed" : "") +
                     (format == EcdsaFormat::kRaw ? " raw" : " der"));
        const Bytes input = digest == DigestAlg::kNone ? RandomDigest(64)
                            : prehashed                ? *Digest(digest, message)
                                                       : Bytes(message.begin(), message.end());
        const SignParams ours = Params(SignEngine::kDefault, format, digest, prehashed);
        const SignParams theirs = Params(SignEngine::kOpenssl, format, digest, prehashed);
        auto fast = Sign(*key, ours, input);
        ASSERT_TRUE(fast.ok()) << fast.error().message;
        auto reference = Sign(*key, theirs, input);
        ASSERT_TRUE(reference.ok()) << reference.error().message;
        EXPECT_TRUE(Verify(pub, theirs, input, *fast).ok());
        EXPECT_TRUE(Verify(pub, ours, input, *reference).ok());
        EXPECT_TRUE(Verify(pub, ours, input, *fast).ok());
      }
    }
  }
}

// CKM_ECDSA over raw input: past 32 bytes only the first 32 count, as
// OpenSSL reads it; within 32 bytes every byte counts.
TEST(Secp256k1Ecdsa, InputPastTheOrderIsTruncatedAsOpensslDoes) {
  const PrivateKey* key = CachedKey(kSecp256k1);
  const PublicKey pub = *key->Public();
  const SignParams p = Params(SignEngine::kDefault, EcdsaFormat::kRaw, DigestAlg::kNone);
  const SignParams reference = Params(SignEngine::kOpenssl, EcdsaFormat::kRaw, DigestAlg::kNone);
  Bytes long_input = RandomDigest(48);
  const Bytes sig = *Sign(*key, p, long_input);
  long_input[40] ^= 0x01;  // past the first 32 bytes: still the same e
  EXPECT_TRUE(Verify(pub, p, long_input, sig).ok());
  EXPECT_TRUE(Verify(pub, reference, long_input, sig).ok());
  long_input[31] ^= 0x01;
  EXPECT_EQ(Verify(pub, p, long_input, sig).error().code, CKR_SIGNATURE_INVALID);
  EXPECT_EQ(Verify(pub, reference, long_input, sig).error().code, CKR_SIGNATURE_INVALID);
  // A 20-byte input is the number it spells, not a prefix of 32 bytes.
  const Bytes short_input = RandomDigest(20);
  Bytes padded(12, 0);
  padded.insert(padded.end(), short_input.begin(), short_input.end());
  const Bytes short_sig = *Sign(*key, p, short_input);
  EXPECT_TRUE(Verify(pub, reference, short_input, short_sig).ok());
  EXPECT_TRUE(Verify(pub, p, padded, short_sig).ok());
}

// OpenSSL accepts s and n - s alike; so must the libsecp256k1 path, which
// on its own accepts low-S only.
TEST(Secp256k1Ecdsa, HighSStillVerifies) {
  const PrivateKey* key = CachedKey(kSecp256k1);
  const PublicKey pub = *key->Public();
  const Bytes digest = RandomDigest(32);
  const Bytes low = *Sign(*key, Params(SignEngine::kDefault, EcdsaFormat::kRaw), digest);
  ASSERT_TRUE(IsLowS(low));
  Bytes high(low.begin(), low.begin() + 32);
  const Bytes negated = Negated(ByteView(low).subspan(32));
  high.insert(high.end(), negated.begin(), negated.end());
  ASSERT_FALSE(IsLowS(high));
  const Bytes high_der = *EcdsaRawToDer(high);
  for (SignEngine engine : {SignEngine::kDefault, SignEngine::kOpenssl}) {
    SCOPED_TRACE(engine == SignEngine::kDefault ? "libsecp256k1" : "OpenSSL");
    EXPECT_TRUE(Verify(pub, Params(engine, EcdsaFormat::kRaw), digest, high).ok());
    EXPECT_TRUE(Verify(pub, Params(engine, EcdsaFormat::kDer), digest, high_der).ok());
  }
}

// A wrong digest, another key, and corrupted signatures: both engines say
// CKR_SIGNATURE_INVALID (or the same length error), never anything else.
TEST(Secp256k1Ecdsa, BadSignaturesFailAlikeInBothEngines) {
  const PrivateKey* key = CachedKey(kSecp256k1);
  const PublicKey pub = *key->Public();
  const PublicKey other = *PrivateKey::Generate(kSecp256k1)->Public();
  Bytes digest = RandomDigest(32);
  const Bytes raw = *Sign(*key, Params(SignEngine::kDefault, EcdsaFormat::kRaw), digest);
  const Bytes der = *EcdsaRawToDer(raw);
  Bytes r_is_n = Order();
  r_is_n.insert(r_is_n.end(), raw.begin() + 32, raw.end());
  Bytes der_trailing = der;
  der_trailing.push_back(0);
  Bytes der_bad_tag = der;
  der_bad_tag[0] = 0x31;
  Bytes wrong_digest = digest;
  wrong_digest[0] ^= 0x80;
  struct Bad {
    const char* name;
    const PublicKey* key;
    EcdsaFormat format;
    Bytes digest, signature;
    CK_RV rv;
  };
  const std::vector<Bad> cases = {
      {"wrong digest raw", &pub, EcdsaFormat::kRaw, wrong_digest, raw, CKR_SIGNATURE_INVALID},
      {"wrong digest der", &pub, EcdsaFormat::kDer, wrong_digest, der, CKR_SIGNATURE_INVALID},
      {"other key", &other, EcdsaFormat::kRaw, digest, raw, CKR_SIGNATURE_INVALID},
      {"r = n", &pub, EcdsaFormat::kRaw, digest, r_is_n, CKR_SIGNATURE_INVALID},
      {"all zero", &pub, EcdsaFormat::kRaw, digest, Bytes(64, 0), CKR_SIGNATURE_INVALID},
      {"der trailing byte", &pub, EcdsaFormat::kDer, digest, der_trailing, CKR_SIGNATURE_INVALID},
      {"der bad tag", &pub, EcdsaFormat::kDer, digest, der_bad_tag, CKR_SIGNATURE_INVALID},
      {"raw too short", &pub, EcdsaFormat::kRaw, digest, Bytes(63, 1), CKR_SIGNATURE_LEN_RANGE},
      {"der too long", &pub, EcdsaFormat::kDer, digest, Bytes(73, 0x30), CKR_SIGNATURE_LEN_RANGE},
  };
  for (const Bad& c : cases) {
    for (SignEngine engine : {SignEngine::kDefault, SignEngine::kOpenssl}) {
      SCOPED_TRACE(std::string(c.name) + (engine == SignEngine::kDefault ? " libsecp256k1" : ""));
      Status s = Verify(*c.key, Params(engine, c.format), c.digest, c.signature);
      ASSERT_FALSE(s.ok());
      EXPECT_EQ(s.error().code, c.rv) << s.error().message;
    }
  }
}

// A generated key is a whole OpenSSL key pair (the point is d*G) that
// survives PKCS#8 and signs after the round trip.
TEST(Secp256k1Ecdsa, GeneratedKeysAreOpensslKeyPairs) {
  auto key = PrivateKey::Generate(kSecp256k1);
  ASSERT_TRUE(key.ok()) << key.error().message;
  EXPECT_EQ(key->spec().type, KeyType::kEcSecp256k1);
  ASSERT_NE(key->secp256k1(), nullptr);
  EvpPkeyCtxPtr check(EVP_PKEY_CTX_new_from_pkey(nullptr, key->get0_pkey(), nullptr));
  ASSERT_TRUE(check);
  EXPECT_EQ(EVP_PKEY_pairwise_check(check.get()), 1);
  auto again = PrivateKey::FromPkcs8Der(*key->ToPkcs8Der());
  ASSERT_TRUE(again.ok()) << again.error().message;
  const Bytes digest = RandomDigest(32);
  const SignParams p = Params(SignEngine::kDefault, EcdsaFormat::kDer);
  EXPECT_TRUE(Verify(*key->Public(), p, digest, *Sign(*again, p, digest)).ok());
  EXPECT_NE(*key->Public()->EcPoint(), *PrivateKey::Generate(kSecp256k1)->Public()->EcPoint());
}

// OpenSSL parses a PKCS#8 secp256k1 key whose scalar is not below n;
// libsecp256k1 would not sign with it, so the import refuses it.
TEST(Secp256k1Ecdsa, ImportRefusesScalarNotBelowTheOrder) {
  // PrivateKeyInfo { 0, { id-ecPublicKey, secp256k1 }, ECPrivateKey { 1, d } }.
  Bytes der = *FromHex("303e020100301006072a8648ce3d020106052b8104000a042730250201010420");
  const Bytes d(32, 0xff);
  der.insert(der.end(), d.begin(), d.end());
  auto key = PrivateKey::FromPkcs8Der(der);
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(key.error().code, CKR_ATTRIBUTE_VALUE_INVALID) << key.error().message;
  // The same bytes with d = 1 import: the refusal is the scalar's.
  std::fill(der.end() - 32, der.end(), 0);
  der.back() = 1;
  EXPECT_TRUE(PrivateKey::FromPkcs8Der(der).ok());
}

// One key signing from many threads at once, as the daemon's workers do
// (the shared context is used only through const pointers).
TEST(Secp256k1Ecdsa, SameKeyFromManyThreads) {
  const PrivateKey* key = CachedKey(kSecp256k1);
  const PublicKey pub = *key->Public();
  const SignParams p = Params(SignEngine::kDefault, EcdsaFormat::kRaw);
  std::vector<std::thread> threads;
  std::array<int, 4> failures{};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const Bytes digest = RandomDigest(32);
        auto sig = Sign(*key, p, digest);
        if (!sig.ok() || !Verify(pub, p, digest, *sig).ok()) ++failures[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int f : failures) EXPECT_EQ(f, 0);
}

}  // namespace
}  // namespace signet::crypto
