// Server and Connection in-process: a Server on a temp-dir Unix socket, its
// event loop on a thread of this test, a real Scheduler, and clients in the
// same process (the C++ client library, or raw frames). What used to need a
// forked signetd: framing over a socket, pipelining, the error replies that
// keep a connection serving and the one that closes it, GetStats on the
// event loop, and Shutdown.
#include "daemon/server.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <asio.hpp>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "core/hsm_fixture_test_util.h"
#include "core/scheduler.h"
#include "daemon/dispatch_fixture_test_util.h"
#include "proto/framing.h"
#include "proto/shm_ring.h"
#include "signet/client.hpp"

namespace signet::daemon {
namespace {

// RawClient: a blocking Unix-socket client that speaks frames, for bytes the
// client library would never send.
class RawClient {
 public:
  explicit RawClient(const std::string& path) {
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~RawClient() { close(fd_); }
  bool connected() const { return connected_; }

  void Send(std::span<const std::uint8_t> bytes) {
    ASSERT_EQ(write(fd_, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  void SendFrame(std::span<const std::uint8_t> payload) {
    auto header = proto::EncodeFrameHeader(static_cast<std::uint32_t>(payload.size()));
    std::vector<std::uint8_t> frame(header.size() + payload.size());
    std::copy(header.begin(), header.end(), frame.begin());
    std::copy(payload.begin(), payload.end(), frame.begin() + header.size());
    Send(frame);
  }
  // ReadFrame: the next reply payload; nullopt when the server closed.
  std::optional<std::vector<std::uint8_t>> ReadFrame() {
    std::span<const std::uint8_t> payload;
    while (reader_.Next(&payload) != proto::FrameReader::State::kFrame) {
      std::span<std::uint8_t> space = reader_.Prepare(65536);
      ssize_t n = read(fd_, space.data(), space.size());
      reader_.Commit(n > 0 ? static_cast<std::size_t>(n) : 0);
      if (n <= 0) return std::nullopt;
    }
    return std::vector<std::uint8_t>(payload.begin(), payload.end());
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  proto::FrameReader reader_;
};

std::vector<std::uint8_t> GetInfoPayload(std::uint64_t id, std::uint16_t version) {
  fb::FlatBufferBuilder fbb;
  fbb.Finish(wire::CreateRequest(fbb, id, version, RequestBody::GetInfoRequest,
                                 wire::CreateGetInfoRequest(fbb).Union()));
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

const wire::Response* Parse(const std::optional<std::vector<std::uint8_t>>& payload) {
  if (!payload) return nullptr;
  fb::Verifier verifier(payload->data(), payload->size());
  if (!verifier.VerifyBuffer<wire::Response>(nullptr)) return nullptr;
  return fb::GetRoot<wire::Response>(payload->data());
}

class ServerTest : public core::HsmFixture {
 protected:
  void SetUp() override {
    core::HsmFixture::SetUp();
    scheduler_ =
        std::make_unique<core::Scheduler>(core::Scheduler::Options{2, 4096}, &hsm_->counters());
    ServerOptions options;
    options.socket_path = dir_ / "signetd.sock";
    server_ = std::make_unique<Server>(io_, *hsm_, *scheduler_, options);
    Status started = server_->Start();
    ASSERT_TRUE(started.ok()) << started.error().message;
    loop_ = std::thread([this] { io_.run(); });
  }

  void TearDown() override {
    if (server_) {
      asio::post(io_, [this] { server_->Shutdown([] {}); });
      loop_.join();
      scheduler_->WaitIdle();
      server_.reset();
      scheduler_.reset();
    }
    core::HsmFixture::TearDown();
  }

  std::string socket_path() const { return (dir_ / "signetd.sock").string(); }

  std::unique_ptr<client::Client> Connect() {
    client::ConnectOptions options;
    options.address = socket_path();
    options.timeout = std::chrono::seconds(30);  // a failure, never a hang
    auto connected = client::Client::Connect(options);
    EXPECT_TRUE(connected.ok()) << connected.error().message;
    return connected.ok() ? std::move(*connected) : nullptr;
  }

  asio::io_context io_{1};
  std::unique_ptr<core::Scheduler> scheduler_;
  std::unique_ptr<Server> server_;
  std::thread loop_;
};

// The whole path: client library -> socket -> Connection -> Scheduler ->
// Dispatch -> Hsm and back, with many requests in flight on one connection.
TEST_F(ServerTest, PipelinedRequestsFromTheClientLibraryAreAnsweredById) {
  auto client = Connect();
  ASSERT_NE(client, nullptr);
  auto session = client->OpenSession(0, core::kRw);
  ASSERT_TRUE(session.ok()) << session.error().message;
  ASSERT_TRUE(client->Login(*session, CKU_USER, AsBytes(core::kUserPin)).ok());
  std::vector<client::Pending<client::Bytes>> pending;
  for (std::size_t i = 1; i <= 100; ++i) {
    auto sent = client->SendGenerateRandom(*session, i);
    ASSERT_TRUE(sent.ok());
    pending.push_back(*sent);
  }
  for (std::size_t i = pending.size(); i-- > 0;) {  // waited in reverse
    auto data = client->Wait(pending[i]);
    ASSERT_TRUE(data.ok()) << i << ": " << data.error().message;
    EXPECT_EQ(data->size(), i + 1);
  }
  auto stats = client->GetStats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->connections, 1u);
  EXPECT_EQ(stats->sessions, 1u);
  // One request per ring slot went through the shared-memory ring (drain
  // tasks, not counted one by one in `completed`), the rest as frames.
  EXPECT_GE(stats->ring_requests, proto::ring::kSlotCount);
  EXPECT_GE(stats->completed + stats->ring_requests, 100u);
  EXPECT_EQ(stats->ring_connections, 1u);
  EXPECT_EQ(stats->workers, 2u);
}

// The connection-level half of the e2e BadInputTest.UnknownVersion and
// BadInputTest.UnknownOperation: error replies keep the connection serving.
TEST_F(ServerTest, ErrorRepliesKeepTheConnectionServing) {
  RawClient raw(socket_path());
  ASSERT_TRUE(raw.connected());
  std::vector<std::uint8_t> garbage(64, 0xa5);
  raw.SendFrame(garbage);
  const wire::Response* malformed = nullptr;
  auto first = raw.ReadFrame();
  malformed = Parse(first);
  ASSERT_NE(malformed, nullptr);
  EXPECT_EQ(malformed->id(), 0u);
  EXPECT_EQ(malformed->rv(), SIGNET_RV_MALFORMED_MESSAGE);

  raw.SendFrame(GetInfoPayload(11, 99));
  auto second = raw.ReadFrame();
  const wire::Response* version = Parse(second);
  ASSERT_NE(version, nullptr);
  EXPECT_EQ(version->id(), 11u);
  EXPECT_EQ(version->rv(), SIGNET_RV_UNSUPPORTED_VERSION);

  raw.SendFrame(GetInfoPayload(12, proto::kProtocolVersion));
  auto third = raw.ReadFrame();
  const wire::Response* info = Parse(third);
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->id(), 12u);
  EXPECT_EQ(info->rv(), CKR_OK);
  ASSERT_NE(info->body_as_GetInfoResponse(), nullptr);
}

// A length over the limit cannot be skipped: one error reply, then close.
TEST_F(ServerTest, OversizedFrameIsAnsweredThenTheConnectionCloses) {
  RawClient raw(socket_path());
  ASSERT_TRUE(raw.connected());
  std::vector<std::uint8_t> header = {0xff, 0xff, 0xff, 0xff, 1, 2, 3};
  raw.Send(header);
  auto reply = raw.ReadFrame();
  const wire::Response* too_large = Parse(reply);
  ASSERT_NE(too_large, nullptr);
  EXPECT_EQ(too_large->id(), 0u);
  EXPECT_EQ(too_large->rv(), SIGNET_RV_FRAME_TOO_LARGE);
  EXPECT_FALSE(raw.ReadFrame().has_value()) << "the connection stayed open";
  // The server still serves others.
  auto client = Connect();
  ASSERT_NE(client, nullptr);
  EXPECT_TRUE(client->GetInfo().ok());
}

}  // namespace
}  // namespace signet::daemon
