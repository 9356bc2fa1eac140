// DispatchFixture: in-process tests of the daemon's request path, in the
// shape of Dragonfly's `Run({"set", "k", "v"})` fixtures. On top of
// core::HsmFixture (a real Hsm on a temp dir, token 0 initialised), Run
// builds a wire::Request with FlatBuffers, checks it the way a connection
// does (VerifyRequest), asks RouteFor where a connection would run it, calls
// Dispatch directly, and returns the framed reply, the audit line Dispatch
// logged and that route. No socket, no daemon process. Test-only.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/hsm_fixture_test_util.h"
#include "daemon/dispatch.h"
#include "proto/framing.h"
#include "proto/signet_generated.h"

namespace signet::daemon {

namespace fb = flatbuffers;
using wire::RequestBody;

// Value encoders: attribute values in the C ABI byte form (host order).
inline std::vector<std::uint8_t> U(CK_ULONG value) {
  std::vector<std::uint8_t> out(sizeof value);
  std::memcpy(out.data(), &value, sizeof value);
  return out;
}
inline std::vector<std::uint8_t> B(bool value) { return {static_cast<std::uint8_t>(value)}; }
inline std::vector<std::uint8_t> S(std::string_view text) { return {text.begin(), text.end()}; }

using AttributeList = std::vector<std::pair<CK_ATTRIBUTE_TYPE, std::vector<std::uint8_t>>>;

// Ran: one dispatched request and what came of it.
struct Ran {
  std::vector<std::uint8_t> frame;    // header + payload, as Dispatch returned it
  std::vector<std::uint8_t> payload;  // the payload alone, in a buffer of its own
  const wire::Response* response = nullptr;
  std::string audit;             // the audit line Dispatch logged ("" when none)
  std::string log;               // everything Dispatch wrote to the log
  Route route = Route::kWorker;  // on a fresh connection with nothing else buffered
  std::size_t reply_bound = 0;   // ReplySizeBound at the default frame limit

  CK_RV rv() const { return response ? response->rv() : ~CK_RV{0}; }
  std::string message() const {
    return response && response->message() ? response->message()->str() : std::string();
  }
  template <typename Body>
  const Body* body() const {
    return response ? response->body_as<Body>() : nullptr;
  }
};

class DispatchFixture : public core::HsmFixture {
 public:
  // The HsmFixture state, for scenario functions outside the class.
  using core::HsmFixture::admin_;
  using core::HsmFixture::hsm_;
  using core::HsmFixture::LoggedIn;
  using core::HsmFixture::owner_;
  using core::HsmFixture::serial_;
  using core::HsmFixture::Session;
  using core::HsmFixture::stranger_;

  void SetUp() override {
    login_ticket_keys_ = {SecureBytes(32, 0x77)};  // a node of a shared keystore
    core::HsmFixture::SetUp();
    owner_->peer = "unix:uid=1000,pid=42";
    stranger_->peer = "unix:uid=2000,pid=43";
    admin_->peer = "unix:uid=0,pid=1";
    view_.connections = &connections_;
  }

  void TearDown() override {
    for (auto& c : peers_) hsm_->Disconnect(*c);
    peers_.clear();
    core::HsmFixture::TearDown();
  }

  // Peer: another connection of the owner's uid (as from another node's
  // client), disconnected at TearDown.
  std::shared_ptr<core::ClientState> Peer() {
    auto c = hsm_->NewClient();
    c->peer_identity = owner_->peer_identity;
    c->peer = "unix:uid=1000,pid=44";
    peers_.push_back(c);
    return c;
  }

  // Run dispatches the request whose body `build(fbb)` returns, for
  // `client` (the owner by default).
  template <typename Build>
  Ran Run(RequestBody type, Build&& build, core::ClientState* client = nullptr,
          std::uint16_t version = proto::kProtocolVersion) {
    fb::FlatBufferBuilder fbb;
    fb::Offset<void> body = build(fbb).Union();
    fbb.Finish(wire::CreateRequest(fbb, ++last_id_, version, type, body));
    return RunPayload({fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()}, client);
  }

  // RunPayload dispatches an encoded Request (which must verify).
  Ran RunPayload(const std::vector<std::uint8_t>& payload, core::ClientState* client = nullptr) {
    Ran ran;
    const wire::Request* request = VerifyRequest(payload);
    EXPECT_NE(request, nullptr) << "the test built a request that does not verify";
    if (request == nullptr) return ran;
    ran.route = RouteFor(*request, /*buffered=*/0, /*last_sign_ns=*/~std::uint64_t{0});
    ran.reply_bound = ReplySizeBound(*request, proto::kDefaultMaxFrameSize);
    ::testing::internal::CaptureStderr();
    ran.frame = Dispatch(*hsm_, client ? *client : *owner_, view_, *request);
    ran.log = ::testing::internal::GetCapturedStderr();
    constexpr std::string_view kAudit = "signetd: audit ";
    if (auto at = ran.log.find(kAudit); at != std::string::npos) {
      std::string line = ran.log.substr(at + std::string_view("signetd: ").size());
      ran.audit = line.substr(0, line.find('\n'));
    }
    ran.response = ParseReply(ran.frame, request->id(), ran.payload);
    return ran;
  }

  // ParseReply checks the frame (header, verifier, echoed id) and returns
  // its Response, read from a copy of the payload in `payload`: FlatBuffers
  // reads 8-byte fields in place, so the payload must start at an aligned
  // address (as the client's reply buffer does), not 4 bytes into the frame.
  // nullptr (and a test failure) when any check fails.
  static const wire::Response* ParseReply(const std::vector<std::uint8_t>& frame, std::uint64_t id,
                                          std::vector<std::uint8_t>& payload) {
    EXPECT_GE(frame.size(), proto::kFrameHeaderSize);
    if (frame.size() < proto::kFrameHeaderSize) return nullptr;
    std::span<const std::uint8_t, proto::kFrameHeaderSize> header(frame.data(),
                                                                  proto::kFrameHeaderSize);
    EXPECT_EQ(proto::DecodeFrameHeader(header), frame.size() - proto::kFrameHeaderSize);
    payload.assign(frame.begin() + proto::kFrameHeaderSize, frame.end());
    fb::Verifier verifier(payload.data(), payload.size());
    bool ok = verifier.VerifyBuffer<wire::Response>(nullptr);
    EXPECT_TRUE(ok) << "Dispatch framed something that is not a Response";
    if (!ok) return nullptr;
    const wire::Response* response = fb::GetRoot<wire::Response>(payload.data());
    EXPECT_EQ(response->id(), id);
    return response;
  }

  // ---- request pieces

  static fb::Offset<fb::Vector<std::uint8_t>> Bytes(fb::FlatBufferBuilder& fbb,
                                                    std::string_view text) {
    return fbb.CreateVector(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  }
  static fb::Offset<fb::Vector<std::uint8_t>> Bytes(fb::FlatBufferBuilder& fbb,
                                                    const std::vector<std::uint8_t>& bytes) {
    return fbb.CreateVector(bytes);
  }
  static fb::Offset<fb::Vector<fb::Offset<wire::Attribute>>> Template(
      fb::FlatBufferBuilder& fbb, const AttributeList& attributes) {
    std::vector<fb::Offset<wire::Attribute>> out;
    for (const auto& [type, value] : attributes) {
      out.push_back(wire::CreateAttribute(fbb, type, fbb.CreateVector(value)));
    }
    return fbb.CreateVector(out);
  }
  static fb::Offset<wire::Mechanism> Mech(fb::FlatBufferBuilder& fbb, CK_MECHANISM_TYPE type) {
    return wire::CreateMechanism(fbb, type);
  }
  static fb::Offset<wire::Mechanism> Gcm(fb::FlatBufferBuilder& fbb,
                                         const std::vector<std::uint8_t>& iv) {
    auto gcm = wire::CreateGcmParams(fbb, fbb.CreateVector(iv), fbb.CreateVector(S("aad")), 128);
    return wire::CreateMechanism(fbb, CKM_AES_GCM, 0, gcm);
  }

  // ---- objects made through the Hsm directly (preconditions, not tests)

  // EcPair: a P-256 key pair in session `s` (token objects unless `token`
  // is false), labelled `label`; the private half extractable if asked.
  std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE> EcPair(CK_SESSION_HANDLE s,
                                                       std::string_view label = "ec-key",
                                                       bool token = true,
                                                       bool extractable = false) {
    signet::Mechanism mechanism{CKM_EC_KEY_PAIR_GEN, {}, {}};
    core::Template pub = {{CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)},
                          {CKA_TOKEN, B(token)},
                          {CKA_LABEL, S(label)}};
    core::Template priv = {
        {CKA_TOKEN, B(token)}, {CKA_LABEL, S(label)}, {CKA_EXTRACTABLE, B(extractable)}};
    auto pair = hsm_->GenerateKeyPair(*owner_, s, mechanism, pub, priv);
    EXPECT_TRUE(pair.ok()) << pair.error().message;
    return pair.ok() ? *pair : std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE>{};
  }

  // AesKey: an AES-256 session key for encryption.
  CK_OBJECT_HANDLE AesKey(CK_SESSION_HANDLE s, bool extractable = false) {
    return GenerateAes(s, {{CKA_EXTRACTABLE, B(extractable)}});
  }
  // WrappingKey: an AES-256 session key in the wrapping role (a key either
  // encrypts or wraps: core/key_policy.h).
  CK_OBJECT_HANDLE WrappingKey(CK_SESSION_HANDLE s) {
    return GenerateAes(s, {{CKA_WRAP, B(true)}, {CKA_UNWRAP, B(true)}});
  }
  CK_OBJECT_HANDLE GenerateAes(CK_SESSION_HANDLE s, core::Template key) {
    key.push_back({CKA_VALUE_LEN, U(32)});
    auto handle = hsm_->GenerateKey(*owner_, s, signet::Mechanism{CKM_AES_KEY_GEN, {}, {}}, key);
    EXPECT_TRUE(handle.ok()) << handle.error().message;
    return handle.ok() ? *handle : 0;
  }

  // DataObject: a CKO_DATA session object labelled `label`.
  CK_OBJECT_HANDLE DataObject(CK_SESSION_HANDLE s, std::string_view label = "data") {
    auto handle = hsm_->CreateObject(
        *owner_, s, {{CKA_CLASS, U(CKO_DATA)}, {CKA_LABEL, S(label)}, {CKA_VALUE, S("payload")}});
    EXPECT_TRUE(handle.ok()) << handle.error().message;
    return handle.ok() ? *handle : 0;
  }

  // Exists: whether `object` is still visible to the owner in session `s`.
  bool Exists(CK_SESSION_HANDLE s, CK_OBJECT_HANDLE object) {
    CK_RV overall = CKR_OK;
    std::vector<CK_ATTRIBUTE_TYPE> types = {CKA_CLASS};
    return hsm_->GetAttributeValue(*owner_, s, object, types, &overall).ok();
  }

  std::atomic<std::size_t> connections_{3};
  std::vector<std::shared_ptr<core::ClientState>> peers_;
  ServerView view_;
  std::uint64_t last_id_ = 1000;
};

// ---- the every-request-type suite: dispatch_test.cc runs the scenarios
// of dispatch_sessions_test.cc, dispatch_objects_test.cc and
// dispatch_crypto_test.cc.

// Scenario: one request type's case, run on a fresh DispatchFixture.
using Scenario = void (*)(DispatchFixture&);

// Scenarios: a request type's case that succeeds and one the Hsm must
// refuse (refused is nullptr when there is nothing it could refuse).
struct Scenarios {
  Scenario succeeds;
  Scenario refused;
};
using ScenarioTable = std::map<RequestBody, Scenarios>;

// SessionScenarios, ObjectScenarios and CryptoScenarios: the request types
// of each area file, each in exactly one.
ScenarioTable SessionScenarios();
ScenarioTable ObjectScenarios();
ScenarioTable CryptoScenarios();

// kOwnerTail: how the owner's audit lines end (HsmFixture's token is slot 0).
inline const std::string kOwnerTail = " peer=unix:uid=1000,pid=42";

// ExpectOk: CKR_OK and no audit line unless `audit` is given.
inline void ExpectOk(const Ran& ran, const std::string& audit = "") {
  EXPECT_EQ(ran.rv(), CKR_OK) << ran.message();
  EXPECT_EQ(ran.audit, audit);
}

// ExpectRefused: `rv` with a message and no body, the audit line `audit`
// (none by default), on the worker route.
inline void ExpectRefused(const Ran& ran, CK_RV rv, const std::string& audit = "") {
  EXPECT_EQ(ran.rv(), rv) << ran.message();
  EXPECT_FALSE(ran.message().empty()) << "an error reply carries a message";
  EXPECT_EQ(ran.response ? ran.response->body_type() : wire::ResponseBody::GetInfoResponse,
            wire::ResponseBody::NONE);
  EXPECT_EQ(ran.audit, audit);
  EXPECT_EQ(ran.route, Route::kWorker);
}

// BodyType: the reply's body type (NONE when there is no reply).
inline wire::ResponseBody BodyType(const Ran& ran) {
  return ran.response ? ran.response->body_type() : wire::ResponseBody::NONE;
}

}  // namespace signet::daemon
