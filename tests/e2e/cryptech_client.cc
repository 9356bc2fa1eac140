#include "cryptech_client.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>

namespace signet::e2e {
namespace {

using hal::Opcode;

// kReplyLimit: the decoder keeps more than a packet may hold, so a reply
// over the limit shows as one (and fails the test) instead of being cut.
constexpr std::size_t kReplyLimit = 2 * hal::kMaxPacket;

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Bytes Hex(std::string_view text) {
  Bytes out;
  int high = -1;
  for (char c : text) {
    if (c == ' ' || c == '\n') continue;
    const int digit = HexDigit(c);
    EXPECT_GE(digit, 0) << "not a hex digit: " << c;
    if (high < 0) {
      high = digit;
    } else {
      out.push_back(static_cast<std::uint8_t>(high << 4 | digit));
      high = -1;
    }
  }
  EXPECT_EQ(high, -1) << "odd number of hex digits";
  return out;
}

std::string ToHex(ByteView bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i > 0 && i % 4 == 0) out += ' ';
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 15];
  }
  return out;
}

HalWords& HalWords::U32(std::uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    bytes_.push_back(static_cast<std::uint8_t>(value >> shift));
  }
  return *this;
}

HalWords& HalWords::Opaque(ByteView bytes) {
  U32(static_cast<std::uint32_t>(bytes.size()));
  Raw(bytes);
  while (bytes_.size() % 4 != 0) bytes_.push_back(0);
  return *this;
}

HalWords& HalWords::Raw(ByteView bytes) {
  bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  return *this;
}

HalWords Request(hal::Opcode opcode, std::uint32_t client) {
  HalWords words;
  words.U32(static_cast<std::uint32_t>(opcode)).U32(client);
  return words;
}

std::uint32_t HalResults::U32() {
  if (!ok_ || rest_.size() < 4) {
    ok_ = false;
    return 0;
  }
  const std::uint32_t value = std::uint32_t{rest_[0]} << 24 | std::uint32_t{rest_[1]} << 16 |
                              std::uint32_t{rest_[2]} << 8 | rest_[3];
  rest_ = rest_.subspan(4);
  return value;
}

Bytes HalResults::Opaque() {
  const std::uint32_t length = U32();
  const std::size_t padded = (std::size_t{length} + 3) / 4 * 4;
  if (!ok_ || rest_.size() < padded) {
    ok_ = false;
    return {};
  }
  Bytes bytes(rest_.begin(), rest_.begin() + length);
  for (std::size_t i = length; i < padded; ++i) {
    if (rest_[i] != 0) ok_ = false;  // XDR pads with zeros
  }
  rest_ = rest_.subspan(padded);
  return bytes;
}

HalResults HalReply::results() const {
  return HalResults(
      packet.size() < hal::kReplyHeader ? ByteView{} : ByteView(packet).subspan(hal::kReplyHeader));
}

HalConnection::HalConnection(const std::string& socket_path) : decoder_(kReplyLimit) {
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", socket_path.c_str());
  if (fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) Close();
}

HalConnection::~HalConnection() { Close(); }

void HalConnection::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool HalConnection::WriteBytes(ByteView bytes, bool one_byte_per_write) {
  while (!bytes.empty()) {
    const std::size_t chunk = one_byte_per_write ? 1 : bytes.size();
    const ssize_t n = ::send(fd_, bytes.data(), chunk, MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes = bytes.subspan(static_cast<std::size_t>(n));
  }
  return true;
}

bool HalConnection::SendPacket(ByteView packet) {
  SecureBytes framed;
  proto::SlipEncode(packet, framed);
  return WriteBytes(framed);
}

std::optional<Bytes> HalConnection::ReadPacket(int timeout_ms, bool quiet) {
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) != 1) {
      if (!quiet) ADD_FAILURE() << "no reply within " << timeout_ms << " ms";
      return std::nullopt;
    }
    std::uint8_t byte = 0;
    // One byte at a time: replies are small and this keeps whatever follows
    // a reply on the socket for the next read.
    if (::recv(fd_, &byte, 1, 0) != 1) return std::nullopt;
    if (decoder_.Push(byte)) {
      EXPECT_FALSE(decoder_.oversized());
      EXPECT_LE(decoder_.packet().size(), hal::kMaxPacket) << "reply over the packet limit";
      return Bytes(decoder_.packet().begin(), decoder_.packet().end());
    }
  }
}

Bytes HalConnection::ReadRawFrame(int timeout_ms) {
  Bytes raw;
  bool in_frame = false;
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) != 1) {
      ADD_FAILURE() << "no reply within " << timeout_ms << " ms";
      return raw;
    }
    std::uint8_t byte = 0;
    if (::recv(fd_, &byte, 1, 0) != 1) return raw;
    raw.push_back(byte);
    if (byte != proto::kSlipEnd) {
      in_frame = true;
    } else if (in_frame) {
      return raw;
    }
  }
}

HalReply HalConnection::Call(const HalWords& request) {
  HalReply reply;
  if (!SendPacket(request.bytes())) {
    ADD_FAILURE() << "cannot send " << ToHex(request.bytes());
    return reply;
  }
  std::optional<Bytes> packet = ReadPacket();
  if (!packet) return reply;
  reply.received = true;
  reply.packet = std::move(*packet);
  HalResults header(reply.packet);
  reply.opcode = header.U32();
  reply.client = header.U32();
  reply.status = header.U32();
  EXPECT_TRUE(header.ok()) << "reply shorter than its header: " << ToHex(reply.packet);
  HalResults asked(request.bytes());
  EXPECT_EQ(reply.opcode, asked.U32()) << "reply " << ToHex(reply.packet);
  EXPECT_EQ(reply.client, asked.U32()) << "reply " << ToHex(reply.packet);
  if (reply.status != 0) {
    EXPECT_EQ(reply.packet.size(), hal::kReplyHeader)
        << "an error reply carries no results: " << ToHex(reply.packet);
  }
  return reply;
}

std::uint32_t HalConnection::Login(hal::User user, std::string_view pin) {
  return Call(Request(Opcode::kLogin).U32(static_cast<std::uint32_t>(user)).Opaque(AsBytes(pin)))
      .status;
}

std::uint32_t HalConnection::Logout() { return Call(Request(Opcode::kLogout)).status; }

std::uint32_t HalConnection::IsLoggedIn(hal::User user) {
  return Call(Request(Opcode::kIsLoggedIn).U32(static_cast<std::uint32_t>(user))).status;
}

HalKey HalConnection::ReadKey(const HalWords& request) {
  HalReply reply = Call(request);
  HalKey key{.status = reply.status};
  if (reply.status != 0) return key;
  HalResults results = reply.results();
  key.handle = results.U32();
  key.uuid = results.Opaque();
  EXPECT_TRUE(results.done()) << ToHex(reply.packet);
  EXPECT_EQ(key.uuid.size(), hal::kUuidLength);
  return key;
}

HalValue HalConnection::ReadValue(const HalWords& request) {
  HalReply reply = Call(request);
  HalValue value{.status = reply.status};
  if (reply.status == 0) {
    HalResults results = reply.results();
    value.value = results.U32();
    EXPECT_TRUE(results.done()) << ToHex(reply.packet);
  }
  return value;
}

HalBlob HalConnection::ReadBlob(const HalWords& request) {
  HalReply reply = Call(request);
  HalBlob blob{.status = reply.status};
  if (reply.status != 0) return blob;
  HalResults results = reply.results();
  blob.bytes = results.Opaque();
  EXPECT_TRUE(results.done()) << ToHex(reply.packet);
  return blob;
}

HalKey HalConnection::Load(ByteView der, std::uint32_t flags) {
  return ReadKey(Request(Opcode::kPkeyLoad).U32(0).Opaque(der).U32(flags));
}

HalKey HalConnection::GenerateRsa(std::uint32_t bits, std::uint32_t flags) {
  return ReadKey(
      Request(Opcode::kPkeyGenerateRsa).U32(0).U32(bits).Opaque(Hex("010001")).U32(flags));
}

HalKey HalConnection::GenerateEc(hal::Curve curve, std::uint32_t flags) {
  return ReadKey(
      Request(Opcode::kPkeyGenerateEc).U32(0).U32(static_cast<std::uint32_t>(curve)).U32(flags));
}

HalKey HalConnection::Import(std::uint32_t kekek, ByteView pkcs8, ByteView kek,
                             std::uint32_t flags) {
  return ReadKey(
      Request(Opcode::kPkeyImport).U32(0).U32(kekek).Opaque(pkcs8).Opaque(kek).U32(flags));
}

HalValue HalConnection::Open(ByteView uuid) {
  return ReadValue(Request(Opcode::kPkeyOpen).U32(0).Opaque(uuid));
}

std::uint32_t HalConnection::Close(std::uint32_t handle) {
  return Call(Request(Opcode::kPkeyClose).U32(handle)).status;
}

std::uint32_t HalConnection::Delete(std::uint32_t handle) {
  return Call(Request(Opcode::kPkeyDelete).U32(handle)).status;
}

HalValue HalConnection::HandleCall(hal::Opcode opcode, std::uint32_t handle) {
  return ReadValue(Request(opcode).U32(handle));
}

HalBlob HalConnection::GetPublicKey(std::uint32_t handle) {
  return ReadBlob(Request(Opcode::kPkeyGetPublicKey).U32(handle).U32(4096));
}

HalBlob HalConnection::Sign(std::uint32_t key, std::uint32_t hash, ByteView input,
                            std::uint32_t sig_max) {
  return ReadBlob(Request(Opcode::kPkeySign).U32(key).U32(hash).Opaque(input).U32(sig_max));
}

std::uint32_t HalConnection::Verify(std::uint32_t key, std::uint32_t hash, ByteView input,
                                    ByteView signature) {
  return Call(Request(Opcode::kPkeyVerify).U32(key).U32(hash).Opaque(input).Opaque(signature))
      .status;
}

HalValue HalConnection::HashInitialize(hal::Digest digest, ByteView hmac_key) {
  return ReadValue(Request(Opcode::kHashInitialize)
                       .U32(0)
                       .U32(static_cast<std::uint32_t>(digest))
                       .Opaque(hmac_key));
}

std::uint32_t HalConnection::HashUpdate(std::uint32_t hash, ByteView data) {
  return Call(Request(Opcode::kHashUpdate).U32(hash).Opaque(data)).status;
}

HalBlob HalConnection::HashFinalize(std::uint32_t hash, std::uint32_t length) {
  return ReadBlob(Request(Opcode::kHashFinalize).U32(hash).U32(length));
}

HalMatchPage HalConnection::Match(const HalMatchQuery& query, std::uint32_t state,
                                  std::uint32_t result_max, ByteView previous_uuid) {
  HalWords request = Request(Opcode::kPkeyMatch);
  request.U32(0).U32(query.type).U32(query.curve).U32(query.mask).U32(query.flags);
  request.U32(static_cast<std::uint32_t>(query.attributes.size()));
  for (const auto& attribute : query.attributes) {
    request.U32(attribute.first).Opaque(attribute.second);
  }
  request.U32(state).U32(result_max).Opaque(previous_uuid);
  HalReply reply = Call(request);
  HalMatchPage page{.status = reply.status};
  if (reply.status != 0) return page;
  HalResults results = reply.results();
  page.state = results.U32();
  const std::uint32_t n = results.U32();
  for (std::uint32_t i = 0; i < n && results.ok(); ++i) page.uuids.push_back(results.Opaque());
  EXPECT_TRUE(results.done()) << ToHex(reply.packet);
  EXPECT_LE(n, result_max);
  return page;
}

std::vector<Bytes> HalConnection::MatchAll(const HalMatchQuery& query, std::uint32_t result_max,
                                           std::vector<std::uint32_t>* states) {
  std::vector<Bytes> all;
  std::uint32_t state = static_cast<std::uint32_t>(hal::MatchState::kStart);
  Bytes previous(hal::kUuidLength, 0);
  // The Python client's loop: ask again while a page came back full. The
  // bound stops a server that never finishes.
  for (int pages = 0; pages < 1000; ++pages) {
    HalMatchPage page = Match(query, state, result_max, previous);
    EXPECT_EQ(page.status, 0u);
    if (page.status != 0) break;
    if (states != nullptr) states->push_back(page.state);
    all.insert(all.end(), page.uuids.begin(), page.uuids.end());
    if (page.uuids.size() < result_max) break;
    state = page.state;
    previous = page.uuids.back();
  }
  return all;
}

std::uint32_t HalConnection::SetAttribute(std::uint32_t handle, std::uint32_t type,
                                          ByteView value) {
  return Call(Request(Opcode::kPkeySetAttributes).U32(handle).U32(1).U32(type).Opaque(value))
      .status;
}

HalReply HalConnection::GetAttributes(std::uint32_t handle, const std::vector<std::uint32_t>& types,
                                      std::uint32_t buffer_len) {
  HalWords request = Request(Opcode::kPkeyGetAttributes);
  request.U32(handle).U32(static_cast<std::uint32_t>(types.size()));
  for (std::uint32_t type : types) request.U32(type);
  return Call(request.U32(buffer_len));
}

}  // namespace signet::e2e
