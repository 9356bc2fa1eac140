// signetd as a Cryptech HSM (docs/CRYPTECH.md): keys through libhal's RPC. Loading
// openssl's keys, generating RSA and EC keys, signing (checked by the
// openssl tool) and verifying, match and its paging, attributes as PKCS#11
// attributes, export and import between two tokens, and the rules
// docs/CRYPTECH.md adds to libhal's: handles belong to their connection,
// a closed connection is logged out, and a key is the same key through the
// PKCS#11 side and this one.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <set>

#include "cryptech_fixture.h"
#include "key_helpers.h"

namespace signet::e2e {
namespace {

using hal::Curve;
using hal::Digest;
using hal::Error;
using hal::KeyType;
using hal::Opcode;

constexpr std::uint32_t kSign = hal::kFlagDigitalSignature;
constexpr std::uint32_t kToken = hal::kFlagToken;

constexpr std::uint32_t Code(Error error) { return static_cast<std::uint32_t>(error); }
constexpr std::uint32_t Code(KeyType type) { return static_cast<std::uint32_t>(type); }
constexpr std::uint32_t Code(Curve curve) { return static_cast<std::uint32_t>(curve); }

// Ulong: a CK_ULONG attribute value as PKCS#11 stores it (host order).
Bytes Ulong(CK_ULONG value) {
  Bytes bytes(sizeof value);
  std::memcpy(bytes.data(), &value, sizeof value);
  return bytes;
}

// Sorted: the UUIDs in memcmp order, as libhal's match lists a store.
std::vector<Bytes> Sorted(std::vector<Bytes> uuids) {
  std::sort(uuids.begin(), uuids.end());
  return uuids;
}

// UuidFromText: the 16 bytes of a UUID in its text form (hex, dashes).
Bytes UuidFromText(std::string_view text) {
  std::string hex;
  for (char ch : text) {
    if (ch != '-') hex += ch;
  }
  return hex.size() == 32 ? Hex(hex) : Bytes{};
}

class CryptechKeysTest : public CryptechTest {
 protected:
  // SignAndCheck signs SHA-x(message) with `key` (RSA over a DigestInfo,
  // ECDSA over the digest) and has openssl verify it against `spki`;
  // returns the signature.
  Bytes SignAndCheck(HalConnection& c, std::uint32_t key, ByteView spki, Digest digest,
                     bool ecdsa) {
    const Bytes hash = OpensslDigest(HalDigestOf(digest), AsBytes("signet as a Cryptech HSM"));
    const Bytes input = ecdsa ? hash : DigestInfo(digest, hash);
    HalBlob signature = c.Sign(key, 0, input);
    EXPECT_EQ(signature.status, 0u);
    EXPECT_TRUE(OpensslVerify(spki, digest, hash, signature.bytes, ecdsa));
    EXPECT_EQ(c.Verify(key, 0, input, signature.bytes), 0u);
    return signature.bytes;
  }
};

TEST_F(CryptechKeysTest, LoadRsaPkcs8SignVerify) {
  auto c = HalConnect();
  const Bytes pkcs8 = OpensslKey({"-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"});
  const Bytes spki = OpensslPublicKey(pkcs8);
  HalKey key = c->Load(pkcs8, kSign);
  ASSERT_EQ(key.status, 0u);
  EXPECT_EQ(c->HandleCall(Opcode::kPkeyGetKeyType, key.handle).value, Code(KeyType::kRsaPrivate));
  EXPECT_EQ(c->HandleCall(Opcode::kPkeyGetKeyCurve, key.handle).value, Code(Curve::kNone));
  EXPECT_EQ(c->HandleCall(Opcode::kPkeyGetKeyFlags, key.handle).value, kSign);
  EXPECT_EQ(c->HandleCall(Opcode::kPkeyGetPublicKeyLength, key.handle).value, spki.size());
  EXPECT_EQ(ToHex(c->GetPublicKey(key.handle).bytes), ToHex(spki));

  // A DigestInfo signed; openssl accepts it and rejects it altered.
  const Bytes hash = OpensslDigest(HalDigestOf(Digest::kSha256), AsBytes("message"));
  const Bytes info = DigestInfo(Digest::kSha256, hash);
  HalBlob signature = c->Sign(key.handle, 0, info, 1024);
  ASSERT_EQ(signature.status, 0u);
  EXPECT_EQ(signature.bytes.size(), 128u);
  EXPECT_TRUE(OpensslVerify(spki, Digest::kSha256, hash, signature.bytes, false));
  Bytes altered = signature.bytes;
  altered[5] ^= 1;
  EXPECT_FALSE(OpensslVerify(spki, Digest::kSha256, hash, altered, false));
  EXPECT_EQ(c->Verify(key.handle, 0, info, signature.bytes), 0u);
  EXPECT_EQ(c->Verify(key.handle, 0, info, altered), Code(Error::kInvalidSignature));
  // Room for less than the modulus; both or neither of input and hash.
  EXPECT_EQ(c->Sign(key.handle, 0, info, 127).status, Code(Error::kResultTooLong));
  EXPECT_EQ(c->Sign(key.handle, 0, {}, 1024).status, Code(Error::kBadArguments));
  HalValue both = c->HashInitialize(Digest::kSha256);
  EXPECT_EQ(c->Sign(key.handle, both.value, info, 1024).status, Code(Error::kBadArguments));

  // With a hash handle the listener makes the DigestInfo; the handle is used up.
  HalValue hash384 = c->HashInitialize(Digest::kSha384);
  ASSERT_EQ(hash384.status, 0u);
  EXPECT_EQ(c->HashUpdate(hash384.value, AsBytes("message")), 0u);
  HalBlob by_handle = c->Sign(key.handle, hash384.value, {}, 1024);
  ASSERT_EQ(by_handle.status, 0u);
  EXPECT_TRUE(OpensslVerify(spki, Digest::kSha384,
                            OpensslDigest(HalDigestOf(Digest::kSha384), AsBytes("message")),
                            by_handle.bytes, false));
  EXPECT_EQ(c->HashUpdate(hash384.value, AsBytes("more")), Code(Error::kBadArguments));

  // The SubjectPublicKeyInfo loads as a public key that verifies, not signs.
  HalKey public_key = c->Load(spki, kSign);
  ASSERT_EQ(public_key.status, 0u);
  EXPECT_NE(public_key.uuid, key.uuid);
  EXPECT_EQ(c->HandleCall(Opcode::kPkeyGetKeyType, public_key.handle).value,
            Code(KeyType::kRsaPublic));
  // Loaded without EXPORTABLE, but a public key always is (docs/CRYPTECH.md).
  EXPECT_EQ(c->HandleCall(Opcode::kPkeyGetKeyFlags, public_key.handle).value,
            kSign | hal::kFlagExportable);
  EXPECT_EQ(ToHex(c->GetPublicKey(public_key.handle).bytes), ToHex(spki));
  EXPECT_EQ(c->Verify(public_key.handle, 0, info, signature.bytes), 0u);
  EXPECT_EQ(c->Verify(public_key.handle, 0, info, altered), Code(Error::kInvalidSignature));
  EXPECT_EQ(c->Sign(public_key.handle, 0, info).status, Code(Error::kUnsupportedKey));

  EXPECT_EQ(c->Load({}, kSign).status, Code(Error::kBadArguments));
  EXPECT_EQ(c->Load(pkcs8, hal::kAllKeyFlags + 1).status, Code(Error::kBadArguments));
  EXPECT_NE(c->Load(BytesOf("not a key at all"), kSign).status, 0u);
}

TEST_F(CryptechKeysTest, LoadEcPkcs8) {
  auto c = HalConnect();
  const Bytes pkcs8 = OpensslKey({"-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"});
  const Bytes spki = OpensslPublicKey(pkcs8);
  HalKey key = c->Load(pkcs8, kSign);
  ASSERT_EQ(key.status, 0u);
  EXPECT_EQ(c->HandleCall(Opcode::kPkeyGetKeyType, key.handle).value, Code(KeyType::kEcPrivate));
  EXPECT_EQ(c->HandleCall(Opcode::kPkeyGetKeyCurve, key.handle).value, Code(Curve::kP384));
  EXPECT_EQ(ToHex(c->GetPublicKey(key.handle).bytes), ToHex(spki));
  SignAndCheck(*c, key.handle, spki, Digest::kSha384, /*ecdsa=*/true);
  HalKey public_key = c->Load(spki, kSign);
  ASSERT_EQ(public_key.status, 0u);
  EXPECT_EQ(c->HandleCall(Opcode::kPkeyGetKeyType, public_key.handle).value,
            Code(KeyType::kEcPublic));
}

TEST_F(CryptechKeysTest, GenerateRsa) {
  auto c = HalConnect();
  HalKey key = c->GenerateRsa(1024, kSign);
  ASSERT_EQ(key.status, 0u);
  EXPECT_EQ(c->HandleCall(Opcode::kPkeyGetKeyType, key.handle).value, Code(KeyType::kRsaPrivate));
  EXPECT_EQ(c->HandleCall(Opcode::kPkeyGetKeyFlags, key.handle).value, kSign);
  HalBlob spki = c->GetPublicKey(key.handle);
  ASSERT_EQ(spki.status, 0u);
  EXPECT_EQ(c->HandleCall(Opcode::kPkeyGetPublicKeyLength, key.handle).value, spki.bytes.size());
  EXPECT_EQ(ToHex(OpensslPublicKey(spki.bytes, /*is_public=*/true)), ToHex(spki.bytes));
  const std::string text = OpensslText(spki.bytes);
  EXPECT_NE(text.find("Public-Key: (1024 bit)"), std::string::npos) << text;
  EXPECT_NE(text.find("Exponent: 65537 (0x10001)"), std::string::npos) << text;
  SignAndCheck(*c, key.handle, spki.bytes, Digest::kSha256, /*ecdsa=*/false);
  SignAndCheck(*c, key.handle, spki.bytes, Digest::kSha1, /*ecdsa=*/false);
  // Room for exactly the public key, and one byte less.
  HalReply exact = c->Call(Request(Opcode::kPkeyGetPublicKey)
                               .U32(key.handle)
                               .U32(static_cast<std::uint32_t>(spki.bytes.size())));
  EXPECT_EQ(exact.status, 0u);
  HalReply short_of = c->Call(Request(Opcode::kPkeyGetPublicKey)
                                  .U32(key.handle)
                                  .U32(static_cast<std::uint32_t>(spki.bytes.size() - 1)));
  EXPECT_EQ(short_of.status, Code(Error::kResultTooLong));

  auto generate = [&](std::uint32_t bits, const Bytes& exponent) {
    return c->Call(Request(Opcode::kPkeyGenerateRsa).U32(0).U32(bits).Opaque(exponent).U32(kSign))
        .status;
  };
  EXPECT_EQ(generate(0, Hex("010001")), Code(Error::kBadArguments));
  EXPECT_EQ(generate(1023, Hex("010001")), Code(Error::kBadArguments));
  EXPECT_EQ(generate(1024, {}), Code(Error::kBadArguments));
}

TEST_F(CryptechKeysTest, GenerateEcOnEveryCurve) {
  auto c = HalConnect();
  struct CurveCase {
    Curve curve;
    const char* openssl_name;
    std::size_t spki_size;
    std::size_t signature_size;
    Digest digest;
  };
  const CurveCase kCases[] = {
      {Curve::kP256, "NIST CURVE: P-256", 91, 64, Digest::kSha256},
      {Curve::kP384, "NIST CURVE: P-384", 120, 96, Digest::kSha384},
      {Curve::kP521, "NIST CURVE: P-521", 158, 132, Digest::kSha512},
  };
  for (const CurveCase& curve : kCases) {
    SCOPED_TRACE(curve.openssl_name);
    HalKey key = c->GenerateEc(curve.curve, kSign);
    ASSERT_EQ(key.status, 0u);
    EXPECT_EQ(c->HandleCall(Opcode::kPkeyGetKeyType, key.handle).value, Code(KeyType::kEcPrivate));
    EXPECT_EQ(c->HandleCall(Opcode::kPkeyGetKeyCurve, key.handle).value, Code(curve.curve));
    EXPECT_EQ(c->HandleCall(Opcode::kPkeyGetKeyFlags, key.handle).value, kSign);
    HalBlob spki = c->GetPublicKey(key.handle);
    ASSERT_EQ(spki.status, 0u);
    EXPECT_EQ(spki.bytes.size(), curve.spki_size);
    EXPECT_EQ(c->HandleCall(Opcode::kPkeyGetPublicKeyLength, key.handle).value, curve.spki_size);
    EXPECT_NE(OpensslText(spki.bytes).find(curve.openssl_name), std::string::npos);
    const Bytes signature = SignAndCheck(*c, key.handle, spki.bytes, curve.digest, true);
    // libhal's ECDSA signature is r||s, each the size of the group order.
    EXPECT_EQ(signature.size(), curve.signature_size);
    Bytes altered = signature;
    altered.back() ^= 1;
    const Bytes hash =
        OpensslDigest(HalDigestOf(curve.digest), AsBytes("signet as a Cryptech HSM"));
    EXPECT_EQ(c->Verify(key.handle, 0, hash, altered), Code(Error::kInvalidSignature));
    EXPECT_FALSE(OpensslVerify(spki.bytes, curve.digest, hash, altered, true));
    // And with a hash handle, finalized by the listener.
    HalValue handle = c->HashInitialize(curve.digest);
    EXPECT_EQ(c->HashUpdate(handle.value, AsBytes("signet as a Cryptech HSM")), 0u);
    HalBlob by_handle = c->Sign(key.handle, handle.value, {});
    ASSERT_EQ(by_handle.status, 0u);
    EXPECT_TRUE(OpensslVerify(spki.bytes, curve.digest, hash, by_handle.bytes, true));
  }
  EXPECT_EQ(c->GenerateEc(static_cast<Curve>(4), kSign).status, Code(Error::kBadArguments));
  EXPECT_EQ(c->GenerateEc(Curve::kNone, kSign).status, Code(Error::kBadArguments));
  EXPECT_EQ(c->GenerateEc(Curve::kP256, 1u << 6).status, Code(Error::kBadArguments));
}

TEST_F(CryptechKeysTest, GenerateHashsigIsNotImplemented) {
  auto c = HalConnect();
  HalReply reply =
      c->Call(Request(Opcode::kPkeyGenerateHashsig).U32(0).U32(1).U32(5).U32(1).U32(kSign));
  EXPECT_EQ(reply.status, Code(Error::kNotImplemented));
}

TEST_F(CryptechKeysTest, KeyOperationsNeedTheUsersLogin) {
  auto c = HalConnect(/*login=*/false);
  EXPECT_EQ(c->GenerateEc(Curve::kP256, kSign).status, Code(Error::kForbidden));
  EXPECT_EQ(c->GenerateEc(Curve::kP256, kSign | hal::kFlagPublic).status, Code(Error::kForbidden));
  const Bytes spki =
      OpensslPublicKey(OpensslKey({"-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"}));
  EXPECT_EQ(c->Load(spki, kSign | hal::kFlagPublic).status, Code(Error::kForbidden));
  // The SO is not the user.
  EXPECT_EQ(c->Login(hal::User::kSo, kSoPin), 0u);
  EXPECT_EQ(c->GenerateEc(Curve::kP256, kSign).status, Code(Error::kForbidden));
  EXPECT_EQ(c->Logout(), 0u);
  auto user = HalConnect();
  HalKey key = user->GenerateEc(Curve::kP256, kSign | kToken);
  ASSERT_EQ(key.status, 0u);
  EXPECT_EQ(c->Open(key.uuid).status, Code(Error::kForbidden));
  // match without a login names no key: FORBIDDEN, or libhal's empty page.
  HalMatchPage page = c->Match({}, 0, 16, Bytes(16, 0));
  EXPECT_TRUE(page.status == Code(Error::kForbidden) || (page.status == 0 && page.uuids.empty()))
      << page.status << ", " << page.uuids.size() << " UUIDs";
}

TEST_F(CryptechKeysTest, CloseOpenDelete) {
  auto c = HalConnect();
  HalKey key = c->GenerateEc(Curve::kP256, kSign | kToken);
  ASSERT_EQ(key.status, 0u);
  const Bytes spki = c->GetPublicKey(key.handle).bytes;
  EXPECT_EQ(c->Close(key.handle), 0u);
  EXPECT_EQ(c->HandleCall(Opcode::kPkeyGetKeyType, key.handle).status, Code(Error::kKeyNotFound));
  EXPECT_EQ(c->Sign(key.handle, 0, Bytes(32, 1)).status, Code(Error::kKeyNotFound));
  EXPECT_EQ(c->Close(key.handle), Code(Error::kKeyNotFound));

  HalValue opened = c->Open(key.uuid);
  ASSERT_EQ(opened.status, 0u);
  SignAndCheck(*c, opened.value, spki, Digest::kSha256, true);
  // A token key opens from another connection too, as a handle of its own.
  auto other = HalConnect();
  HalValue elsewhere = other->Open(key.uuid);
  ASSERT_EQ(elsewhere.status, 0u);
  SignAndCheck(*other, elsewhere.value, spki, Digest::kSha256, true);

  EXPECT_EQ(c->Delete(opened.value), 0u);
  EXPECT_EQ(c->Open(key.uuid).status, Code(Error::kKeyNotFound));
  EXPECT_EQ(c->Delete(opened.value), Code(Error::kKeyNotFound));
  EXPECT_EQ(other->Open(key.uuid).status, Code(Error::kKeyNotFound));
  // A UUID of any other length: KEY_NAME_TOO_LONG.
  EXPECT_EQ(c->Open(Bytes(15, 1)).status, Code(Error::kKeyNameTooLong));
  EXPECT_EQ(c->Open(Bytes(17, 1)).status, Code(Error::kKeyNameTooLong));
  EXPECT_EQ(c->Open(Bytes(16, 0x5A)).status, Code(Error::kKeyNotFound));
}

// Five token keys and two session keys, two to a page: the pages follow
// libhal's states (START, TOKEN, TOKEN, VOLATILE, DONE), each resuming
// after the previous page's last UUID; every key comes once, each store in
// ascending UUID order.
TEST_F(CryptechKeysTest, MatchPaging) {
  auto c = HalConnect();
  std::vector<Bytes> token_keys, session_keys;
  for (int i = 0; i < 5; ++i)
    token_keys.push_back(c->GenerateEc(Curve::kP256, kSign | kToken).uuid);
  for (int i = 0; i < 2; ++i) session_keys.push_back(c->GenerateEc(Curve::kP256, kSign).uuid);
  token_keys = Sorted(token_keys);
  session_keys = Sorted(session_keys);

  std::vector<std::uint32_t> states;
  std::vector<Bytes> listed = c->MatchAll({}, 2, &states);
  EXPECT_EQ(states, (std::vector<std::uint32_t>{1, 1, 2, 3}));
  std::vector<Bytes> expected = token_keys;
  expected.insert(expected.end(), session_keys.begin(), session_keys.end());
  EXPECT_EQ(listed, expected);

  // Step by step: the third page holds the last token key and the first
  // session key (the page is filled from the next store).
  const Bytes zero(hal::kUuidLength, 0);
  HalMatchPage first = c->Match({}, 0, 2, zero);
  EXPECT_EQ(first.state, 1u);
  EXPECT_EQ(first.uuids, std::vector<Bytes>(token_keys.begin(), token_keys.begin() + 2));
  HalMatchPage third = c->Match({}, 1, 2, token_keys[3]);
  EXPECT_EQ(third.state, 2u);
  EXPECT_EQ(third.uuids, (std::vector<Bytes>{token_keys[4], session_keys[0]}));
  HalMatchPage last = c->Match({}, 2, 2, session_keys[0]);
  EXPECT_EQ(last.state, 3u);
  EXPECT_EQ(last.uuids, std::vector<Bytes>{session_keys[1]});
  HalMatchPage done = c->Match({}, 3, 2, session_keys[1]);
  EXPECT_EQ(done.status, 0u);
  EXPECT_EQ(done.state, 3u);
  EXPECT_TRUE(done.uuids.empty());

  // Other page sizes list the same keys; another connection sees only the
  // token keys.
  EXPECT_EQ(c->MatchAll({}, 1), expected);
  EXPECT_EQ(c->MatchAll({}, 64), expected);
  auto other = HalConnect();
  EXPECT_EQ(other->MatchAll({}, 2), token_keys);
  EXPECT_EQ(c->Match({}, 0, 0, zero).status, Code(Error::kBadArguments));
}

TEST_F(CryptechKeysTest, MatchFilters) {
  auto c = HalConnect();
  HalKey rsa = c->GenerateRsa(1024, kSign | kToken);
  HalKey p256 = c->GenerateEc(Curve::kP256, kSign);
  HalKey p384 = c->GenerateEc(Curve::kP384, kSign | kToken | hal::kFlagExportable);
  HalKey p521 = c->GenerateEc(Curve::kP521, kSign);
  HalKey rsa_public = c->Load(c->GetPublicKey(rsa.handle).bytes, kSign);
  for (const HalKey* key : {&rsa, &p256, &p384, &p521, &rsa_public}) ASSERT_EQ(key->status, 0u);
  ASSERT_EQ(c->SetAttribute(p521.handle, CKA_LABEL, AsBytes("tagged")), 0u);

  auto uuids = [](std::initializer_list<const HalKey*> keys) {
    std::set<Bytes> set;
    for (const HalKey* key : keys) set.insert(key->uuid);
    return set;
  };
  auto match = [&](const HalMatchQuery& query) {
    std::vector<Bytes> listed = c->MatchAll(query, 2);
    return std::set<Bytes>(listed.begin(), listed.end());
  };
  EXPECT_EQ(match({}), uuids({&rsa, &p256, &p384, &p521, &rsa_public}));
  EXPECT_EQ(match({.type = Code(KeyType::kRsaPrivate)}), uuids({&rsa}));
  EXPECT_EQ(match({.type = Code(KeyType::kRsaPublic)}), uuids({&rsa_public}));
  EXPECT_EQ(match({.type = Code(KeyType::kEcPrivate)}), uuids({&p256, &p384, &p521}));
  EXPECT_EQ(match({.curve = Code(Curve::kP384)}), uuids({&p384}));
  EXPECT_EQ(match({.type = Code(KeyType::kEcPrivate), .curve = Code(Curve::kP521)}),
            uuids({&p521}));
  EXPECT_EQ(match({.mask = kToken, .flags = kToken}), uuids({&rsa, &p384}));
  EXPECT_EQ(match({.mask = kToken, .flags = 0}), uuids({&p256, &p521, &rsa_public}));
  // A public key is always EXPORTABLE (docs/CRYPTECH.md's flag table).
  EXPECT_EQ(match({.mask = hal::kFlagExportable, .flags = hal::kFlagExportable}),
            uuids({&p384, &rsa_public}));
  EXPECT_EQ(match({.mask = hal::kFlagExportable, .flags = 0}), uuids({&rsa, &p256, &p521}));
  EXPECT_EQ(match({.attributes = {{CKA_LABEL, BytesOf("tagged")}}}), uuids({&p521}));
  EXPECT_EQ(match({.attributes = {{CKA_LABEL, BytesOf("tagge")}}}), uuids({}));
  // Attributes are the PKCS#11 ones: CKA_KEY_TYPE CKK_RSA picks both RSA keys.
  EXPECT_EQ(match({.attributes = {{CKA_KEY_TYPE, Ulong(CKK_RSA)}}}), uuids({&rsa, &rsa_public}));
  EXPECT_EQ(
      match({.attributes = {{CKA_KEY_TYPE, Ulong(CKK_EC)}, {CKA_CLASS, Ulong(CKO_PRIVATE_KEY)}}}),
      uuids({&p256, &p384, &p521}));
}

TEST_F(CryptechKeysTest, Attributes) {
  auto c = HalConnect();
  HalKey key = c->GenerateEc(Curve::kP256, kSign | kToken);
  ASSERT_EQ(key.status, 0u);
  constexpr std::uint32_t kAbsent = CKA_VENDOR_DEFINED | 0x5e7;
  // Two at once, written by hand: CKA_LABEL "hello", CKA_ID 01 02 03.
  EXPECT_EQ(c->Call(Request(Opcode::kPkeySetAttributes)
                        .U32(key.handle)
                        .Raw(Hex("00000002 00000003 00000005 68656c6c 6f000000"
                                 "00000102 00000003 01020300")))
                .status,
            0u);
  HalReply lengths = c->GetAttributes(key.handle, {CKA_LABEL, CKA_ID, kAbsent}, 0);
  EXPECT_EQ(ToHex(lengths.packet),
            ToHex(Cat({Hex("0000001c 00000000 00000000 00000003 00000003 00000005 00000102 "
                           "00000003"),
                       HalWords().U32(kAbsent).U32(0).bytes()})));
  HalReply values = c->GetAttributes(key.handle, {CKA_LABEL, CKA_ID}, 64);
  EXPECT_EQ(ToHex(values.packet),
            "0000001c 00000000 00000000 00000002 00000003 00000005 68656c6c 6f000000 00000102 "
            "00000003 01020300");
  EXPECT_EQ(c->GetAttributes(key.handle, {CKA_LABEL, kAbsent}, 64).status,
            Code(Error::kAttributeNotFound));
  EXPECT_EQ(c->GetAttributes(key.handle, {CKA_LABEL, CKA_ID}, 4).status,
            Code(Error::kResultTooLong));
  EXPECT_EQ(c->GetAttributes(key.handle, {}, 64).status, Code(Error::kBadArguments));
  EXPECT_EQ(c->Call(Request(Opcode::kPkeySetAttributes).U32(key.handle).U32(0)).status,
            Code(Error::kBadArguments));

  // The key's own PKCS#11 attributes, CK_ULONGs in 8 host-order bytes.
  HalReply own = c->GetAttributes(key.handle, {CKA_CLASS, CKA_KEY_TYPE}, 64);
  HalResults results = own.results();
  EXPECT_EQ(results.U32(), 2u);
  EXPECT_EQ(results.U32(), CKA_CLASS);
  EXPECT_EQ(results.Opaque(), Ulong(CKO_PRIVATE_KEY));
  EXPECT_EQ(results.U32(), CKA_KEY_TYPE);
  EXPECT_EQ(results.Opaque(), Ulong(CKK_EC));

  // Replacing a value.
  EXPECT_EQ(c->SetAttribute(key.handle, CKA_LABEL, AsBytes("renamed")), 0u);
  // A token key keeps them: another connection reads them by UUID.
  auto other = HalConnect();
  HalValue opened = other->Open(key.uuid);
  ASSERT_EQ(opened.status, 0u);
  HalReply label = other->GetAttributes(opened.value, {CKA_LABEL}, 64);
  EXPECT_EQ(ToHex(label.packet), ToHex(Cat({Hex("0000001c 00000000 00000000 00000001 00000003"),
                                            HalWords().Opaque(AsBytes("renamed")).bytes()})));
}

// NIL in place of a value deletes the attribute (proto/hal_rpc.h
// kNilAttribute): signet empties a byte string, which the length-only mode
// then reports as 0, as an absent one; a flag cannot be emptied
// (docs/CRYPTECH.md "Deliberate differences from libhal").
TEST_F(CryptechKeysTest, SetAttributesNilDeletes) {
  auto c = HalConnect();
  HalKey key = c->GenerateEc(Curve::kP256, kSign | kToken);
  ASSERT_EQ(key.status, 0u);
  ASSERT_EQ(c->SetAttribute(key.handle, CKA_ID, Hex("010203")), 0u);
  EXPECT_EQ(c->Call(Request(Opcode::kPkeySetAttributes)
                        .U32(key.handle)
                        .U32(1)
                        .U32(CKA_ID)
                        .U32(hal::kNilAttribute))
                .status,
            0u);
  HalReply after = c->GetAttributes(key.handle, {CKA_ID}, 0);
  EXPECT_EQ(ToHex(after.packet), "0000001c 00000000 00000000 00000001 00000102 00000000");
  EXPECT_EQ(c->Call(Request(Opcode::kPkeySetAttributes)
                        .U32(key.handle)
                        .Raw(Hex("00000001 00000108 ffffffff")))  // CKA_SIGN
                .status,
            Code(Error::kBadArguments));
  EXPECT_EQ(c->HandleCall(Opcode::kPkeyGetKeyFlags, key.handle).value, kSign | kToken);
}

// pkey_open answers the handle and nothing else (libhal's rpc_server;
// libhal.py's reader fails on anything left over).
TEST_F(CryptechKeysTest, OpenAnswersTheHandleOnly) {
  auto c = HalConnect();
  HalKey key = c->GenerateEc(Curve::kP256, kSign);
  ASSERT_EQ(key.status, 0u);
  HalReply opened = c->Call(Request(Opcode::kPkeyOpen).U32(0).Opaque(key.uuid));
  EXPECT_EQ(opened.status, 0u);
  EXPECT_EQ(opened.packet.size(), hal::kReplyHeader + 4) << ToHex(opened.packet);
}

// Export wraps only under a receiver the SO trusts: the same public key
// loaded by the user is refused, FORBIDDEN as libhal refuses a KEKEK
// without KEYENCIPHERMENT (docs/CRYPTECH.md "Deliberate differences").
TEST_F(CryptechKeysTest, ExportNeedsATrustedReceiver) {
  auto c = HalConnect();
  const Bytes receiver =
      OpensslPublicKey(OpensslKey({"-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"}));
  HalKey untrusted = c->Load(receiver, hal::kFlagKeyEncipherment);
  ASSERT_EQ(untrusted.status, 0u);
  HalKey key = c->GenerateEc(Curve::kP256, kSign | hal::kFlagExportable);
  ASSERT_EQ(key.status, 0u);
  HalReply exported = c->Call(Request(Opcode::kPkeyExport)
                                  .U32(key.handle)
                                  .U32(untrusted.handle)
                                  .U32(hal::kWrappedKeySize)
                                  .U32(512));
  EXPECT_EQ(exported.status, Code(Error::kForbidden));
}

// Export from token A, import on token B: B's RSA key-encryption key
// (KEYENCIPHERMENT) is loaded on A by its public key - by A's SO, which
// makes it trusted, the one kind of key signet exports under
// (docs/CRYPTECH.md "Deliberate differences") - A's EXPORTABLE key leaves
// wrapped under it, and B's private KEKEK unwraps it. The imported key
// signs for A's public key.
TEST_F(CryptechKeysTest, ExportImportBetweenTwoTokens) {
  constexpr const char* kLabelB = "e2e-token-b";
  const std::string data_b = Path("data-b"), hal_b = Path("hal-b.sock");
  // The fixture's cheap KDF (daemon_fixture.cc), for the second token.
  ProgramResult init =
      RunProgram({BinaryPath("signet"), "init", "--data", data_b, "--label", kLabelB, "--so-pin",
                  kSoPin, "--pin", kUserPin, "--kdf-n", "1024"});
  ASSERT_EQ(init.exit_code, 0) << init.err;
  Daemon daemon_b;
  ASSERT_EQ(daemon_b.Start(data_b, Path("b.sock"),
                           {"--cryptech-socket", hal_b, "--cryptech-token", kLabelB}),
            "");
  auto b = HalConnectTo(hal_b, kUserPin, /*login=*/true);
  HalKey kekek_b = b->GenerateRsa(1024, hal::kFlagKeyEncipherment);
  ASSERT_EQ(kekek_b.status, 0u);
  const Bytes kekek_spki = b->GetPublicKey(kekek_b.handle).bytes;

  // A's SO loads it as a token key (its session keys go with its logout),
  // PUBLIC: the SO makes public objects only (PKCS#11's SO session).
  auto so = HalConnect(/*login=*/false);
  ASSERT_EQ(so->Login(hal::User::kSo, kSoPin), 0u);
  EXPECT_EQ(so->Load(kekek_spki, hal::kFlagKeyEncipherment | kToken).status,
            Code(Error::kForbidden));
  HalKey trusted = so->Load(kekek_spki, hal::kFlagKeyEncipherment | kToken | hal::kFlagPublic);
  ASSERT_EQ(trusted.status, 0u);
  EXPECT_EQ(so->GenerateEc(Curve::kP256, kSign).status, Code(Error::kForbidden));
  ASSERT_EQ(so->Logout(), 0u);
  auto a = HalConnect();
  // The SO and the user are not logged in at once.
  EXPECT_EQ(so->Login(hal::User::kSo, kSoPin), Code(Error::kForbidden));
  HalValue opened_kekek = a->Open(trusted.uuid);
  ASSERT_EQ(opened_kekek.status, 0u);
  const HalKey kekek_a{.status = 0, .handle = opened_kekek.value, .uuid = trusted.uuid};
  HalKey key = a->GenerateEc(Curve::kP256, kSign | hal::kFlagExportable);
  ASSERT_EQ(key.status, 0u);
  const Bytes spki = a->GetPublicKey(key.handle).bytes;

  auto do_export = [&](std::uint32_t pkey, std::uint32_t kekek, std::uint32_t pkcs8_max,
                       std::uint32_t kek_max) {
    return a->Call(Request(Opcode::kPkeyExport).U32(pkey).U32(kekek).U32(pkcs8_max).U32(kek_max));
  };
  HalReply exported = do_export(key.handle, kekek_a.handle, hal::kWrappedKeySize, 512);
  ASSERT_EQ(exported.status, 0u);
  HalResults results = exported.results();
  const Bytes pkcs8 = results.Opaque();
  const Bytes kek = results.Opaque();
  EXPECT_TRUE(results.done());
  // The key: an encrypted PKCS#8 under id-aes256-wrap-pad
  // (2.16.840.1.101.3.4.1.48); the KEK: under rsaEncryption, ending in a
  // 128-byte OCTET STRING.
  const Bytes aes_wrap_pad = Hex("06096086480165030401 30");
  const Bytes rsa_encryption = Hex("06092a864886f70d010101");
  EXPECT_NE(std::search(pkcs8.begin(), pkcs8.end(), aes_wrap_pad.begin(), aes_wrap_pad.end()),
            pkcs8.end());
  EXPECT_NE(std::search(kek.begin(), kek.end(), rsa_encryption.begin(), rsa_encryption.end()),
            kek.end());
  ASSERT_GT(kek.size(), 131u);
  EXPECT_EQ(ToHex(ByteView(kek).subspan(kek.size() - 131, 3)), "048180");
  for (const Bytes* der : {&pkcs8, &kek}) {
    const std::string file = Scratch(".der");
    WriteTextFile(file, std::string(der->begin(), der->end()));
    EXPECT_EQ(OpenSsl({"asn1parse", "-inform", "DER", "-in", file}).exit_code, 0);
  }

  HalKey imported = b->Import(kekek_b.handle, pkcs8, kek, kSign);
  ASSERT_EQ(imported.status, 0u);
  EXPECT_NE(imported.uuid, key.uuid);
  EXPECT_EQ(b->HandleCall(Opcode::kPkeyGetKeyType, imported.handle).value,
            Code(KeyType::kEcPrivate));
  EXPECT_EQ(b->HandleCall(Opcode::kPkeyGetKeyCurve, imported.handle).value, Code(Curve::kP256));
  EXPECT_EQ(ToHex(b->GetPublicKey(imported.handle).bytes), ToHex(spki));
  SignAndCheck(*b, imported.handle, spki, Digest::kSha256, /*ecdsa=*/true);

  // What export and import refuse.
  HalKey fixed = a->GenerateEc(Curve::kP256, kSign);
  EXPECT_EQ(do_export(fixed.handle, kekek_a.handle, hal::kWrappedKeySize, 512).status,
            Code(Error::kForbidden));
  EXPECT_EQ(do_export(key.handle, kekek_a.handle, hal::kWrappedKeySize, 32).status,
            Code(Error::kBadArguments));
  EXPECT_EQ(do_export(key.handle, kekek_a.handle, hal::kWrappedKeySize - 1, 512).status,
            Code(Error::kResultTooLong));
  EXPECT_EQ(do_export(key.handle, kekek_a.handle, hal::kWrappedKeySize, 127).status,
            Code(Error::kResultTooLong));
  Bytes tampered = pkcs8;
  tampered[tampered.size() - 3] ^= 1;
  const std::uint32_t refused = b->Import(kekek_b.handle, tampered, kek, kSign).status;
  // An unwrap failure: KEYWRAP_BAD_MAGIC, _LENGTH or _PADDING (9..11).
  EXPECT_TRUE(refused >= 9 && refused <= 11) << refused;
  // Only a private KEKEK imports.
  HalKey public_kekek_b = b->Load(kekek_spki, hal::kFlagKeyEncipherment);
  EXPECT_EQ(b->Import(public_kekek_b.handle, pkcs8, kek, kSign).status,
            Code(Error::kUnsupportedKey));
  EXPECT_EQ(daemon_b.Terminate(), 0) << daemon_b.log();
}

// A connection's login and session keys end with it (muxd sends LOGOUT
// when a client goes; signetd does the same itself), and logging out
// closes the connection's handles and deletes its session keys.
TEST_F(CryptechKeysTest, LogoutAndDisconnect) {
  auto first = HalConnect();
  HalKey session_key = first->GenerateEc(Curve::kP256, kSign);
  HalKey token_key = first->GenerateEc(Curve::kP256, kSign | kToken);
  ASSERT_EQ(session_key.status, 0u);
  ASSERT_EQ(token_key.status, 0u);
  first->Close();

  auto second = HalConnect(/*login=*/false);
  EXPECT_EQ(second->IsLoggedIn(hal::User::kNormal), Code(Error::kForbidden));
  EXPECT_EQ(second->Open(token_key.uuid).status, Code(Error::kForbidden));
  ASSERT_EQ(second->Login(hal::User::kNormal, kUserPin), 0u);
  EXPECT_EQ(second->Open(session_key.uuid).status, Code(Error::kKeyNotFound));
  HalValue token_handle = second->Open(token_key.uuid);
  ASSERT_EQ(token_handle.status, 0u);

  // On the same connection: logout closes the handles, the session key goes.
  HalKey own = second->GenerateEc(Curve::kP256, kSign);
  ASSERT_EQ(own.status, 0u);
  EXPECT_EQ(second->Logout(), 0u);
  ASSERT_EQ(second->Login(hal::User::kNormal, kUserPin), 0u);
  EXPECT_EQ(second->HandleCall(Opcode::kPkeyGetKeyType, own.handle).status,
            Code(Error::kKeyNotFound));
  EXPECT_EQ(second->HandleCall(Opcode::kPkeyGetKeyType, token_handle.value).status,
            Code(Error::kKeyNotFound));
  EXPECT_EQ(second->Open(own.uuid).status, Code(Error::kKeyNotFound));
  EXPECT_EQ(second->MatchAll({}), std::vector<Bytes>{token_key.uuid});
}

// Key and hash handles are the connection's: another connection's
// requests with them find nothing, and leave them working for the owner.
TEST_F(CryptechKeysTest, HandlesBelongToTheirConnection) {
  auto owner = HalConnect();
  HalKey key = owner->GenerateEc(Curve::kP256, kSign | kToken);
  ASSERT_EQ(key.status, 0u);
  HalValue hash = owner->HashInitialize(Digest::kSha256);
  ASSERT_EQ(hash.status, 0u);
  ASSERT_EQ(owner->HashUpdate(hash.value, AsBytes("ab")), 0u);

  auto other = HalConnect();
  const Bytes digest(32, 0x11);
  EXPECT_EQ(other->Sign(key.handle, 0, digest).status, Code(Error::kKeyNotFound));
  EXPECT_EQ(other->HandleCall(Opcode::kPkeyGetKeyType, key.handle).status,
            Code(Error::kKeyNotFound));
  EXPECT_EQ(other->GetPublicKey(key.handle).status, Code(Error::kKeyNotFound));
  EXPECT_EQ(other->Close(key.handle), Code(Error::kKeyNotFound));
  EXPECT_EQ(other->Delete(key.handle), Code(Error::kKeyNotFound));
  EXPECT_EQ(other->HashUpdate(hash.value, AsBytes("x")), Code(Error::kBadArguments));
  EXPECT_EQ(other->HandleCall(Opcode::kHashGetAlgorithm, hash.value).status,
            Code(Error::kBadArguments));
  EXPECT_EQ(other->HashFinalize(hash.value).status, Code(Error::kBadArguments));
  EXPECT_EQ(other->Sign(key.handle, hash.value, {}).status, Code(Error::kKeyNotFound));

  // The owner's hash saw only its own data; its key still signs.
  ASSERT_EQ(owner->HashUpdate(hash.value, AsBytes("c")), 0u);
  EXPECT_EQ(ToHex(owner->HashFinalize(hash.value).bytes),
            ToHex(Hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")));
  SignAndCheck(*owner, key.handle, owner->GetPublicKey(key.handle).bytes, Digest::kSha256, true);
  // The other connection opens the token key by its name instead.
  HalValue own_handle = other->Open(key.uuid);
  ASSERT_EQ(own_handle.status, 0u);
  SignAndCheck(*other, own_handle.value, owner->GetPublicKey(key.handle).bytes, Digest::kSha256,
               true);
}

// One key, two interfaces: the Cryptech name is the object's CKA_UNIQUE_ID.
TEST_F(CryptechKeysTest, KeysAreSharedWithThePkcs11Side) {
  auto native = OpenUserSession();
  ASSERT_TRUE(native.ok()) << native.error().message;
  auto pair = GenerateKeyPair(*native, "ec:p256", "made-natively", /*token=*/true);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  constexpr std::array<CK_ATTRIBUTE_TYPE, 1> kUniqueId = {CKA_UNIQUE_ID};
  auto unique_id = native->client->GetAttributeValue(native->session, pair->private_key, kUniqueId);
  ASSERT_TRUE(unique_id.ok()) << unique_id.error().message;
  const Bytes uuid =
      UuidFromText(std::string((*unique_id)[0].value.begin(), (*unique_id)[0].value.end()));
  ASSERT_EQ(uuid.size(), hal::kUuidLength);

  auto c = HalConnect();
  const std::vector<Bytes> found = c->MatchAll(
      {.type = Code(KeyType::kEcPrivate), .attributes = {{CKA_LABEL, BytesOf("made-natively")}}});
  EXPECT_EQ(found, std::vector<Bytes>{uuid});
  EXPECT_EQ(c->MatchAll({.attributes = {{CKA_LABEL, BytesOf("made-natively")}}}).size(), 2u)
      << "the pair's two objects";
  HalValue opened = c->Open(uuid);
  ASSERT_EQ(opened.status, 0u);
  const Bytes spki = c->GetPublicKey(opened.value).bytes;
  SignAndCheck(*c, opened.value, spki, Digest::kSha256, /*ecdsa=*/true);
  // A native signature (r||s, PKCS#11's form) verifies here.
  const Bytes message = BytesOf("signed natively");
  auto native_signature = native->client->Sign(native->session, pair->private_key,
                                               client::Mechanism{CKM_ECDSA_SHA256}, message);
  ASSERT_TRUE(native_signature.ok()) << native_signature.error().message;
  EXPECT_EQ(c->Verify(opened.value, 0, OpensslDigest(HalDigestOf(Digest::kSha256), message),
                      *native_signature),
            0u);

  // And the other way: a key made here, labelled here, found and used natively.
  HalKey key = c->GenerateEc(Curve::kP256, kSign | kToken);
  ASSERT_EQ(key.status, 0u);
  ASSERT_EQ(c->SetAttribute(key.handle, CKA_LABEL, AsBytes("made-here")), 0u);
  auto handles = FindByLabel(*native, "made-here", CKO_PRIVATE_KEY);
  ASSERT_TRUE(handles.ok()) << handles.error().message;
  ASSERT_EQ(handles->size(), 1u);
  auto its_id = native->client->GetAttributeValue(native->session, handles->front(), kUniqueId);
  ASSERT_TRUE(its_id.ok());
  EXPECT_EQ(UuidFromText(std::string((*its_id)[0].value.begin(), (*its_id)[0].value.end())),
            key.uuid);
  auto signature = native->client->Sign(native->session, handles->front(),
                                        client::Mechanism{CKM_ECDSA_SHA256}, message);
  ASSERT_TRUE(signature.ok()) << signature.error().message;
  EXPECT_EQ(
      c->Verify(key.handle, 0, OpensslDigest(HalDigestOf(Digest::kSha256), message), *signature),
      0u);
}

}  // namespace
}  // namespace signet::e2e
