// hal_rpc.h: the facts of Cryptech's libhal RPC protocol, version 1.1.1.0,
// declared once for both ends: signetd's Cryptech listener
// (daemon/cryptech_*) and the clients that speak it (bench's --via
// cryptech, the e2e tests). docs/CRYPTECH.md describes the protocol and how
// signet maps it onto its tokens; the values here are libhal's (hal.h,
// hal_internal.h), so Cryptech's own clients understand them.
//
// Every word on the wire is a 32-bit big-endian XDR word (proto/hal_xdr.h);
// packets travel SLIP-framed (proto/slip.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace signet::proto::hal {

// kRpcVersion: what get_version answers ("1.1.1.0").
inline constexpr std::uint32_t kRpcVersion = 0x01010100;
// kMaxPacket: the largest request or reply, in decoded (un-SLIPped) bytes.
inline constexpr std::size_t kMaxPacket = 16384;
// kRequestHeader: opcode and client words; kReplyHeader adds the status.
inline constexpr std::size_t kRequestHeader = 8;
inline constexpr std::size_t kReplyHeader = 12;
// kReplySpace: result bytes a reply holds after its header.
inline constexpr std::size_t kReplySpace = kMaxPacket - kReplyHeader;
// kUuidLength: a key's name, 16 bytes, sent as a variable-length opaque.
inline constexpr std::size_t kUuidLength = 16;
// kNilAttribute: in set_attributes, a value word meaning "delete".
inline constexpr std::uint32_t kNilAttribute = 0xFFFFFFFF;
// kMinPin / kMaxPin: the PIN lengths libhal accepts (rpc_api.c).
inline constexpr std::size_t kMinPin = 4;
inline constexpr std::size_t kMaxPin = 4096;
// kKekLength: the AES-256 key-encryption key export makes per key.
inline constexpr std::size_t kKekLength = 32;
// kWrappedKeySize: export's smallest accepted pkcs8_max (libhal's
// HAL_KS_WRAPPED_KEYSIZE).
inline constexpr std::uint32_t kWrappedKeySize = 5480;

enum class Opcode : std::uint32_t {
  kGetVersion = 0,
  kGetRandom = 1,
  kSetPin = 2,
  kLogin = 3,
  kLogout = 4,
  kLogoutAll = 5,
  kIsLoggedIn = 6,
  kHashGetDigestLength = 7,
  kHashGetDigestAlgorithmId = 8,
  kHashGetAlgorithm = 9,
  kHashInitialize = 10,
  kHashUpdate = 11,
  kHashFinalize = 12,
  kPkeyLoad = 13,
  kPkeyOpen = 14,
  kPkeyGenerateRsa = 15,
  kPkeyGenerateEc = 16,
  kPkeyClose = 17,
  kPkeyDelete = 18,
  kPkeyGetKeyType = 19,
  kPkeyGetKeyFlags = 20,
  kPkeyGetPublicKeyLength = 21,
  kPkeyGetPublicKey = 22,
  kPkeySign = 23,
  kPkeyVerify = 24,
  kPkeyMatch = 25,
  kPkeyGetKeyCurve = 26,
  kPkeySetAttributes = 27,
  kPkeyGetAttributes = 28,
  kPkeyExport = 29,
  kPkeyImport = 30,
  kPkeyGenerateHashsig = 31,
};
// kOpcodeCount: opcodes are 0 .. kOpcodeCount - 1.
inline constexpr std::uint32_t kOpcodeCount = 32;

// Error: libhal's hal_error_t values (the reply's status word). Only the
// ones signet sends or clients test for are named; the numbering is libhal's.
enum class Error : std::uint32_t {
  kOk = 0,
  kBadArguments = 1,
  kUnsupportedKey = 2,
  kKeywrapBadLength = 10,
  kImpossible = 12,
  kAllocationFailure = 13,
  kResultTooLong = 14,
  kAsn1ParseFailed = 15,
  kInvalidSignature = 17,
  kCoreBusy = 19,
  kKeyNotFound = 21,
  kKeyNameInUse = 22,
  kNoKeySlotsAvailable = 23,
  kPinIncorrect = 24,
  kNoClientSlotsAvailable = 25,
  kForbidden = 26,
  kXdrBufferOverflow = 27,
  kRpcPacketOverflow = 29,
  kRpcBadFunction = 30,
  kKeyNameTooLong = 31,
  kAttributeNotFound = 40,
  kNotImplemented = 45,
};

// User: who logs in. signet has no wheel; see docs/CRYPTECH.md.
enum class User : std::uint32_t { kNone = 0, kNormal = 1, kSo = 2, kWheel = 3 };

enum class KeyType : std::uint32_t {
  kNone = 0,
  kRsaPrivate = 1,
  kRsaPublic = 2,
  kEcPrivate = 3,
  kEcPublic = 4,
  kHashsigPrivate = 5,
  kHashsigPublic = 6,
};

enum class Curve : std::uint32_t { kNone = 0, kP256 = 1, kP384 = 2, kP521 = 3 };

enum class Digest : std::uint32_t {
  kNone = 0,
  kSha1 = 1,
  kSha224 = 2,
  kSha256 = 3,
  kSha512_224 = 4,
  kSha512_256 = 5,
  kSha384 = 6,
  kSha512 = 7,
};

// Key flags (libhal's HAL_KEY_FLAG_*); any other bit is refused.
inline constexpr std::uint32_t kFlagDigitalSignature = 1u << 0;
inline constexpr std::uint32_t kFlagKeyEncipherment = 1u << 1;
inline constexpr std::uint32_t kFlagDataEncipherment = 1u << 2;
inline constexpr std::uint32_t kFlagToken = 1u << 3;
inline constexpr std::uint32_t kFlagPublic = 1u << 4;
inline constexpr std::uint32_t kFlagExportable = 1u << 5;
inline constexpr std::uint32_t kAllKeyFlags = (1u << 6) - 1;

// MatchState: pkey_match's paging cursor (token keys, then session keys).
enum class MatchState : std::uint32_t { kStart = 0, kToken = 1, kVolatile = 2, kDone = 3 };

// OpcodeName: "pkey_sign" for logs and bench reports; "unknown" past 31.
const char* OpcodeName(std::uint32_t opcode);

}  // namespace signet::proto::hal
