// A Cryptech libhal RPC client of the e2e tests' own, for checking signetd's
// Cryptech listener (docs/CRYPTECH.md) from outside. Requests are written by
// hand, word by word or as hex (never through proto/hal_xdr.h, so the
// listener's XDR is checked by a second encoding), and replies are read the
// same way. Packets travel SLIP-framed through proto/slip.h; the tests also
// send hand-framed bytes to check the framing itself.
//
// Thread contract: a HalConnection, a HalWords and a HalResults each belong
// to one test thread.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "proto/hal_rpc.h"
#include "proto/slip.h"
#include "signet/types.hpp"

namespace signet::e2e {

namespace hal = proto::hal;

// Hex parses hex digits into bytes; spaces are for reading and ignored.
Bytes Hex(std::string_view text);
// BytesOf copies the characters of `text`.
inline Bytes BytesOf(std::string_view text) { return Bytes(text.begin(), text.end()); }
// ToHex prints bytes as lowercase hex, a space after every 4 (one XDR word).
std::string ToHex(ByteView bytes);

// HalWords: a packet written by hand: 32-bit big-endian words and opaques
// (a length word, the bytes, zero padding to a multiple of 4).
class HalWords {
 public:
  HalWords& U32(std::uint32_t value);
  HalWords& Opaque(ByteView bytes);
  // Raw appends bytes as they are (hex from Hex(), or a cut-short field).
  HalWords& Raw(ByteView bytes);
  const Bytes& bytes() const { return bytes_; }

 private:
  Bytes bytes_;
};

// Request starts a request: the opcode and client words.
HalWords Request(hal::Opcode opcode, std::uint32_t client = 0);

// Word: one XDR word (a handle in a hand-written request).
inline Bytes Word(std::uint32_t value) { return HalWords().U32(value).bytes(); }

// Cat joins byte strings (hex pieces, handle words, UUIDs...).
inline Bytes Cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

// HalResults reads the results that follow a reply's status word; once a
// read runs past the end, ok() is false and every later read yields 0 / {}.
class HalResults {
 public:
  explicit HalResults(ByteView results) : rest_(results) {}
  std::uint32_t U32();
  Bytes Opaque();
  bool ok() const { return ok_; }
  // done: every byte was read and none was missing (padding included).
  bool done() const { return ok_ && rest_.empty(); }

 private:
  ByteView rest_;
  bool ok_ = true;
};

// HalReply: a decoded reply. `received` is false when no reply came (the
// connection closed or nothing within the timeout).
struct HalReply {
  bool received = false;
  std::uint32_t opcode = 0;
  std::uint32_t client = 0;
  std::uint32_t status = 0xFFFFFFFF;
  Bytes packet;  // the whole reply, header included
  HalResults results() const;
};

// HalKey: what load, generate_* and import answer.
struct HalKey {
  std::uint32_t status = 0xFFFFFFFF;
  std::uint32_t handle = 0;
  Bytes uuid;
};

// HalValue: a status and, when it is 0, the one word of the result.
struct HalValue {
  std::uint32_t status = 0xFFFFFFFF;
  std::uint32_t value = 0;
};

// HalBlob: a status and, when it is 0, the one opaque of the result.
struct HalBlob {
  std::uint32_t status = 0xFFFFFFFF;
  Bytes bytes;
};

// HalMatchQuery: pkey_match's filters (attribute values as raw bytes).
struct HalMatchQuery {
  std::uint32_t type = 0;
  std::uint32_t curve = 0;
  std::uint32_t mask = 0;
  std::uint32_t flags = 0;
  std::vector<std::pair<std::uint32_t, Bytes>> attributes;
};

// HalMatchPage: one pkey_match reply.
struct HalMatchPage {
  std::uint32_t status = 0xFFFFFFFF;
  std::uint32_t state = 0;
  std::vector<Bytes> uuids;
};

// HalConnection: one connection to the listener's Unix socket.
class HalConnection {
 public:
  explicit HalConnection(const std::string& socket_path);
  ~HalConnection();
  HalConnection(const HalConnection&) = delete;
  HalConnection& operator=(const HalConnection&) = delete;

  bool connected() const { return fd_ >= 0; }
  void Close();

  // WriteBytes writes `bytes` as they are, in one go or one byte per
  // write(2) (as libhal's C client does).
  bool WriteBytes(ByteView bytes, bool one_byte_per_write = false);
  // SendPacket SLIP-frames `packet` and writes it.
  bool SendPacket(ByteView packet);
  // ReadPacket returns the next decoded reply packet; nullopt on EOF or
  // after `timeout_ms` without one (a test failure unless `quiet`).
  std::optional<Bytes> ReadPacket(int timeout_ms = 20000, bool quiet = false);
  // ReadRawFrame returns the next frame's bytes exactly as they came, the
  // ENDs included, reading one byte at a time so nothing after it is taken.
  // Only before any ReadPacket.
  Bytes ReadRawFrame(int timeout_ms = 20000);

  // Call sends `request` and reads its reply; a reply whose opcode or
  // client word does not echo the request's is a test failure.
  HalReply Call(const HalWords& request);

  // Typed calls, each one request with client word 0 and session 0.
  std::uint32_t Login(hal::User user, std::string_view pin);
  std::uint32_t Logout();
  std::uint32_t IsLoggedIn(hal::User user);
  HalKey Load(ByteView der, std::uint32_t flags);
  HalKey GenerateRsa(std::uint32_t bits, std::uint32_t flags);
  HalKey GenerateEc(hal::Curve curve, std::uint32_t flags);
  HalKey Import(std::uint32_t kekek, ByteView pkcs8, ByteView kek, std::uint32_t flags);
  HalValue Open(ByteView uuid);
  std::uint32_t Close(std::uint32_t handle);
  std::uint32_t Delete(std::uint32_t handle);
  // HandleCall: get_key_type, get_key_flags, get_key_curve,
  // get_public_key_len, hash_get_algorithm: one handle in, one word out.
  HalValue HandleCall(hal::Opcode opcode, std::uint32_t handle);
  HalBlob GetPublicKey(std::uint32_t handle);
  HalBlob Sign(std::uint32_t key, std::uint32_t hash, ByteView input, std::uint32_t sig_max = 1024);
  std::uint32_t Verify(std::uint32_t key, std::uint32_t hash, ByteView input, ByteView signature);
  HalValue HashInitialize(hal::Digest digest, ByteView hmac_key = {});
  std::uint32_t HashUpdate(std::uint32_t hash, ByteView data);
  HalBlob HashFinalize(std::uint32_t hash, std::uint32_t length = 64);
  HalMatchPage Match(const HalMatchQuery& query, std::uint32_t state, std::uint32_t result_max,
                     ByteView previous_uuid);
  // MatchAll pages through every match, `result_max` at a time; the
  // states the replies carried go to `states` when it is given.
  std::vector<Bytes> MatchAll(const HalMatchQuery& query, std::uint32_t result_max = 64,
                              std::vector<std::uint32_t>* states = nullptr);
  std::uint32_t SetAttribute(std::uint32_t handle, std::uint32_t type, ByteView value);
  // GetAttributes asks for `types`; buffer_len 0 is the length-only mode.
  HalReply GetAttributes(std::uint32_t handle, const std::vector<std::uint32_t>& types,
                         std::uint32_t buffer_len);

 private:
  // ReadKey / ReadValue / ReadBlob: Call, then the results of that shape.
  HalKey ReadKey(const HalWords& request);
  HalValue ReadValue(const HalWords& request);
  HalBlob ReadBlob(const HalWords& request);

  int fd_ = -1;
  proto::SlipDecoder decoder_;
};

}  // namespace signet::e2e
