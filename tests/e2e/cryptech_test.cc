// signetd as a Cryptech HSM (docs/CRYPTECH.md), from the outside: a client of the
// tests' own speaks libhal's RPC 1.1.1.0 to the listener and checks every
// reply against docs/CRYPTECH.md and libhal's protocol, byte for byte where
// the reply is fixed. This file holds the transport (SLIP, packet limits,
// malformed requests), a walk through every opcode 0..31 with literal
// encodings, the PIN opcodes, get_random and hashing (digests checked
// against the openssl tool, FIPS 180 and RFC 4231). The keys are in
// cryptech_keys_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "cryptech_fixture.h"

namespace signet::e2e {
namespace {

using hal::Opcode;
using hal::User;

// Exchange sends the packet `request` as it is and returns the reply.
HalReply Exchange(HalConnection& connection, ByteView request) {
  return connection.Call(HalWords().Raw(request));
}

// ExpectExchange: `request` is answered with exactly `expected_hex`.
void ExpectExchange(HalConnection& connection, ByteView request, std::string_view expected_hex) {
  HalReply reply = Exchange(connection, request);
  EXPECT_EQ(ToHex(reply.packet), ToHex(Hex(expected_hex))) << "request " << ToHex(request);
}

// HandSlip frames `packet` the way libhal's sender does (END, escaped
// bytes, END), written here again so the listener's framing is checked
// against something other than proto/slip.h.
Bytes HandSlip(ByteView packet) {
  Bytes out = {0xC0};
  for (std::uint8_t b : packet) {
    if (b == 0xC0) {
      out.insert(out.end(), {0xDB, 0xDC});
    } else if (b == 0xDB) {
      out.insert(out.end(), {0xDB, 0xDD});
    } else {
      out.push_back(b);
    }
  }
  out.push_back(0xC0);
  return out;
}

// HandUnslip undoes HandSlip on one whole frame (ENDs at both ends).
Bytes HandUnslip(ByteView frame) {
  Bytes out;
  for (std::size_t i = 0; i < frame.size(); ++i) {
    if (frame[i] == 0xC0) continue;
    if (frame[i] == 0xDB && i + 1 < frame.size()) {
      out.push_back(frame[++i] == 0xDC ? 0xC0 : 0xDB);
    } else {
      out.push_back(frame[i]);
    }
  }
  return out;
}

// kAbcSha256: SHA-256("abc"), FIPS 180-2 appendix B.1.
constexpr const char* kAbcSha256 =
    "ba7816bf 8f01cfea 414140de 5dae2223 b00361a3 96177a9c b410ff61 f20015ad";

TEST_F(CryptechTest, GetVersionIsByteExact) {
  auto connection = HalConnect(/*login=*/false);
  // The client word is echoed, not interpreted.
  ExpectExchange(*connection, Hex("00000000 cccccccc"), "00000000 cccccccc 00000000 01010100");
  ExpectExchange(*connection, Hex("00000000 00000000"), "00000000 00000000 00000000 01010100");
}

// Every opcode 0..31, its request spelled out word by word and, where the
// reply is fixed, the reply too. Handles and UUIDs come from the replies.
TEST_F(CryptechTest, EveryOpcodeWithLiteralEncodings) {
  auto c = HalConnect(/*login=*/false);
  std::set<std::uint32_t> walked;
  auto exact = [&](const Bytes& request, std::string_view expected) {
    walked.insert(HalResults(request).U32());
    ExpectExchange(*c, request, expected);
  };
  auto call = [&](const Bytes& request, std::string_view header, std::size_t size) {
    walked.insert(HalResults(request).U32());
    HalReply reply = Exchange(*c, request);
    const Bytes expected = Hex(header);
    EXPECT_EQ(ToHex(ByteView(reply.packet).first(std::min(reply.packet.size(), expected.size()))),
              ToHex(expected))
        << "request " << ToHex(request);
    EXPECT_EQ(reply.packet.size(), size) << ToHex(reply.packet);
    return reply;
  };
  const std::string pin_words = "0000000c 6532652d 75736572 2d70696e";  // "e2e-user-pin"

  exact(Hex("00000000 00000000"), "00000000 00000000 00000000 01010100");
  call(Hex("00000001 00000000 00000010"), "00000001 00000000 00000000 00000010", 12 + 4 + 16);
  exact(Hex("00000006 00000000 00000001"), "00000006 00000000 0000001a");
  exact(Hex("00000003 00000000 00000001" + pin_words), "00000003 00000000 00000000");
  exact(Hex("00000006 00000000 00000001"), "00000006 00000000 00000000");
  // The user may not set the user PIN: that is the SO's (docs/CRYPTECH.md).
  exact(Hex("00000002 00000000 00000001" + pin_words), "00000002 00000000 0000001a");

  // Hashing: SHA-256 of "abc".
  exact(Hex("00000007 00000000 00000003"), "00000007 00000000 00000000 00000020");
  exact(Hex("00000008 00000000 00000003 00000040"),
        "00000008 00000000 00000000 0000000f 300d0609 60864801 65030402 01050000");
  HalReply init =
      call(Hex("0000000a 00000000 00000000 00000003 00000000"), "0000000a 00000000 00000000", 16);
  const Bytes hash = Word(init.results().U32());
  exact(Cat({Hex("00000009 00000000"), hash}), "00000009 00000000 00000000 00000003");
  exact(Cat({Hex("0000000b 00000000"), hash, Hex("00000003 61626300")}),
        "0000000b 00000000 00000000");
  exact(Cat({Hex("0000000c 00000000"), hash, Hex("00000040")}),
        std::string("0000000c 00000000 00000000 00000020 ") + kAbcSha256);

  // An ECDSA P-256 session key (flags: DIGITALSIGNATURE).
  HalReply ec = call(Hex("00000010 00000000 00000000 00000001 00000001"),
                     "00000010 00000000 00000000", 12 + 4 + 4 + 16);
  HalResults ec_results = ec.results();
  const Bytes key = Word(ec_results.U32());
  const Bytes uuid = ec_results.Opaque();
  ASSERT_EQ(uuid.size(), hal::kUuidLength);
  exact(Cat({Hex("00000013 00000000"), key}), "00000013 00000000 00000000 00000003");
  exact(Cat({Hex("0000001a 00000000"), key}), "0000001a 00000000 00000000 00000001");
  exact(Cat({Hex("00000014 00000000"), key}), "00000014 00000000 00000000 00000001");
  // A P-256 SubjectPublicKeyInfo is 91 bytes (one byte of padding on the wire).
  exact(Cat({Hex("00000015 00000000"), key}), "00000015 00000000 00000000 0000005b");
  HalReply pub = call(Cat({Hex("00000016 00000000"), key, Hex("0000005b")}),
                      "00000016 00000000 00000000 0000005b", 12 + 4 + 92);
  const Bytes spki = pub.results().Opaque();
  EXPECT_NE(OpensslText(spki).find("NIST CURVE: P-256"), std::string::npos);
  HalReply sig = call(Cat({Hex("00000017 00000000"), key,
                           Hex(std::string("00000000 00000020 ") + kAbcSha256 + " 00000040")}),
                      "00000017 00000000 00000000 00000040", 12 + 4 + 64);
  const Bytes signature = sig.results().Opaque();
  EXPECT_TRUE(OpensslVerify(spki, hal::Digest::kSha256, Hex(kAbcSha256), signature, true));
  exact(Cat({Hex("00000018 00000000"), key,
             Hex(std::string("00000000 00000020 ") + kAbcSha256 + " 00000040"), signature}),
        "00000018 00000000 00000000");
  // match: EC private, P-256, first page of 4 from state 0: the one session
  // key, and the state DONE.
  exact(Hex("00000019 00000000 00000000 00000003 00000001 00000000 00000000 00000000"
            "00000000 00000004 00000010 00000000 00000000 00000000 00000000"),
        "00000019 00000000 00000000 00000003 00000001 00000010 " + ToHex(uuid));
  // set_attributes: CKA_LABEL = "hi"; get_attributes length-only.
  exact(Cat({Hex("0000001b 00000000"), key, Hex("00000001 00000003 00000002 68690000")}),
        "0000001b 00000000 00000000");
  exact(Cat({Hex("0000001c 00000000"), key, Hex("00000001 00000003 00000000")}),
        "0000001c 00000000 00000000 00000001 00000003 00000002");

  // RSA 1024, e = 65537, KEYENCIPHERMENT; its public key loaded back.
  HalReply rsa = call(Hex("0000000f 00000000 00000000 00000400 00000003 01000100 00000002"),
                      "0000000f 00000000 00000000", 36);
  const Bytes kekek = Word(rsa.results().U32());
  HalBlob rsa_spki = c->GetPublicKey(HalResults(kekek).U32());
  ASSERT_EQ(rsa_spki.status, 0u);
  ASSERT_EQ(rsa_spki.bytes.size(), 162u);  // RSA-1024 SubjectPublicKeyInfo
  // 162 bytes: two bytes of padding after it.
  HalReply loaded =
      call(Cat({Hex("0000000d 00000000 00000000 000000a2"), rsa_spki.bytes, Hex("0000 00000002")}),
           "0000000d 00000000 00000000", 36);
  const Bytes public_kekek = Word(loaded.results().U32());
  exact(Cat({Hex("00000013 00000000"), public_kekek}), "00000013 00000000 00000000 00000002");
  // export: the EC key is not EXPORTABLE (FORBIDDEN); import: an empty KEK
  // (BAD_ARGUMENTS); generate_hashsig: NOT_IMPLEMENTED.
  exact(Cat({Hex("0000001d 00000000"), key, public_kekek, Hex("00001568 00000200")}),
        "0000001d 00000000 0000001a");
  exact(Cat({Hex("0000001e 00000000 00000000"), kekek, Hex("00000000 00000000 00000001")}),
        "0000001e 00000000 00000001");
  exact(Hex("0000001f 00000000 00000000 00000001 00000005 00000001 00000001"),
        "0000001f 00000000 0000002d");

  // close, open by UUID, delete, open again.
  exact(Cat({Hex("00000011 00000000"), key}), "00000011 00000000 00000000");
  HalReply opened = call(Cat({Hex("0000000e 00000000 00000000 00000010"), uuid}),
                         "0000000e 00000000 00000000", 16);
  exact(Cat({Hex("00000012 00000000"), Word(opened.results().U32())}),
        "00000012 00000000 00000000");
  exact(Cat({Hex("0000000e 00000000 00000000 00000010"), uuid}), "0000000e 00000000 00000015");

  exact(Hex("00000004 00000000"), "00000004 00000000 00000000");
  exact(Hex("00000006 00000000 00000001"), "00000006 00000000 0000001a");
  exact(Hex("00000005 00000000"), "00000005 00000000 00000000");
  EXPECT_EQ(walked.size(), hal::kOpcodeCount);
  EXPECT_EQ(*walked.rbegin(), hal::kOpcodeCount - 1);
}

// A frame SLIPped by hand, one byte per write(2) as libhal's C client
// sends: leading and empty frames, 0xC0 and 0xDB escaped in the header and
// in the data, and the reply's own escapes read off the wire.
TEST_F(CryptechTest, HandSlippedFramesOneBytePerWrite) {
  auto c = HalConnect(/*login=*/false);
  // get_random of 0xC0 bytes from client 0xC0DB00C0:
  // 00000001 c0db00c0 000000c0, after an empty frame.
  const Bytes frame = Hex("c0 c0 c0 00000001 dbdc dbdd 00 dbdc 000000 dbdc c0");
  ASSERT_TRUE(c->WriteBytes(frame, /*one_byte_per_write=*/true));
  const Bytes raw = c->ReadRawFrame();
  ASSERT_GE(raw.size(), 21u);
  EXPECT_EQ(raw.front(), 0xC0);
  EXPECT_EQ(raw.back(), 0xC0);
  // opcode, the client word escaped, status 0, length 0xc0 escaped.
  EXPECT_EQ(ToHex(ByteView(raw).first(21)),
            ToHex(Hex("c0 00000001 dbdc dbdd 00 dbdc 00000000 000000 dbdc")));
  const Bytes reply = HandUnslip(raw);
  EXPECT_EQ(reply.size(), 12u + 4 + 0xC0);
  for (std::size_t i = 1; i + 1 < raw.size(); ++i) EXPECT_NE(raw[i], 0xC0) << "unescaped END";

  // Data bytes that need escaping reach the hash intact.
  HalValue hash = c->HashInitialize(hal::Digest::kSha256);
  ASSERT_EQ(hash.status, 0u);
  const Bytes data = Hex("c0dbdcdd c0db78");
  const Bytes update = HalWords()
                           .U32(static_cast<std::uint32_t>(Opcode::kHashUpdate))
                           .U32(0)
                           .U32(hash.value)
                           .Opaque(data)
                           .bytes();
  ASSERT_TRUE(c->WriteBytes(HandSlip(update), /*one_byte_per_write=*/true));
  std::optional<Bytes> updated = c->ReadPacket();
  ASSERT_TRUE(updated.has_value());
  EXPECT_EQ(ToHex(*updated), "0000000b 00000000 00000000");
  HalBlob digest = c->HashFinalize(hash.value);
  ASSERT_EQ(digest.status, 0u);
  EXPECT_EQ(ToHex(digest.bytes), ToHex(OpensslDigest(HalDigestOf(hal::Digest::kSha256), data)));

  // Two requests in one write: two replies, in order.
  Bytes both = HandSlip(Hex("00000000 00000001"));
  const Bytes second = HandSlip(Hex("00000000 00000002"));
  both.insert(both.end(), second.begin(), second.end());
  ASSERT_TRUE(c->WriteBytes(both));
  EXPECT_EQ(ToHex(c->ReadPacket().value_or(Bytes{})), "00000000 00000001 00000000 01010100");
  EXPECT_EQ(ToHex(c->ReadPacket().value_or(Bytes{})), "00000000 00000002 00000000 01010100");
}

// Shorter than opcode + client: no reply at all (libhal sends none), and
// the connection goes on. The next request's reply is the first to come,
// so nothing was sent for the short ones.
TEST_F(CryptechTest, ShortRequestGetsNoReply) {
  auto c = HalConnect(/*login=*/false);
  ASSERT_TRUE(c->SendPacket(Hex("00000000 000000")));
  ASSERT_TRUE(c->SendPacket(Hex("00")));
  ASSERT_TRUE(c->SendPacket(Hex("00000001")));
  ExpectExchange(*c, Hex("00000000 0000abcd"), "00000000 0000abcd 00000000 01010100");
}

TEST_F(CryptechTest, UnknownOpcodeIsBadFunction) {
  auto c = HalConnect(/*login=*/false);
  ExpectExchange(*c, Hex("00000020 cccccccc"), "00000020 cccccccc 0000001e");
  ExpectExchange(*c, Hex("00000020 00000000 00000001 00000002"), "00000020 00000000 0000001e");
  ExpectExchange(*c, Hex("ffffffff 00000007"), "ffffffff 00000007 0000001e");
  ExpectExchange(*c, Hex("00000000 00000000"), "00000000 00000000 00000000 01010100");
}

TEST_F(CryptechTest, TruncatedArgumentsAreXdrOverflow) {
  auto c = HalConnect();
  const char* const kCutShort[] = {
      "00000001 00000000",                             // get_random: no length
      "00000001 00000000 0000",                        // get_random: half a word
      "00000003 00000000 00000001",                    // login: no PIN
      "00000003 00000000 00000001 0000000c 6532652d",  // login: PIN cut short
      "00000008 00000000 00000003",                    // digest_algorithm_id: no len_max
      "0000000a 00000000 00000000 00000003",           // hash_initialize: no key
      "00000010 00000000 00000000 00000001",           // generate_ec: no flags
      "00000017 00000000 00000001 00000000",           // sign: no input
      "0000001c 00000000 00000001 00000002 00000003",  // get_attributes: one of two types
      "00000019 00000000 00000000 00000000 00000000 00000000 00000000 00000001",  // match
  };
  for (const char* request : kCutShort) {
    const Bytes bytes = Hex(request);
    HalReply reply = Exchange(*c, bytes);
    EXPECT_EQ(reply.status, static_cast<std::uint32_t>(hal::Error::kXdrBufferOverflow))
        << request << " -> " << ToHex(reply.packet);
  }
  ExpectExchange(*c, Hex("00000006 00000000 00000001"), "00000006 00000000 00000000");
}

// The packet limit is 16,384 decoded bytes both ways: a request of exactly
// that size is served, one byte more is RPC_PACKET_OVERFLOW (libhal would
// cut it), and the connection goes on.
TEST_F(CryptechTest, PacketLimit) {
  auto c = HalConnect(/*login=*/false);
  HalValue hash = c->HashInitialize(hal::Digest::kSha256);
  ASSERT_EQ(hash.status, 0u);
  // opcode, client, handle, length word: 16 bytes of header.
  const Bytes fits(hal::kMaxPacket - 16, 0xC0);  // every byte escaped on the wire
  HalReply served = c->Call(Request(Opcode::kHashUpdate).U32(hash.value).Opaque(fits));
  EXPECT_EQ(served.packet.size(), hal::kReplyHeader);
  EXPECT_EQ(served.status, 0u);
  Bytes over = HalWords().U32(11).U32(0).U32(hash.value).Opaque(fits).bytes();
  over.push_back(0);  // 16,385 bytes
  ExpectExchange(*c, over, "0000000b 00000000 0000001d");
  ExpectExchange(*c, Cat({Hex("0000000b 00000000 00000001 00004010"), Bytes(0x4010, 0x61)}),
                 "0000000b 00000000 0000001d");
  ExpectExchange(*c, Hex("00000000 00000000"), "00000000 00000000 00000000 01010100");
  // What was hashed is the one request that fitted.
  HalBlob digest = c->HashFinalize(hash.value);
  ASSERT_EQ(digest.status, 0u);
  EXPECT_EQ(digest.bytes, OpensslDigest(HalDigestOf(hal::Digest::kSha256), fits));
}

// The room a caller offers for a result must fit in a reply packet: past
// 16,384 - 12 - 4 bytes it is RPC_PACKET_OVERFLOW, before any work; none
// at all is BAD_ARGUMENTS (libhal's rpc_server / rpc_api checks).
TEST_F(CryptechTest, ResultRoomPastThePacket) {
  auto c = HalConnect();
  using hal::Error;
  const auto overflow = static_cast<std::uint32_t>(Error::kRpcPacketOverflow);
  const auto bad = static_cast<std::uint32_t>(Error::kBadArguments);
  const std::uint32_t past = hal::kMaxPacket - 16 + 1;
  HalKey key = c->GenerateEc(hal::Curve::kP256, hal::kFlagDigitalSignature);
  ASSERT_EQ(key.status, 0u);
  const Bytes digest(32, 0x42);
  EXPECT_EQ(c->Sign(key.handle, 0, digest, past).status, overflow);
  EXPECT_EQ(c->Sign(key.handle, 0, digest, 0).status, bad);
  EXPECT_EQ(c->Sign(key.handle, 0, digest, past - 1).status, 0u);
  EXPECT_EQ(c->Call(Request(Opcode::kPkeyGetPublicKey).U32(key.handle).U32(past)).status, overflow);
  EXPECT_EQ(c->Call(Request(Opcode::kPkeyGetPublicKey).U32(key.handle).U32(0)).status, bad);
  EXPECT_EQ(c->Call(Request(Opcode::kHashGetDigestAlgorithmId).U32(3).U32(past)).status, overflow);
  HalValue hash = c->HashInitialize(hal::Digest::kSha256);
  ASSERT_EQ(hash.status, 0u);
  EXPECT_EQ(c->HashFinalize(hash.value, past).status, overflow);
  HalValue other = c->HashInitialize(hal::Digest::kSha256);
  EXPECT_EQ(c->HashFinalize(other.value, 0).status, bad);
  // get_attributes: 4 x (1 + 2n) + buffer_len must fit beside the header.
  HalReply attributes = c->GetAttributes(key.handle, {CKA_LABEL}, hal::kMaxPacket - 12 - 12 + 1);
  EXPECT_EQ(attributes.status, overflow);
  EXPECT_EQ(c->Verify(key.handle, 0, digest, {}), bad);
}

TEST_F(CryptechTest, GetRandom) {
  auto c = HalConnect(/*login=*/false);
  HalReply a = c->Call(Request(Opcode::kGetRandom).U32(32));
  HalReply b = c->Call(Request(Opcode::kGetRandom).U32(32));
  ASSERT_EQ(a.status, 0u);
  ASSERT_EQ(b.status, 0u);
  EXPECT_EQ(a.results().Opaque().size(), 32u);
  EXPECT_NE(a.results().Opaque(), b.results().Opaque());
  // The largest that fits: 16,384 - 12 (header) - 4 (length word).
  HalReply largest = c->Call(Request(Opcode::kGetRandom).U32(hal::kMaxPacket - 16));
  EXPECT_EQ(largest.status, 0u);
  EXPECT_EQ(largest.packet.size(), hal::kMaxPacket);
  ExpectExchange(*c, Hex("00000001 00000000 00003ff1"), "00000001 00000000 0000001d");
  ExpectExchange(*c, Hex("00000001 00000000 ffffffff"), "00000001 00000000 0000001d");
  // Zero bytes is refused the same way (libhal's rpc_server).
  ExpectExchange(*c, Hex("00000001 00000000 00000000"), "00000001 00000000 0000001d");
}

TEST_F(CryptechTest, LoginLogoutAndPins) {
  auto c = HalConnect(/*login=*/false);
  using hal::Error;
  auto code = [](Error e) { return static_cast<std::uint32_t>(e); };
  EXPECT_EQ(c->IsLoggedIn(User::kNormal), code(Error::kForbidden));
  EXPECT_EQ(c->Login(User::kWheel, kSoPin), code(Error::kForbidden));  // signet has no wheel
  EXPECT_EQ(c->Login(User::kNormal, "not-the-pin"), code(Error::kPinIncorrect));
  EXPECT_EQ(c->Login(User::kNormal, "abc"), code(Error::kBadArguments));  // < 4 bytes
  EXPECT_EQ(c->Login(User::kNone, kUserPin), code(Error::kBadArguments));
  EXPECT_EQ(c->Login(static_cast<User>(7), kUserPin), code(Error::kBadArguments));
  EXPECT_EQ(c->IsLoggedIn(User::kNormal), code(Error::kForbidden));

  EXPECT_EQ(c->Login(User::kNormal, kUserPin), 0u);
  EXPECT_EQ(c->IsLoggedIn(User::kNormal), 0u);
  EXPECT_EQ(c->IsLoggedIn(User::kSo), code(Error::kForbidden));
  EXPECT_EQ(c->IsLoggedIn(User::kWheel), code(Error::kForbidden));
  EXPECT_EQ(c->IsLoggedIn(static_cast<User>(9)), code(Error::kBadArguments));
  EXPECT_EQ(c->Logout(), 0u);
  EXPECT_EQ(c->IsLoggedIn(User::kNormal), code(Error::kForbidden));
  EXPECT_EQ(c->Logout(), 0u);  // logging out twice is fine

  // The SO sets the user's PIN; nobody sets the SO's or wheel's here.
  const std::string new_pin = "a-new-user-pin";
  auto set_pin = [&](User user, std::string_view pin) {
    HalWords request = Request(Opcode::kSetPin).U32(static_cast<std::uint32_t>(user));
    return c->Call(request.Opaque(AsBytes(pin))).status;
  };
  EXPECT_EQ(set_pin(User::kNormal, new_pin), code(Error::kForbidden));  // not logged in
  EXPECT_EQ(c->Login(User::kSo, kSoPin), 0u);
  EXPECT_EQ(c->IsLoggedIn(User::kSo), 0u);
  EXPECT_EQ(c->IsLoggedIn(User::kNormal), code(Error::kForbidden));
  EXPECT_EQ(set_pin(User::kNormal, "abc"), code(Error::kBadArguments));
  EXPECT_EQ(set_pin(User::kSo, "a-new-so-pin"), code(Error::kForbidden));
  EXPECT_EQ(set_pin(User::kWheel, "a-new-wheel-pin"), code(Error::kForbidden));
  EXPECT_EQ(set_pin(User::kNormal, new_pin), 0u);
  EXPECT_EQ(c->Logout(), 0u);
  EXPECT_EQ(c->Login(User::kNormal, kUserPin), code(Error::kPinIncorrect));
  EXPECT_EQ(c->Login(User::kNormal, new_pin), 0u);
  EXPECT_EQ(c->IsLoggedIn(User::kNormal), 0u);
  // The new PIN is the token's: the native side logs in with it as well.
  ProgramResult keygen =
      Signet({"keygen", "--type", "ec:p256", "--label", "after-set-pin", "--pin", new_pin});
  EXPECT_EQ(keygen.exit_code, 0) << keygen.err;

  // logout_all ends this connection's login.
  ExpectExchange(*c, Hex("00000005 00000000"), "00000005 00000000 00000000");
  EXPECT_EQ(c->IsLoggedIn(User::kNormal), code(Error::kForbidden));
}

// Each algorithm: its digest length and algorithm identifier, and "abc" hashed
// in pieces equal to openssl's digest; finalize answers exactly the digest,
// however much room the caller offers.
TEST_F(CryptechTest, EveryDigest) {
  auto c = HalConnect(/*login=*/false);
  const Bytes message = BytesOf("abc");
  for (const HalDigest& d : kHalDigests) {
    SCOPED_TRACE(d.openssl_name);
    const auto alg = static_cast<std::uint32_t>(d.digest);
    HalReply length = c->Call(Request(Opcode::kHashGetDigestLength).U32(alg));
    EXPECT_EQ(ToHex(length.packet), ToHex(HalWords().U32(7).U32(0).U32(0).U32(d.length).bytes()));
    HalReply id = c->Call(Request(Opcode::kHashGetDigestAlgorithmId).U32(alg).U32(64));
    ASSERT_EQ(id.status, 0u);
    EXPECT_EQ(ToHex(id.results().Opaque()), ToHex(Hex(d.algorithm_id_hex)));
    HalReply short_id = c->Call(Request(Opcode::kHashGetDigestAlgorithmId).U32(alg).U32(4));
    EXPECT_EQ(short_id.status, static_cast<std::uint32_t>(hal::Error::kResultTooLong));

    HalValue hash = c->HashInitialize(d.digest);
    ASSERT_EQ(hash.status, 0u);
    EXPECT_EQ(c->HandleCall(Opcode::kHashGetAlgorithm, hash.value).value, alg);
    EXPECT_EQ(c->HashUpdate(hash.value, AsBytes("a")), 0u);
    EXPECT_EQ(c->HashUpdate(hash.value, {}), 0u);
    EXPECT_EQ(c->HashUpdate(hash.value, AsBytes("bc")), 0u);
    HalBlob digest = c->HashFinalize(hash.value, 64);
    ASSERT_EQ(digest.status, 0u);
    EXPECT_EQ(digest.bytes.size(), d.length);
    EXPECT_EQ(ToHex(digest.bytes), ToHex(OpensslDigest(d, message)));
    // The handle is gone after finalize.
    EXPECT_EQ(c->HashUpdate(hash.value, AsBytes("x")), 1u);
    EXPECT_EQ(c->HandleCall(Opcode::kHashGetAlgorithm, hash.value).status, 1u);

    // Less room than the digest: BAD_ARGUMENTS (and the handle is freed).
    HalValue small = c->HashInitialize(d.digest);
    ASSERT_EQ(small.status, 0u);
    EXPECT_EQ(c->HashFinalize(small.value, d.length - 1).status, 1u);
    EXPECT_EQ(c->HashFinalize(small.value, d.length).status, 1u);
  }
  ExpectExchange(*c, Hex("00000007 00000000 00000008"), "00000007 00000000 00000001");
  ExpectExchange(*c, Hex("00000007 00000000 00000000"), "00000007 00000000 00000001");
  ExpectExchange(*c, Hex("0000000a 00000000 00000000 00000008 00000000"),
                 "0000000a 00000000 00000001");
  ExpectExchange(*c, Hex("00000009 00000000 00000000"), "00000009 00000000 00000001");
  ExpectExchange(*c, Hex("0000000b 00000000 00000000 00000001 61000000"),
                 "0000000b 00000000 00000001");
}

// HMAC: hash_initialize with a key. RFC 4231 test cases 2 and 6 where the
// RFC has the algorithm, openssl's HMAC for the others.
TEST_F(CryptechTest, Hmac) {
  auto c = HalConnect(/*login=*/false);
  const Bytes jefe = BytesOf("Jefe");
  const Bytes data = BytesOf("what do ya want for nothing?");
  const std::pair<hal::Digest, const char*> kRfc4231Case2[] = {
      {hal::Digest::kSha224, "a30e01098bc6dbbf45690f3a7e9e6d0f8bbea2a39e6148008fd05e44"},
      {hal::Digest::kSha256, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
      {hal::Digest::kSha384,
       "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e"
       "8e2240ca5e69e2c78b3239ecfab21649"},
      {hal::Digest::kSha512,
       "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
       "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"},
  };
  auto hmac = [&](hal::Digest digest, ByteView key, ByteView message) {
    HalValue hash = c->HashInitialize(digest, key);
    EXPECT_EQ(hash.status, 0u);
    EXPECT_EQ(c->HandleCall(Opcode::kHashGetAlgorithm, hash.value).value,
              static_cast<std::uint32_t>(digest));
    EXPECT_EQ(c->HashUpdate(hash.value, message), 0u);
    HalBlob mac = c->HashFinalize(hash.value, 64);
    EXPECT_EQ(mac.status, 0u);
    EXPECT_EQ(mac.bytes.size(), HalDigestOf(digest).length);
    return mac.bytes;
  };
  for (const auto& vector : kRfc4231Case2) {
    EXPECT_EQ(ToHex(hmac(vector.first, jefe, data)), ToHex(Hex(vector.second)));
  }
  // Case 6: a key longer than the block, hashed first.
  const Bytes long_key(131, 0xAA);
  const Bytes case6 = BytesOf("Test Using Larger Than Block-Size Key - Hash Key First");
  EXPECT_EQ(ToHex(hmac(hal::Digest::kSha256, long_key, case6)),
            ToHex(Hex("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")));
  for (hal::Digest digest :
       {hal::Digest::kSha1, hal::Digest::kSha512_224, hal::Digest::kSha512_256}) {
    EXPECT_EQ(ToHex(hmac(digest, jefe, data)),
              ToHex(OpensslDigest(HalDigestOf(digest), data, jefe)));
  }
}

}  // namespace
}  // namespace signet::e2e
