// request_dispatch_fuzz: the daemon's request path without sockets. Each
// input is a byte stream as a connection would send it: FrameReader splits
// it into frames (at most kMaxFrames), each payload goes through
// daemon::VerifyRequest and daemon::Dispatch against a real Hsm on a temporary
// data directory holding one token with a P-256 key pair, an AES key and a
// data object (see wire_requests.h for the handle placeholders).
//
// Byte 0 of the input picks the client: bit 0 clear = a connection that
// never logged in (one R/W session), set = one logged in as the user; bit 1
// set = an administrator (may create tokens). Each input
// gets a new connection (ClientState), disconnected at the end, and starts
// from a fresh token when an earlier input removed or duplicated one of the
// start-up objects, so an input replays much the same way on its own. Checks: every reply is one well-formed
// frame holding a Response that verifies, echoes the request id and fits
// the frame limit. Payloads are dispatched from their own buffers, as the
// daemon's workers get them.
//
// RSA key-pair generation requests are skipped: one RSA-4096 generation
// takes seconds under ASan and finds nothing the EC path does not.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "core/hsm.h"
#include "crypto/keys.h"
#include "daemon/dispatch.h"
#include "fuzz_target.h"
#include "keystore/data_dir.h"
#include "proto/framing.h"
#include "temp_hsm.h"
#include "wire_requests.h"

namespace {

using namespace signet;
using fuzz::AttributeList;
using fuzz::Bool;
using fuzz::Text;
using fuzz::Ulong;

constexpr std::string_view kSoPin = "fuzz-so-pin";
constexpr std::string_view kUserPin = "fuzz-user-pin";
constexpr int kMaxFrames = 16;

struct World : fuzz::TempHsm {
  // checker: a logged-in connection kept across inputs that checks the
  // objects the placeholders name are still there, once each.
  std::shared_ptr<core::ClientState> checker;
  std::uint64_t checker_session = 0;
  ~World() {
    if (checker) hsm->Disconnect(*checker);
  }
};
std::unique_ptr<World> g_world;
const daemon::ServerView kView{};

// CheckedReply checks that `frame` is one well-formed reply frame to
// request `id` and returns its payload, copied to its own (aligned) buffer
// as the client library does: the payload starts 4 bytes into the frame,
// and FlatBuffers reads vectors of 8-byte scalars in place.
fuzz::Payload CheckedReply(const std::vector<std::uint8_t>& frame, std::uint64_t id) {
  FUZZ_CHECK(frame.size() >= proto::kFrameHeaderSize);
  std::span<const std::uint8_t, proto::kFrameHeaderSize> header(frame.data(), proto::kFrameHeaderSize);
  FUZZ_CHECK(proto::DecodeFrameHeader(header) == frame.size() - proto::kFrameHeaderSize);
  FUZZ_CHECK(frame.size() - proto::kFrameHeaderSize <= proto::kDefaultMaxFrameSize);
  fuzz::Payload payload(frame.begin() + proto::kFrameHeaderSize, frame.end());
  flatbuffers::Verifier verifier(payload.data(), payload.size());
  FUZZ_CHECK(verifier.VerifyBuffer<wire::Response>(nullptr));
  FUZZ_CHECK(flatbuffers::GetRoot<wire::Response>(payload.data())->id() == id);
  return payload;
}

// Call dispatches `payload` for `client` and returns the verified response
// (nullptr when the request did not verify). `reply` keeps the bytes.
const wire::Response* Call(core::ClientState& client, const fuzz::Payload& payload,
                           fuzz::Payload& reply) {
  const wire::Request* request = daemon::VerifyRequest(payload);
  if (request == nullptr) return nullptr;
  reply = CheckedReply(daemon::Dispatch(*g_world->hsm, client, kView, *request), request->id());
  return flatbuffers::GetRoot<wire::Response>(reply.data());
}

// OpenSession opens a R/W session on slot 0, logged in as the user when
// `login`; 0 on failure.
std::uint64_t OpenSession(core::ClientState& client, bool login) {
  fuzz::Payload frame;
  const wire::Response* r =
      Call(client, fuzz::OpenSessionRequest(0, CKF_SERIAL_SESSION | CKF_RW_SESSION), frame);
  if (r == nullptr || r->rv() != CKR_OK || r->body_as_SessionResponse() == nullptr) return 0;
  std::uint64_t session = r->body_as_SessionResponse()->session();
  if (login) {
    r = Call(client, fuzz::LoginRequest(session, CKU_USER, kUserPin), frame);
    if (r == nullptr || r->rv() != CKR_OK) return 0;
  }
  return session;
}

// FindOne returns the handle of the one object matching `match`; 0 if none.
std::uint64_t FindOne(core::ClientState& client, std::uint64_t session,
                      const AttributeList& match) {
  fuzz::Payload frame;
  const wire::Response* r = Call(client, fuzz::FindObjectsRequest(session, match), frame);
  if (r == nullptr || r->rv() != CKR_OK || r->body_as_FindObjectsResponse() == nullptr) return 0;
  auto* objects = r->body_as_FindObjectsResponse()->objects();
  return objects != nullptr && objects->size() == 1 ? objects->Get(0) : 0;
}

bool Ok(const wire::Response* r) { return r != nullptr && r->rv() == CKR_OK; }

// BuildWorld makes a fresh data directory, token and Hsm, and the objects
// the placeholders name. Aborts when any step fails (the harness is broken).
void BuildWorld() {
  g_world.reset();
  auto world = std::make_unique<World>();
  fuzz::OpenTempHsm(*world, "dispatch-fuzz", kSoPin, kUserPin);
  g_world = std::move(world);

  auto setup = g_world->hsm->NewClient();
  setup->peer = "fuzz-setup";
  std::uint64_t s = OpenSession(*setup, true);
  FUZZ_CHECK(s != 0);
  fuzz::Payload frame;
  const auto p256 = crypto::EcParamsDer(crypto::KeyType::kEcP256);
  FUZZ_CHECK(Ok(Call(*setup,
                     fuzz::GenerateKeyPairRequest(
                         s, CKM_EC_KEY_PAIR_GEN,
                         {{CKA_TOKEN, Bool(true)},
                          {CKA_LABEL, Text("fuzz-ec")},
                          {CKA_EC_PARAMS, {p256.begin(), p256.end()}},
                          {CKA_VERIFY, Bool(true)}},
                         {{CKA_TOKEN, Bool(true)},
                          {CKA_LABEL, Text("fuzz-ec")},
                          {CKA_SIGN, Bool(true)},
                          {CKA_PRIVATE, Bool(true)}}),
                     frame)));
  FUZZ_CHECK(Ok(Call(*setup,
                     fuzz::GenerateKeyRequest(s, CKM_AES_KEY_GEN,
                                              {{CKA_TOKEN, Bool(true)},
                                               {CKA_LABEL, Text("fuzz-aes")},
                                               {CKA_VALUE_LEN, Ulong(32)},
                                               {CKA_ENCRYPT, Bool(true)},
                                               // Data role only: a key
                                               // either encrypts or wraps.
                                               {CKA_DECRYPT, Bool(true)}}),
                     frame)));
  FUZZ_CHECK(Ok(Call(*setup,
                     fuzz::CreateObjectRequest(s, {{CKA_CLASS, Ulong(CKO_DATA)},
                                                   {CKA_TOKEN, Bool(true)},
                                                   {CKA_LABEL, Text("fuzz-data")},
                                                   {CKA_PRIVATE, Bool(false)},
                                                   {CKA_VALUE, Text("fuzz data object")}}),
                     frame)));
  g_world->hsm->Disconnect(*setup);
  g_world->checker = g_world->hsm->NewClient();
  g_world->checker->peer = "fuzz-checker";
  g_world->checker_session = OpenSession(*g_world->checker, true);
  FUZZ_CHECK(g_world->checker_session != 0);
}

// WorldIntact: the start-up objects are each there once and the checker's
// session still works (an earlier input may have destroyed or copied an
// object, or re-initialised the token).
bool WorldIntact() {
  core::ClientState& c = *g_world->checker;
  const std::uint64_t s = g_world->checker_session;
  return FindOne(c, s, {{CKA_LABEL, Text("fuzz-ec")}, {CKA_CLASS, Ulong(CKO_PRIVATE_KEY)}}) != 0 &&
         FindOne(c, s, {{CKA_LABEL, Text("fuzz-ec")}, {CKA_CLASS, Ulong(CKO_PUBLIC_KEY)}}) != 0 &&
         FindOne(c, s, {{CKA_LABEL, Text("fuzz-aes")}}) != 0 &&
         FindOne(c, s, {{CKA_LABEL, Text("fuzz-data")}}) != 0;
}

void DestroyWorld() { g_world.reset(); }

// Substitute replaces every placeholder in `payload` by its handle.
void Substitute(fuzz::Payload& payload, const std::uint64_t (&handles)[fuzz::kPlaceholderCount]) {
  constexpr std::size_t kWidth = sizeof(std::uint64_t);
  for (std::size_t i = 0; i + kWidth <= payload.size(); ++i) {
    std::uint64_t v;
    std::memcpy(&v, payload.data() + i, kWidth);
    if ((v & ~std::uint64_t{0xff}) != fuzz::kPlaceholderBase) continue;
    std::uint64_t index = (v & 0xff) - 1;
    if (index >= fuzz::kPlaceholderCount) continue;
    std::memcpy(payload.data() + i, &handles[index], kWidth);
    i += kWidth - 1;
  }
}

bool IsRsaKeygen(const wire::Request& request) {
  const auto* r = request.body_as_GenerateKeyPairRequest();
  return r != nullptr && r->mechanism() != nullptr &&
         r->mechanism()->type() == CKM_RSA_PKCS_KEY_PAIR_GEN;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  BuildWorld();
  std::atexit(DestroyWorld);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const bool login = (data[0] & 1) != 0;
  const bool admin = (data[0] & 2) != 0;
  if (!WorldIntact()) BuildWorld();
  auto client = g_world->hsm->NewClient();
  client->peer = client->peer_identity = "fuzz";
  client->admin = admin;
  std::uint64_t session = OpenSession(*client, login);
  if (session == 0) {
    // An earlier input changed or locked the PIN, or re-initialised the
    // token: start over from a fresh token.
    g_world->hsm->Disconnect(*client);
    client.reset();
    BuildWorld();
    client = g_world->hsm->NewClient();
    client->peer = client->peer_identity = "fuzz";
    client->admin = admin;
    session = OpenSession(*client, login);
    FUZZ_CHECK(session != 0);
  }
  std::uint64_t handles[fuzz::kPlaceholderCount] = {
      session,
      FindOne(*client, session, {{CKA_LABEL, Text("fuzz-ec")}, {CKA_CLASS, Ulong(CKO_PRIVATE_KEY)}}),
      FindOne(*client, session, {{CKA_LABEL, Text("fuzz-ec")}, {CKA_CLASS, Ulong(CKO_PUBLIC_KEY)}}),
      FindOne(*client, session, {{CKA_LABEL, Text("fuzz-aes")}}),
      FindOne(*client, session, {{CKA_LABEL, Text("fuzz-data")}}),
  };

  proto::FrameReader reader;
  reader.Feed({data + 1, size - 1});
  std::span<const std::uint8_t> view;
  for (int n = 0; n < kMaxFrames && reader.Next(&view) == proto::FrameReader::State::kFrame; ++n) {
    fuzz::Payload payload(view.begin(), view.end());
    Substitute(payload, handles);
    const wire::Request* request = daemon::VerifyRequest(payload);
    if (request == nullptr || IsRsaKeygen(*request)) continue;
    CheckedReply(daemon::Dispatch(*g_world->hsm, *client, kView, *request), request->id());
  }
  g_world->hsm->Disconnect(*client);
  return 0;
}
