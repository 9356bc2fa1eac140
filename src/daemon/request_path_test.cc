// The daemon's request path around the handlers, in-process: requests that
// never reach a handler (bad version, unknown operation, a payload that is
// not a Request), replies over the frame limit, error frames, the route a
// connection takes (RouteFor), the reply size bound, and handles that
// belong to another connection.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "daemon/dispatch.h"
#include "daemon/dispatch_fixture_test_util.h"

namespace signet::daemon {
namespace {

using core::kRw;

// RequestPayload: an encoded Request with a GetInfo body (or none).
std::vector<std::uint8_t> RequestPayload(std::uint64_t id, std::uint16_t version, RequestBody type,
                                         bool with_body = true) {
  fb::FlatBufferBuilder fbb;
  fb::Offset<void> body;
  if (with_body) body = wire::CreateGetInfoRequest(fbb).Union();
  fbb.Finish(wire::CreateRequest(fbb, id, version, type, body));
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

class RequestPathTest : public DispatchFixture {};

// Was the e2e BadInputTest.UnknownVersion (its reply part): the error
// names both versions and is answered on the event loop.
TEST_F(RequestPathTest, UnknownVersionIsRefusedBeforeAnyHandler) {
  Ran ran = RunPayload(RequestPayload(11, 99, RequestBody::GetInfoRequest));
  EXPECT_EQ(ran.rv(), SIGNET_RV_UNSUPPORTED_VERSION);
  EXPECT_EQ(ran.message(), "protocol version 99 not supported; this daemon speaks 1");
  EXPECT_EQ(ran.response->id(), 11u);
  EXPECT_EQ(ran.response->body_type(), wire::ResponseBody::NONE);
  EXPECT_EQ(ran.route, Route::kEventLoop);
  // A request type that would be audited is not audited when refused here.
  Ran login = Run(
      RequestBody::LoginRequest,
      [&](auto& fbb) { return wire::CreateLoginRequest(fbb, 1, CKU_USER, Bytes(fbb, "pin-1234")); },
      nullptr, /*version=*/2);
  EXPECT_EQ(login.rv(), SIGNET_RV_UNSUPPORTED_VERSION);
  EXPECT_EQ(login.audit, "");
  EXPECT_EQ(login.route, Route::kEventLoop);
}

// Was the e2e BadInputTest.UnknownOperation (its reply part).
TEST_F(RequestPathTest, UnknownOperationOrMissingBodyIsFunctionNotSupported) {
  Ran unknown =
      RunPayload(RequestPayload(21, proto::kProtocolVersion, static_cast<RequestBody>(200)));
  EXPECT_EQ(unknown.rv(), CKR_FUNCTION_NOT_SUPPORTED);
  EXPECT_EQ(unknown.message(), "unknown operation 200");
  EXPECT_EQ(unknown.route, Route::kEventLoop);
  Ran none = RunPayload(RequestPayload(22, proto::kProtocolVersion, RequestBody::NONE, false));
  EXPECT_EQ(none.rv(), CKR_FUNCTION_NOT_SUPPORTED);
  EXPECT_EQ(none.route, Route::kEventLoop);
  // A known type whose body is missing.
  Ran bodiless =
      RunPayload(RequestPayload(23, proto::kProtocolVersion, RequestBody::SignRequest, false));
  EXPECT_EQ(bodiless.rv(), CKR_FUNCTION_NOT_SUPPORTED);
  EXPECT_EQ(bodiless.route, Route::kEventLoop);
}

// The first check on a frame: garbage, a truncated Request and a Response
// are not Requests (the connection answers SIGNET_RV_MALFORMED_MESSAGE).
TEST_F(RequestPathTest, VerifyRequestRefusesWhatIsNotARequest) {
  std::vector<std::uint8_t> good =
      RequestPayload(1, proto::kProtocolVersion, RequestBody::GetInfoRequest);
  ASSERT_NE(VerifyRequest(good), nullptr);
  EXPECT_EQ(VerifyRequest(good)->id(), 1u);
  std::vector<std::uint8_t> truncated(good.begin(), good.begin() + good.size() / 2);
  EXPECT_EQ(VerifyRequest(truncated), nullptr);
  EXPECT_EQ(VerifyRequest({}), nullptr);
  std::mt19937 rng(20261201);
  for (int round = 0; round < 64; ++round) {
    std::vector<std::uint8_t> garbage(8 + round * 5);
    for (auto& byte : garbage) byte = static_cast<std::uint8_t>(rng());
    const wire::Request* request = VerifyRequest(garbage);
    if (request != nullptr) {
      // Verified garbage is harmless: dispatching it gives a reply, never a crash.
      EXPECT_NE(RunPayload(garbage).response, nullptr);
    }
  }
}

TEST_F(RequestPathTest, ErrorFrameIsABodylessResponse) {
  std::vector<std::uint8_t> frame = ErrorFrame(77, SIGNET_RV_BUSY, "work queue full; retry");
  std::vector<std::uint8_t> payload;
  const wire::Response* response = ParseReply(frame, 77, payload);
  ASSERT_NE(response, nullptr);
  EXPECT_EQ(response->rv(), SIGNET_RV_BUSY);
  EXPECT_EQ(response->message()->str(), "work queue full; retry");
  EXPECT_EQ(response->body_type(), wire::ResponseBody::NONE);
}

// A reply that would not fit the frame limit is replaced by an error that
// says so (and the connection stays usable).
TEST_F(RequestPathTest, ReplyOverTheFrameLimitBecomesDataLenRange) {
  view_.max_frame_size = 1000;
  CK_SESSION_HANDLE s = Session(*owner_);
  Ran big = Run(RequestBody::GenerateRandomRequest,
                [&](auto& fbb) { return wire::CreateGenerateRandomRequest(fbb, s, 2000); });
  EXPECT_EQ(big.rv(), CKR_DATA_LEN_RANGE);
  EXPECT_NE(big.message().find("exceeds the frame limit of 1000"), std::string::npos)
      << big.message();
  EXPECT_LE(big.frame.size(), 1000u + proto::kFrameHeaderSize);
  Ran small = Run(RequestBody::GenerateRandomRequest,
                  [&](auto& fbb) { return wire::CreateGenerateRandomRequest(fbb, s, 100); });
  EXPECT_EQ(small.rv(), CKR_OK);
}

// ---------------------------------------------------------------- scheduling

std::vector<std::uint8_t> SignPayload() {
  fb::FlatBufferBuilder fbb;
  auto body = wire::CreateSignRequest(fbb, 1, 2, wire::CreateMechanism(fbb, CKM_ECDSA_SHA256));
  fbb.Finish(
      wire::CreateRequest(fbb, 5, proto::kProtocolVersion, RequestBody::SignRequest, body.Union()));
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

// A signature runs on the event loop (when every worker is idle) only if
// the connection's last one was fast and nothing else waits in its buffer.
TEST(RouteFor, FastSignatureWithNothingBufferedMayRunOnTheEventLoop) {
  std::vector<std::uint8_t> payload = SignPayload();
  const wire::Request* sign = VerifyRequest(payload);
  ASSERT_NE(sign, nullptr);
  EXPECT_EQ(RouteFor(*sign, 0, kInlineSignNs - 1), Route::kHereIfIdle);
  EXPECT_EQ(RouteFor(*sign, 0, 0), Route::kHereIfIdle);
  EXPECT_EQ(RouteFor(*sign, 0, kInlineSignNs), Route::kWorker);      // too slow last time
  EXPECT_EQ(RouteFor(*sign, 0, ~std::uint64_t{0}), Route::kWorker);  // no signature yet
  EXPECT_EQ(RouteFor(*sign, 1, 0), Route::kWorker);                  // another request waits
}

TEST(RouteFor, OnlySignaturesRunInlineAndOnlyGetStatsAndErrorsOnTheLoop) {
  for (RequestBody type : wire::EnumValuesRequestBody()) {
    if (type == RequestBody::NONE) continue;
    fb::FlatBufferBuilder fbb;
    // Any table serves as a body: only the type matters to RouteFor.
    fbb.Finish(wire::CreateRequest(fbb, 1, proto::kProtocolVersion, type,
                                   wire::CreateGetInfoRequest(fbb).Union()));
    const wire::Request* request = fb::GetRoot<wire::Request>(fbb.GetBufferPointer());
    // AttachRing has no handler: its Unix connection answers it, and
    // Dispatch refuses it on the loop everywhere else.
    const bool on_loop =
        type == RequestBody::GetStatsRequest || type == RequestBody::AttachRingRequest;
    Route expected = on_loop                            ? Route::kEventLoop
                     : type == RequestBody::SignRequest ? Route::kHereIfIdle
                                                        : Route::kWorker;
    EXPECT_EQ(RouteFor(*request, 0, 0), expected) << wire::EnumNameRequestBody(type);
    EXPECT_EQ(NeedsWorker(*request), expected != Route::kEventLoop)
        << wire::EnumNameRequestBody(type);
  }
}

TEST(ReplySizeBound, SmallRepliesAndTheSizeDependentOnes) {
  auto bound = [](RequestBody type, auto build) {
    fb::FlatBufferBuilder fbb;
    fbb.Finish(wire::CreateRequest(fbb, 1, proto::kProtocolVersion, type, build(fbb).Union()));
    return ReplySizeBound(*fb::GetRoot<wire::Request>(fbb.GetBufferPointer()),
                          proto::kDefaultMaxFrameSize);
  };
  EXPECT_EQ(
      bound(RequestBody::LoginRequest, [](auto& fbb) { return wire::CreateLoginRequest(fbb); }),
      4096u);
  EXPECT_EQ(
      bound(RequestBody::GetInfoRequest, [](auto& fbb) { return wire::CreateGetInfoRequest(fbb); }),
      64 * 1024u);
  EXPECT_EQ(bound(RequestBody::GenerateRandomRequest,
                  [](auto& fbb) { return wire::CreateGenerateRandomRequest(fbb, 1, 1000); }),
            1000 + 256u);
  // Never past the frame limit, however much is asked for.
  EXPECT_EQ(bound(RequestBody::GenerateRandomRequest,
                  [](auto& fbb) { return wire::CreateGenerateRandomRequest(fbb, 1, 1ull << 40); }),
            proto::kDefaultMaxFrameSize + proto::kFrameHeaderSize);
  EXPECT_EQ(bound(RequestBody::EncryptRequest,
                  [](auto& fbb) {
                    return wire::CreateEncryptRequest(
                        fbb, 1, 2, 0, fbb.CreateVector(std::vector<std::uint8_t>(500)));
                  }),
            500 + 64 + 256u);
  EXPECT_EQ(bound(RequestBody::StreamUpdateRequest,
                  [](auto& fbb) {
                    return wire::CreateStreamUpdateRequest(
                        fbb, 1, wire::OperationKind::Encrypt, false, 0, 0,
                        fbb.CreateVector(std::vector<std::uint8_t>(700)));
                  }),
            700 + 64 + 256u);
  // A GCM decryption's Final releases everything it held: up to a frame.
  EXPECT_EQ(bound(RequestBody::StreamFinalRequest,
                  [](auto& fbb) { return wire::CreateStreamFinalRequest(fbb, 1); }),
            proto::kDefaultMaxFrameSize);
}

// ---------------------------------------------------------------- connections

// Was the e2e BadInputTest.HandleOfAnotherConnection:
// handles are bound to the connection that obtained them.
TEST_F(RequestPathTest, HandlesOfAnotherConnectionAreInvalid) {
  CK_SESSION_HANDLE a = LoggedIn(*owner_);
  const auto pair = EcPair(a, "a-only", /*token=*/false);
  // Plain names, not a structured binding: clang 14 (the fuzz and
  // sanitizer build) cannot capture a binding in a lambda.
  const CK_OBJECT_HANDLE priv = pair.second;
  CK_SESSION_HANDLE b = LoggedIn(*stranger_);
  auto sign = [&](CK_SESSION_HANDLE session, core::ClientState* client) {
    return Run(
        RequestBody::SignRequest,
        [&](auto& fbb) {
          return wire::CreateSignRequest(fbb, session, priv, Mech(fbb, CKM_ECDSA_SHA256),
                                         Bytes(fbb, "x"));
        },
        client);
  };
  EXPECT_EQ(sign(a, stranger_.get()).rv(), CKR_SESSION_HANDLE_INVALID);
  EXPECT_EQ(sign(b, stranger_.get()).rv(), CKR_OBJECT_HANDLE_INVALID);
  EXPECT_EQ(Run(
                RequestBody::DestroyObjectRequest,
                [&](auto& fbb) { return wire::CreateDestroyObjectRequest(fbb, b, priv); },
                stranger_.get())
                .rv(),
            CKR_OBJECT_HANDLE_INVALID);
  EXPECT_EQ(sign(a, owner_.get()).rv(), CKR_OK);
  // The owner disconnects: its session key goes with it.
  hsm_->Disconnect(*owner_);
  EXPECT_EQ(hsm_->open_sessions(), 1u);
}

}  // namespace
}  // namespace signet::daemon
