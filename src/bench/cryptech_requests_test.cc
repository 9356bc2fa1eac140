// The requests of `bench parallel --via cryptech`, byte for byte against
// hand-written hex of what Cryptech's parallel-signatures.py sends
// (cryptech-facts: LOGIN, PKEY_LOAD, PKEY_SIGN, PKEY_DELETE), and the
// reading of their replies.
#include "bench/cryptech_requests.h"

#include <gtest/gtest.h>

#include "base/hex.h"
#include "bench/cryptech_backend.h"

namespace signet::bench::cryptech {
namespace {

using proto::XdrReader;

std::string Hex(const SecureBytes& bytes) { return ToHex(ByteView(bytes.data(), bytes.size())); }

Bytes FromHexOrDie(std::string_view hex) {
  std::optional<Bytes> bytes = FromHex(hex);
  EXPECT_TRUE(bytes.has_value()) << hex;
  return bytes.value_or(Bytes{});
}

// The DER DigestInfo of SHA-256("Hamsters'R'Us"): the sha256 prefix of
// RFC 8017 section 9.2 note 1, then the digest `openssl dgst -sha256` prints.
constexpr std::string_view kHamstersDigestInfo =
    "3031300d060960864801650304020105000420"
    "e6be9e2479bcadc7228172e2c33adb8b3ffefb3b872376bd60fbe58f8d3cbf44";

TEST(CryptechRequests, LoginIsOpcodeClientUserAndPaddedPin) {
  EXPECT_EQ(Hex(LoginRequest(proto::hal::User::kNormal, AsBytes("fnord"))),
            "00000003"    // LOGIN
            "00000000"    // client
            "00000001"    // user NORMAL
            "00000005"    // PIN length
            "666e6f7264"  // "fnord"
            "000000");    // padding to 4
}

TEST(CryptechRequests, LoadCarriesSessionDerAndFlags) {
  const Bytes der = FromHexOrDie("3003020100");
  EXPECT_EQ(Hex(PkeyLoadRequest(0, der, proto::hal::kFlagDigitalSignature)),
            "0000000d"    // PKEY_LOAD
            "00000000"    // client
            "00000000"    // session
            "00000005"    // DER length
            "3003020100"  // DER
            "000000"      // padding
            "00000001");  // flags: USAGE_DIGITALSIGNATURE
}

TEST(CryptechRequests, SignCarriesTheScriptsDigestInfo) {
  const SignAlgorithm* rsa = FindSignAlgorithm("rsa:2048").value();
  Result<CryptechSignInput> input = MakeCryptechSignInput(*rsa);
  ASSERT_TRUE(input.ok()) << input.error().message;
  EXPECT_EQ(ToHex(input->input), kHamstersDigestInfo);
  EXPECT_EQ(Hex(PkeySignRequest(0x00010002, 0, input->input, 1024)),
            std::string("00000017"     // PKEY_SIGN
                        "00000000"     // client
                        "00010002"     // pkey handle
                        "00000000"     // hash handle: none, the input is the DigestInfo
                        "00000033") +  // 51 bytes
                std::string(kHamstersDigestInfo) +
                "00"          // padding
                "00000400");  // sig_max 1024
}

TEST(CryptechRequests, EcdsaSignsTheBareDigestOfItsCurvesHash) {
  const SignAlgorithm* p384 = FindSignAlgorithm("ec:p384").value();
  Result<CryptechSignInput> input = MakeCryptechSignInput(*p384);
  ASSERT_TRUE(input.ok()) << input.error().message;
  const std::string sha384 =  // openssl dgst -sha384 of "Hamsters'R'Us"
      "1e1585082442dd6a84136d2828c065736e06f6133cb36aca18d645bd07f121db"
      "ad91feb40096447ea1edf4c21d70f366";
  EXPECT_EQ(ToHex(input->input), sha384);
  EXPECT_EQ(ToHex(input->digest), sha384);
}

TEST(CryptechRequests, DeleteIsOpcodeClientHandle) {
  EXPECT_EQ(Hex(PkeyDeleteRequest(0x8001000a)),
            "00000012"    // PKEY_DELETE
            "00000000"    // client
            "8001000a");  // pkey handle
}

TEST(CryptechReplies, LoadedKeyAndSignatureAreRead) {
  const Bytes load = FromHexOrDie(
      "0000000d"  // opcode
      "00000000"  // client
      "00000000"  // status OK
      "00000007"  // pkey handle
      "00000010"
      "00112233445566778899aabbccddeeff");
  XdrReader reply(load);
  ReplyHeader header;
  ASSERT_TRUE(ReadReplyHeader(reply, header));
  EXPECT_EQ(header.opcode, 13u);
  Result<LoadedKey> key = ReadLoadedKey(reply);
  ASSERT_TRUE(key.ok()) << key.error().message;
  EXPECT_EQ(key->pkey, 7u);
  EXPECT_EQ(ToHex(key->uuid), "00112233445566778899aabbccddeeff");

  const Bytes short_name = FromHexOrDie(
      "00000007"
      "00000004"
      "00112233");
  XdrReader bad(short_name);
  Result<LoadedKey> refused = ReadLoadedKey(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "the Cryptech listener's reply to pkey_load (13) is malformed");

  const Bytes sign = FromHexOrDie(
      "00000003"
      "abcdef00");
  XdrReader sig_reply(sign);
  Result<Bytes> signature = ReadSignature(sig_reply);
  ASSERT_TRUE(signature.ok());
  EXPECT_EQ(ToHex(*signature), "abcdef");

  const Bytes cut = FromHexOrDie(
      "00000008"
      "abcd");
  XdrReader cut_reply(cut);
  EXPECT_FALSE(ReadSignature(cut_reply).ok());

  const Bytes header_only = FromHexOrDie(
      "00000017"
      "00000000");
  XdrReader too_short(header_only);
  EXPECT_FALSE(ReadReplyHeader(too_short, header));
}

TEST(CryptechReplies, StatusErrorNamesOpcodeAndStatus) {
  Error wrong_pin = StatusError(3, 24);
  EXPECT_EQ(wrong_pin.code, CKR_PIN_INCORRECT);
  EXPECT_EQ(wrong_pin.message, "the Cryptech listener answered login (3) with status 24");
  Error bad_sign = StatusError(23, 17);
  EXPECT_EQ(bad_sign.code, CKR_FUNCTION_FAILED);
  EXPECT_EQ(bad_sign.message, "the Cryptech listener answered pkey_sign (23) with status 17");
}

}  // namespace
}  // namespace signet::bench::cryptech
