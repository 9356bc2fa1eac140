// cryptech_session_fuzz: the Cryptech listener's request path without a
// socket (docs/CRYPTECH.md). Each input is a byte stream as a Cryptech
// client would send it: proto::SlipDecoder cuts it into packets (at most
// kMaxPackets), each goes to one daemon::CryptechSession, as the
// connection hands them over, against a real Hsm on a temporary data
// directory holding one token.
//
// Byte 0 of the input picks the start: bit 0 set = the session logs in as
// the user first (so the key opcodes get past the login check). Each input
// gets a new session, disconnected at the end. Checks: a packet shorter than
// the two header words gets no reply; every reply echoes the request's
// opcode and client words, carries results only with status 0, and fits the
// packet limit.
#include <cstring>
#include <memory>

#include "core/hsm.h"
#include "daemon/cryptech_session.h"
#include "fuzz_target.h"
#include "proto/hal_xdr.h"
#include "proto/slip.h"
#include "temp_hsm.h"

namespace {

using namespace signet;
namespace hal = proto::hal;

constexpr std::string_view kSoPin = "fuzz-so-pin";
constexpr std::string_view kUserPin = "fuzz-user-pin";
constexpr int kMaxPackets = 16;

std::unique_ptr<fuzz::TempHsm> g_world;

SecureBytes LoginPacket() {
  proto::XdrWriter w;
  w.PutU32(static_cast<std::uint32_t>(hal::Opcode::kLogin));
  w.PutU32(0);
  w.PutU32(static_cast<std::uint32_t>(hal::User::kNormal));
  w.PutOpaque(AsBytes(kUserPin));
  return w.bytes();
}

// CheckReply: the invariants every reply to `request` keeps.
void CheckReply(ByteView request, const std::optional<SecureBytes>& reply) {
  if (request.size() < hal::kRequestHeader) {
    FUZZ_CHECK(!reply.has_value());
    return;
  }
  FUZZ_CHECK(reply.has_value());
  FUZZ_CHECK(reply->size() >= hal::kReplyHeader && reply->size() <= hal::kMaxPacket);
  FUZZ_CHECK(reply->size() % 4 == 0);
  FUZZ_CHECK(std::memcmp(reply->data(), request.data(), hal::kRequestHeader) == 0);
  proto::XdrReader r(*reply);
  std::uint32_t word = 0, status = 0;
  r.GetU32(word);
  r.GetU32(word);
  r.GetU32(status);
  if (status != 0) FUZZ_CHECK(r.remaining() == 0);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  if (!g_world) {
    g_world = std::make_unique<fuzz::TempHsm>();
    fuzz::OpenTempHsm(*g_world, "cryptech-fuzz", kSoPin, kUserPin);
  }
  auto session = std::make_unique<daemon::CryptechSession>(*g_world->hsm, 0, "fuzz", "fuzz",
                                                           /*admin=*/false);
  if ((data[0] & 1) != 0) {
    SecureBytes login = LoginPacket();
    auto reply = session->Handle(login);
    FUZZ_CHECK(reply && reply->size() == hal::kReplyHeader && (*reply)[11] == 0);
  }
  proto::SlipDecoder decoder(hal::kMaxPacket);
  int packets = 0;
  for (std::size_t i = 1; i < size && packets < kMaxPackets; ++i) {
    if (!decoder.Push(data[i])) continue;
    ++packets;
    SecureBytes packet = decoder.packet();  // its own buffer, as a worker gets it
    if (decoder.oversized()) continue;      // the connection answers those itself
    CheckReply(packet, session->Handle(packet));
  }
  session.reset();  // Disconnect: logout, session keys destroyed
  return 0;
}
