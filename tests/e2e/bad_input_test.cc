// Bad input against a real signetd: random bytes, a truncated frame, a
// 4 GiB length, a client vanishing mid-request, a flood past the queue.
// Each gets a precise error reply or a closed connection; the daemon keeps
// serving, a fresh client then signs (checked by the openssl CLI), and the
// token's objects are unchanged.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <set>

#include "key_helpers.h"
#include "raw_connection.h"
#include "proto/framing.h"
#include "proto/signet_generated.h"

namespace signet::e2e {
namespace {

namespace fb = flatbuffers;

const wire::Response* Parse(const std::vector<std::uint8_t>& payload) {
  return ParseResponse(payload);
}

// ExpectReply reads one reply and checks its id and rv.
void ExpectReply(RawConnection& conn, std::uint64_t id, CK_RV rv) {
  auto payload = conn.ReadFrame();
  ASSERT_TRUE(payload.has_value()) << "connection closed instead of a reply";
  const wire::Response* response = Parse(*payload);
  ASSERT_NE(response, nullptr) << "reply is not a valid Response";
  EXPECT_EQ(response->id(), id);
  EXPECT_EQ(response->rv(), rv) << (response->message() ? response->message()->str() : "");
  if (rv != CKR_OK) {
    EXPECT_NE(response->message(), nullptr) << "error replies carry a message";
  }
}

std::vector<std::uint8_t> RequestBytes(std::uint64_t id, std::uint16_t version,
                                       wire::RequestBody type, bool with_body = true) {
  fb::FlatBufferBuilder fbb;
  fb::Offset<void> body;
  if (with_body) body = wire::CreateGetInfoRequest(fbb).Union();
  fbb.Finish(wire::CreateRequest(fbb, id, version, type, body));
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

class BadInputTest : public DaemonTest {
 protected:
  void SetUp() override {
    DaemonTest::SetUp();
    auto user = OpenUserSession();
    ASSERT_TRUE(user.ok()) << user.error().message;
    auto pair = GenerateKeyPair(*user, "ec:p256", "bad-input-key", /*token=*/true);
    ASSERT_TRUE(pair.ok()) << pair.error().message;
    objects_before_ = Objects();
    ASSERT_EQ(objects_before_.size(), 2u);
  }

  // Objects: labels and classes of every token object, as a user sees them.
  std::vector<std::string> Objects() {
    auto user = OpenUserSession();
    EXPECT_TRUE(user.ok());
    std::vector<std::string> out;
    auto found = user->client->FindObjects(user->session, {});
    EXPECT_TRUE(found.ok());
    for (client::Handle h : *found) {
      const std::vector<CK_ATTRIBUTE_TYPE> types = {CKA_LABEL, CKA_CLASS};
      auto attrs = user->client->GetAttributeValue(user->session, h, types);
      EXPECT_TRUE(attrs.ok());
      std::string entry((*attrs)[0].value.begin(), (*attrs)[0].value.end());
      entry += "/" + std::to_string((*attrs)[1].value[0]);
      out.push_back(entry);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // ExpectServesAndUnchanged: a fresh client signs with the token key, the
  // openssl CLI verifies, and the token holds the same objects as before.
  void ExpectServesAndUnchanged() {
    ASSERT_TRUE(daemon_.running());
    auto user = OpenUserSession();
    ASSERT_TRUE(user.ok()) << user.error().message;
    auto priv = FindByLabel(*user, "bad-input-key", CKO_PRIVATE_KEY);
    auto pub = FindByLabel(*user, "bad-input-key", CKO_PUBLIC_KEY);
    ASSERT_TRUE(priv.ok() && pub.ok());
    ASSERT_EQ(priv->size(), 1u);
    ASSERT_EQ(pub->size(), 1u);
    client::Bytes message = ToBytes("still serving");
    auto sig =
        user->client->Sign(user->session, (*priv)[0], client::Mechanism{CKM_ECDSA_SHA256}, message);
    ASSERT_TRUE(sig.ok()) << sig.error().message;
    auto key = ReadPublicKey(*user, (*pub)[0]);
    ASSERT_TRUE(key.ok());
    auto der = crypto::EcdsaRawToDer(*sig);
    ASSERT_TRUE(der.ok());
    WriteTextFile(Path("pub.pem"), *key->ToPem());
    WriteTextFile(Path("msg"), "still serving");
    WriteTextFile(Path("sig"), std::string(der->begin(), der->end()));
    auto verify = OpenSsl(
        {"dgst", "-sha256", "-verify", Path("pub.pem"), "-signature", Path("sig"), Path("msg")});
    EXPECT_EQ(verify.exit_code, 0) << verify.err;
    EXPECT_EQ(Objects(), objects_before_);
  }

  std::vector<std::string> objects_before_;
};

TEST_F(BadInputTest, RandomBytes) {
  std::mt19937 rng(20261129);
  for (int round = 0; round < 8; ++round) {
    RawConnection conn(socket_path());
    ASSERT_TRUE(conn.connected());
    // A plausible length then garbage: a malformed-message reply, and the
    // connection stays usable.
    std::vector<std::uint8_t> garbage(64 + round * 37);
    for (auto& b : garbage) b = static_cast<std::uint8_t>(rng());
    ASSERT_TRUE(conn.SendFrame(garbage));
    ExpectReply(conn, 0, SIGNET_RV_MALFORMED_MESSAGE);
    ASSERT_TRUE(
        conn.SendFrame(RequestBytes(7, proto::kProtocolVersion, wire::RequestBody::GetInfoRequest)));
    ExpectReply(conn, 7, CKR_OK);
  }
  // Pure noise, length field included: a too-large or malformed reply, or
  // a close; never a hang or a crash.
  RawConnection noise(socket_path());
  std::vector<std::uint8_t> bytes(4096);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
  bytes[0] = 0x7f;  // length far beyond the limit
  noise.Send(bytes);
  ExpectReply(noise, 0, SIGNET_RV_FRAME_TOO_LARGE);
  noise.ExpectClosed();
  ExpectServesAndUnchanged();
}

TEST_F(BadInputTest, TruncatedFrame) {
  RawConnection conn(socket_path());
  auto request = RequestBytes(3, proto::kProtocolVersion, wire::RequestBody::GetInfoRequest);
  auto frame = Framed(request);
  // Half a frame, then the writer gives up: no reply, the daemon closes.
  ASSERT_TRUE(conn.Send(std::span<const std::uint8_t>(frame.data(), frame.size() / 2)));
  // A stalled half frame on another connection blocks no one.
  RawConnection stalled(socket_path());
  ASSERT_TRUE(stalled.Send(std::span<const std::uint8_t>(frame.data(), 3)));
  ExpectServesAndUnchanged();
  conn.ShutdownWrite();
  conn.ExpectClosed();
}

TEST_F(BadInputTest, FourGibLength) {
  RawConnection conn(socket_path());
  std::vector<std::uint8_t> header = {0xff, 0xff, 0xff, 0xff, 1, 2, 3};
  ASSERT_TRUE(conn.Send(header));
  ExpectReply(conn, 0, SIGNET_RV_FRAME_TOO_LARGE);
  conn.ExpectClosed();
  ExpectServesAndUnchanged();
}

// BadInputTest.UnknownVersion, BadInputTest.UnknownOperation and
// BadInputTest.HandleOfAnotherConnection run in-process now, as
// RequestPathTest.UnknownVersionIsRefusedBeforeAnyHandler,
// RequestPathTest.UnknownOperationOrMissingBodyIsFunctionNotSupported and
// RequestPathTest.HandlesOfAnotherConnectionAreInvalid
// (src/daemon/request_path_test.cc) and
// ServerTest.ErrorRepliesKeepTheConnectionServing (src/daemon/server_test.cc).
// What only a process shows (the daemon survives, the token is unchanged)
// RandomBytes above still checks.

TEST_F(BadInputTest, DisconnectMidRequest) {
  for (int round = 0; round < 5; ++round) {
    RawConnection conn(socket_path());
    // Open a session in the raw protocol, then pipeline work and vanish.
    fb::FlatBufferBuilder fbb;
    fbb.Finish(
        wire::CreateRequest(fbb, 1, proto::kProtocolVersion, wire::RequestBody::OpenSessionRequest,
                            wire::CreateOpenSessionRequest(fbb, 0, CKF_SERIAL_SESSION).Union()));
    ASSERT_TRUE(conn.SendFrame({fbb.GetBufferPointer(), fbb.GetSize()}));
    auto reply = conn.ReadFrame();
    ASSERT_TRUE(reply.has_value());
    const wire::Response* response = Parse(*reply);
    ASSERT_NE(response, nullptr);
    ASSERT_EQ(response->rv(), CKR_OK);
    std::uint64_t session = response->body_as_SessionResponse()->session();
    for (std::uint64_t id = 2; id < 200; ++id) {
      fb::FlatBufferBuilder req;
      req.Finish(wire::CreateRequest(
          req, id, proto::kProtocolVersion, wire::RequestBody::GenerateRandomRequest,
          wire::CreateGenerateRandomRequest(req, session, 65536).Union()));
      if (!conn.SendFrame({req.GetBufferPointer(), req.GetSize()})) break;
    }
    conn.Close();  // replies in flight go to a closed connection
  }
  ExpectServesAndUnchanged();
}

// A client pipelining past the queue bound gets SIGNET_RV_BUSY for the
// excess, a reply for every request, and the daemon's memory stays bounded.
TEST_F(BadInputTest, FloodPastQueueBoundGetsBusy) {
  ASSERT_EQ(daemon_.Terminate(), 0);
  StartDaemon({"--workers", "1", "--max-queue", "2"});
  RawConnection conn(socket_path());
  fb::FlatBufferBuilder open;
  open.Finish(
      wire::CreateRequest(open, 1, proto::kProtocolVersion, wire::RequestBody::OpenSessionRequest,
                          wire::CreateOpenSessionRequest(open, 0, CKF_SERIAL_SESSION).Union()));
  ASSERT_TRUE(conn.SendFrame({open.GetBufferPointer(), open.GetSize()}));
  auto reply = conn.ReadFrame();
  ASSERT_TRUE(reply.has_value());
  const wire::Response* opened = Parse(*reply);
  ASSERT_NE(opened, nullptr);
  ASSERT_EQ(opened->rv(), CKR_OK);
  std::uint64_t session = opened->body_as_SessionResponse()->session();
  // All requests in one write, so they arrive faster than one worker drains.
  constexpr std::uint64_t kRequests = 64;
  std::vector<std::uint8_t> burst;
  for (std::uint64_t id = 100; id < 100 + kRequests; ++id) {
    fb::FlatBufferBuilder req;
    req.Finish(wire::CreateRequest(req, id, proto::kProtocolVersion,
                                   wire::RequestBody::GenerateRandomRequest,
                                   wire::CreateGenerateRandomRequest(req, session, 65536).Union()));
    auto frame = Framed({req.GetBufferPointer(), req.GetSize()});
    burst.insert(burst.end(), frame.begin(), frame.end());
  }
  ASSERT_TRUE(conn.Send(burst));
  std::set<std::uint64_t> ids;
  int ok = 0, busy = 0;
  for (std::uint64_t i = 0; i < kRequests; ++i) {
    auto payload = conn.ReadFrame();
    ASSERT_TRUE(payload.has_value());
    const wire::Response* response = Parse(*payload);
    ASSERT_NE(response, nullptr);
    ids.insert(response->id());
    if (response->rv() == CKR_OK) {
      ++ok;
      EXPECT_EQ(response->body_as_DataResponse()->data()->size(), 65536u);
    } else {
      EXPECT_EQ(response->rv(), SIGNET_RV_BUSY);
      ++busy;
    }
  }
  EXPECT_EQ(ids.size(), kRequests);  // one reply per request, ids echoed
  EXPECT_GE(ok, 1);
  EXPECT_GE(busy, 1);
  ExpectServesAndUnchanged();
}

}  // namespace
}  // namespace signet::e2e
