// Client framing and reply routing, in-process: a Client connects to a Unix
// socket in a temp dir whose other end is a FakePeer played by the test. The
// peer reads the client's frames with the project's FrameReader and writes
// crafted FlatBuffers replies (out of order, split, truncated, oversized,
// for unknown ids), so every routing path runs without a daemon.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "proto/framing.h"
#include "proto/signet_generated.h"
#include "signet/client.hpp"

namespace signet::client {
namespace {

namespace fb = flatbuffers;

// ReceivedRequest: one request frame the peer read, verified.
struct ReceivedRequest {
  std::vector<std::uint8_t> payload;
  const wire::Request& get() const { return *fb::GetRoot<wire::Request>(payload.data()); }
};

// BodyFn builds a reply body into the builder; returns its type and offset.
using BodyFn =
    std::function<std::pair<wire::ResponseBody, fb::Offset<void>>(fb::FlatBufferBuilder&)>;

// ReplyPayload: a wire::Response (unframed).
std::vector<std::uint8_t> ReplyPayload(std::uint64_t id, CK_RV rv, std::string_view message = {},
                                       const BodyFn& body = nullptr) {
  fb::FlatBufferBuilder fbb;
  auto type = wire::ResponseBody::NONE;
  fb::Offset<void> offset;
  if (body) std::tie(type, offset) = body(fbb);
  auto text = message.empty() ? fb::Offset<fb::String>() : fbb.CreateString(message);
  fbb.Finish(wire::CreateResponse(fbb, id, rv, text, type, offset));
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

std::vector<std::uint8_t> Framed(std::span<const std::uint8_t> payload) {
  auto header = proto::EncodeFrameHeader(static_cast<std::uint32_t>(payload.size()));
  std::vector<std::uint8_t> frame(header.size() + payload.size());
  std::copy(header.begin(), header.end(), frame.begin());
  std::copy(payload.begin(), payload.end(), frame.begin() + header.size());
  return frame;
}

// DataReply: a framed CKR_OK reply carrying `data` in a DataResponse.
std::vector<std::uint8_t> DataReply(std::uint64_t id, const Bytes& data) {
  return Framed(ReplyPayload(id, CKR_OK, {}, [&](fb::FlatBufferBuilder& fbb) {
    auto body = wire::CreateDataResponse(fbb, fbb.CreateVector(data));
    return std::make_pair(wire::ResponseBody::DataResponse, body.Union());
  }));
}

// FakePeer: the daemon's end of one connection, driven by the test.
class FakePeer {
 public:
  explicit FakePeer(int fd) : fd_(fd) {}
  ~FakePeer() { Close(); }

  // Next reads the next request frame; nullopt at end of stream. A frame
  // that is not a verified wire::Request fails the test.
  std::optional<ReceivedRequest> Next() { return Read(/*block=*/true); }

  // TryNext: Next, but nullopt at once when no whole frame can be read
  // without waiting.
  std::optional<ReceivedRequest> TryNext() { return Read(/*block=*/false); }

  // Write sends raw bytes (whole frames, parts of frames, garbage).
  void Write(std::span<const std::uint8_t> bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = write(fd_, bytes.data() + done, bytes.size() - done);
      ASSERT_GT(n, 0);
      done += static_cast<std::size_t>(n);
    }
  }

  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  std::optional<ReceivedRequest> Read(bool block) {
    std::span<const std::uint8_t> payload;
    for (;;) {
      switch (reader_.Next(&payload)) {
        case proto::FrameReader::State::kFrame: {
          fb::Verifier verifier(payload.data(), payload.size());
          EXPECT_TRUE(verifier.VerifyBuffer<wire::Request>(nullptr));
          return ReceivedRequest{{payload.begin(), payload.end()}};
        }
        case proto::FrameReader::State::kTooLarge:
          ADD_FAILURE() << "client sent a frame over the limit";
          return std::nullopt;
        case proto::FrameReader::State::kNeedMore:
          break;
      }
      pollfd pfd{fd_, POLLIN, 0};
      if (!block && poll(&pfd, 1, 0) != 1) return std::nullopt;
      std::span<std::uint8_t> space = reader_.Prepare(65536);
      ssize_t n = read(fd_, space.data(), space.size());
      reader_.Commit(n > 0 ? static_cast<std::size_t>(n) : 0);
      if (n <= 0) return std::nullopt;
    }
  }

  int fd_;
  proto::FrameReader reader_;
};

// Listener: a listening Unix socket in a fresh temp dir.
class Listener {
 public:
  Listener() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "signet-client-XXXXXX").string();
    dir_ = mkdtemp(pattern.data()) ? pattern : "";
    path_ = dir_ + "/fake.sock";
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path_.c_str());
    ok_ = !dir_.empty() && fd_ >= 0 &&
          bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && listen(fd_, 4) == 0;
  }
  ~Listener() {
    if (fd_ >= 0) close(fd_);
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  bool ok() const { return ok_; }
  const std::string& path() const { return path_; }
  int Accept() { return accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC); }

 private:
  std::string dir_;
  std::string path_;
  int fd_ = -1;
  bool ok_ = false;
};

class ClientRoutingTest : public ::testing::Test {
 protected:
  // The timeout turns a reply that never comes into a failure, not a hang.
  void SetUp() override { Connect(std::chrono::seconds(30)); }

  void Connect(std::chrono::milliseconds timeout) {
    ASSERT_TRUE(listener_.ok());
    ConnectOptions options;
    options.address = listener_.path();
    options.timeout = timeout;
    options.shared_memory = false;  // the peer speaks the socket protocol alone
    auto client = Client::Connect(options);
    ASSERT_TRUE(client.ok()) << client.error().message;
    client_ = std::move(*client);
    int fd = listener_.Accept();
    ASSERT_GE(fd, 0);
    peer_ = std::make_unique<FakePeer>(fd);
  }

  Pending<Bytes> SendRandom(std::size_t length) {
    auto pending = client_->SendGenerateRandom(/*session=*/7, length);
    EXPECT_TRUE(pending.ok());
    return pending.ok() ? *pending : Pending<Bytes>{};
  }

  ReceivedRequest NextRequest() {
    std::optional<ReceivedRequest> request = peer_->Next();
    EXPECT_TRUE(request.has_value()) << "the client sent no (more) requests";
    if (request) return std::move(*request);
    fb::FlatBufferBuilder fbb;  // a stand-in, so the test fails without a crash
    fbb.Finish(wire::CreateRequest(fbb, 0, 0, wire::RequestBody::GetStatsRequest,
                                   wire::CreateGetStatsRequest(fbb).Union()));
    return ReceivedRequest{{fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()}};
  }

  Listener listener_;
  std::unique_ptr<Client> client_;
  std::unique_ptr<FakePeer> peer_;
};

// The request on the wire: the project's framing, the protocol version, a
// fresh non-zero id per request, and the arguments in the request table.
TEST_F(ClientRoutingTest, RequestsAreFramedWithVersionAndDistinctIds) {
  auto first = client_->SendGenerateRandom(/*session=*/42, 16);
  auto second = client_->SendLogin(/*session=*/43, CKU_USER, Bytes{'1', '2', '3', '4'});
  ASSERT_TRUE(first.ok() && second.ok());
  ASSERT_TRUE(client_->Flush().ok());

  ReceivedRequest a = NextRequest();
  ReceivedRequest b = NextRequest();
  EXPECT_EQ(a.get().version(), proto::kProtocolVersion);
  EXPECT_EQ(a.get().id(), first->id);
  EXPECT_EQ(b.get().id(), second->id);
  EXPECT_NE(first->id, 0u);
  EXPECT_NE(first->id, second->id);
  ASSERT_EQ(a.get().body_type(), wire::RequestBody::GenerateRandomRequest);
  EXPECT_EQ(a.get().body_as_GenerateRandomRequest()->session(), 42u);
  EXPECT_EQ(a.get().body_as_GenerateRandomRequest()->length(), 16u);
  ASSERT_EQ(b.get().body_type(), wire::RequestBody::LoginRequest);
  const wire::LoginRequest* login = b.get().body_as_LoginRequest();
  EXPECT_EQ(login->session(), 43u);
  EXPECT_EQ(login->user_type(), CKU_USER);
  ASSERT_NE(login->pin(), nullptr);
  EXPECT_EQ(std::string(login->pin()->begin(), login->pin()->end()), "1234");
}

// Mechanism parameters travel in their typed tables.
TEST_F(ClientRoutingTest, SignEncodesKeyMechanismAndPssParameters) {
  Mechanism mechanism{CKM_SHA384_RSA_PKCS_PSS, PssParams{CKM_SHA384, CKG_MGF1_SHA384, 48}, {}, {}};
  auto pending = client_->SendSign(5, 9, mechanism, Bytes{1, 2, 3});
  ASSERT_TRUE(pending.ok());
  ASSERT_TRUE(client_->Flush().ok());
  ReceivedRequest request = NextRequest();
  ASSERT_EQ(request.get().body_type(), wire::RequestBody::SignRequest);
  const wire::SignRequest* sign = request.get().body_as_SignRequest();
  EXPECT_EQ(sign->session(), 5u);
  EXPECT_EQ(sign->key(), 9u);
  ASSERT_NE(sign->mechanism(), nullptr);
  EXPECT_EQ(sign->mechanism()->type(), CKM_SHA384_RSA_PKCS_PSS);
  ASSERT_NE(sign->mechanism()->pss(), nullptr);
  EXPECT_EQ(sign->mechanism()->pss()->hash_alg(), CKM_SHA384);
  EXPECT_EQ(sign->mechanism()->pss()->mgf(), CKG_MGF1_SHA384);
  EXPECT_EQ(sign->mechanism()->pss()->salt_len(), 48u);
  EXPECT_EQ(sign->mechanism()->gcm(), nullptr);
  ASSERT_NE(sign->data(), nullptr);
  EXPECT_EQ(Bytes(sign->data()->begin(), sign->data()->end()), (Bytes{1, 2, 3}));
}

// Replies come back in any order; each Wait gets the reply with its id, and
// replies read while waiting for another are kept for their own Wait.
TEST_F(ClientRoutingTest, OutOfOrderRepliesReachTheirOwnWait) {
  std::vector<Pending<Bytes>> pending;
  for (std::size_t i = 1; i <= 3; ++i) pending.push_back(SendRandom(i));
  ASSERT_TRUE(client_->Flush().ok());
  std::vector<ReceivedRequest> requests;
  for (int i = 0; i < 3; ++i) requests.push_back(NextRequest());
  for (auto it = requests.rbegin(); it != requests.rend(); ++it) {
    std::uint64_t length = it->get().body_as_GenerateRandomRequest()->length();
    peer_->Write(DataReply(it->get().id(), Bytes(length, static_cast<std::uint8_t>(length))));
  }
  // Waiting for the second reads up to its reply; the others are filed for
  // their own Wait, in whatever order those come.
  for (std::size_t i : {1, 2, 0}) {
    Result<Bytes> data = client_->Wait(pending[i]);
    ASSERT_TRUE(data.ok()) << data.error().message;
    EXPECT_EQ(*data, Bytes(i + 1, static_cast<std::uint8_t>(i + 1)));
  }
  EXPECT_EQ(client_->in_flight(), 0u);
}

// A reply split into single bytes (and two replies in one write) is
// reassembled by the client's frame reader.
TEST_F(ClientRoutingTest, RepliesSplitAcrossReadsAndJoinedInOneAreReassembled) {
  Pending<Bytes> a = SendRandom(3);
  Pending<Bytes> b = SendRandom(4);
  ASSERT_TRUE(client_->Flush().ok());
  std::uint64_t id_a = NextRequest().get().id();
  std::uint64_t id_b = NextRequest().get().id();
  std::vector<std::uint8_t> both = DataReply(id_a, Bytes{0xaa, 0xbb, 0xcc});
  std::vector<std::uint8_t> second = DataReply(id_b, Bytes{1, 2, 3, 4});
  both.insert(both.end(), second.begin(), second.end());
  std::thread writer([&] {
    for (std::uint8_t byte : both) peer_->Write(std::span(&byte, 1));
  });
  Result<Bytes> got_b = client_->Wait(b);
  Result<Bytes> got_a = client_->Wait(a);
  writer.join();
  ASSERT_TRUE(got_a.ok() && got_b.ok());
  EXPECT_EQ(*got_a, (Bytes{0xaa, 0xbb, 0xcc}));
  EXPECT_EQ(*got_b, (Bytes{1, 2, 3, 4}));
}

// Many threads share one Client: each gets exactly its own reply, however
// the peer orders and batches them.
TEST_F(ClientRoutingTest, ConcurrentCallersEachGetTheirOwnReply) {
  constexpr int kThreads = 8;
  constexpr int kCallsPerThread = 25;
  constexpr int kTotal = kThreads * kCallsPerThread;
  std::thread peer([this] {
    std::mt19937 shuffle(12345);
    int answered = 0;
    while (answered < kTotal) {
      // One request (waiting for it), then whatever else is already here, up
      // to 5: answered in a shuffled order, in one write.
      std::optional<ReceivedRequest> first = peer_->Next();
      if (!first) return;
      std::vector<ReceivedRequest> batch;
      batch.push_back(std::move(*first));
      while (batch.size() < 5) {
        std::optional<ReceivedRequest> more = peer_->TryNext();
        if (!more) break;
        batch.push_back(std::move(*more));
      }
      std::shuffle(batch.begin(), batch.end(), shuffle);
      std::vector<std::uint8_t> out;
      for (const ReceivedRequest& r : batch) {
        std::uint64_t length = r.get().body_as_GenerateRandomRequest()->length();
        std::vector<std::uint8_t> frame =
            DataReply(r.get().id(), Bytes(length, static_cast<std::uint8_t>(length)));
        out.insert(out.end(), frame.begin(), frame.end());
      }
      peer_->Write(out);
      answered += static_cast<int>(batch.size());
    }
  });
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> callers;
  for (int t = 0; t < kThreads; ++t) {
    callers.emplace_back([this, t, &wrong] {
      for (int i = 0; i < kCallsPerThread; ++i) {
        std::size_t length = static_cast<std::size_t>(t * kCallsPerThread + i + 1);
        Result<Bytes> data = client_->GenerateRandom(7, length);
        if (!data.ok() || *data != Bytes(length, static_cast<std::uint8_t>(length))) ++wrong[t];
      }
    });
  }
  for (std::thread& caller : callers) caller.join();
  peer.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
  EXPECT_EQ(client_->in_flight(), 0u);
}

// A reply for an id the client never sent breaks the connection: no later
// reply could be trusted to be routed right.
TEST_F(ClientRoutingTest, ReplyForAnUnknownIdBreaksTheConnection) {
  Pending<Bytes> pending = SendRandom(1);
  ASSERT_TRUE(client_->Flush().ok());
  std::uint64_t id = NextRequest().get().id();
  peer_->Write(DataReply(id + 1000, Bytes{1}));
  Result<Bytes> data = client_->Wait(pending);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().code, CKR_DEVICE_ERROR);
  EXPECT_NE(data.error().message.find("unknown request id " + std::to_string(id + 1000)),
            std::string::npos)
      << data.error().message;
  // Every later call fails the same way, without touching the socket.
  auto later = client_->SendGenerateRandom(7, 1);
  ASSERT_FALSE(later.ok());
  EXPECT_EQ(later.error().code, CKR_DEVICE_ERROR);
}

// A reply with id 0 is the daemon saying it could not read a frame: its
// code and message reach the caller, and the connection is done.
TEST_F(ClientRoutingTest, ReplyWithIdZeroFailsEveryWaiterWithItsCode) {
  Pending<Bytes> a = SendRandom(1);
  Pending<Bytes> b = SendRandom(2);
  ASSERT_TRUE(client_->Flush().ok());
  peer_->Write(
      Framed(ReplyPayload(0, SIGNET_RV_MALFORMED_MESSAGE, "frame is not a valid Request")));
  for (const Pending<Bytes>* pending : {&a, &b}) {
    Result<Bytes> data = client_->Wait(*pending);
    ASSERT_FALSE(data.ok());
    EXPECT_EQ(data.error().code, SIGNET_RV_MALFORMED_MESSAGE);
    EXPECT_EQ(data.error().message, "frame is not a valid Request");
  }
}

// An error reply is that request's error only; the connection lives on.
TEST_F(ClientRoutingTest, ErrorReplyFailsOnlyItsRequest) {
  Pending<Bytes> a = SendRandom(1);
  Pending<Bytes> b = SendRandom(2);
  ASSERT_TRUE(client_->Flush().ok());
  std::uint64_t id_a = NextRequest().get().id();
  std::uint64_t id_b = NextRequest().get().id();
  peer_->Write(Framed(ReplyPayload(id_a, CKR_USER_NOT_LOGGED_IN, "log in first")));
  peer_->Write(Framed(ReplyPayload(id_b, CKR_SESSION_HANDLE_INVALID)));
  Result<Bytes> got_a = client_->Wait(a);
  ASSERT_FALSE(got_a.ok());
  EXPECT_EQ(got_a.error().code, CKR_USER_NOT_LOGGED_IN);
  EXPECT_EQ(got_a.error().message, "log in first");
  Result<Bytes> got_b = client_->Wait(b);
  ASSERT_FALSE(got_b.ok());
  EXPECT_EQ(got_b.error().code, CKR_SESSION_HANDLE_INVALID);
  EXPECT_FALSE(got_b.error().message.empty());  // a default text, never blank
  // Still usable.
  Pending<Bytes> c = SendRandom(1);
  ASSERT_TRUE(client_->Flush().ok());
  peer_->Write(DataReply(NextRequest().get().id(), Bytes{9}));
  Result<Bytes> got_c = client_->Wait(c);
  ASSERT_TRUE(got_c.ok()) << got_c.error().message;
  EXPECT_EQ(*got_c, Bytes{9});
}

// CKR_OK without the body the operation needs is a daemon fault, reported
// as such rather than decoded from nothing.
TEST_F(ClientRoutingTest, ReplyWithTheWrongBodyIsADeviceError) {
  auto pending = client_->SendOpenSession(0, CKF_SERIAL_SESSION);
  ASSERT_TRUE(pending.ok());
  ASSERT_TRUE(client_->Flush().ok());
  peer_->Write(DataReply(NextRequest().get().id(), Bytes{1}));  // DataResponse, not Session
  Result<Handle> session = client_->Wait(*pending);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.error().code, CKR_DEVICE_ERROR);
  EXPECT_NE(session.error().message.find("lacks the expected body"), std::string::npos);
}

TEST_F(ClientRoutingTest, WaitingTwiceForOneTicketIsRefused) {
  Pending<Bytes> pending = SendRandom(1);
  ASSERT_TRUE(client_->Flush().ok());
  peer_->Write(DataReply(NextRequest().get().id(), Bytes{5}));
  ASSERT_TRUE(client_->Wait(pending).ok());
  Result<Bytes> again = client_->Wait(pending);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, CKR_ARGUMENTS_BAD);
  EXPECT_NE(again.error().message.find("waited twice"), std::string::npos);
}

// A frame header declaring more than the 1 MiB limit is refused before
// anything is buffered.
TEST_F(ClientRoutingTest, OversizedReplyFrameIsADeviceError) {
  Pending<Bytes> pending = SendRandom(1);
  ASSERT_TRUE(client_->Flush().ok());
  auto header =
      proto::EncodeFrameHeader(static_cast<std::uint32_t>(proto::kDefaultMaxFrameSize + 1));
  peer_->Write(header);
  Result<Bytes> data = client_->Wait(pending);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().code, CKR_DEVICE_ERROR);
  EXPECT_NE(data.error().message.find("over the size limit"), std::string::npos)
      << data.error().message;
}

TEST_F(ClientRoutingTest, MalformedReplyPayloadIsADeviceError) {
  Pending<Bytes> pending = SendRandom(1);
  ASSERT_TRUE(client_->Flush().ok());
  std::vector<std::uint8_t> garbage(32, 0xff);
  peer_->Write(Framed(garbage));
  Result<Bytes> data = client_->Wait(pending);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().code, CKR_DEVICE_ERROR);
  EXPECT_NE(data.error().message.find("malformed reply"), std::string::npos);
}

// A reply cut off by the peer closing: the waiter learns the connection is
// gone (CKR_DEVICE_REMOVED) instead of hanging or decoding half a frame.
TEST_F(ClientRoutingTest, TruncatedReplyThenCloseIsDeviceRemoved) {
  Pending<Bytes> pending = SendRandom(8);
  ASSERT_TRUE(client_->Flush().ok());
  std::vector<std::uint8_t> frame = DataReply(NextRequest().get().id(), Bytes(8, 1));
  frame.resize(frame.size() - 5);
  peer_->Write(frame);
  peer_->Close();
  Result<Bytes> data = client_->Wait(pending);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().code, CKR_DEVICE_REMOVED);
  EXPECT_NE(data.error().message.find("closed by signetd"), std::string::npos)
      << data.error().message;
}

// The peer answers one request and hangs up: that reply is still delivered,
// the other waiter and every later call get CKR_DEVICE_REMOVED.
TEST_F(ClientRoutingTest, ClosedPeerDeliversWhatItSentThenFailsClearly) {
  Pending<Bytes> answered = SendRandom(1);
  Pending<Bytes> lost = SendRandom(2);
  ASSERT_TRUE(client_->Flush().ok());
  peer_->Write(DataReply(NextRequest().get().id(), Bytes{7}));
  peer_->Close();
  Result<Bytes> first = client_->Wait(answered);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(*first, Bytes{7});
  Result<Bytes> second = client_->Wait(lost);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, CKR_DEVICE_REMOVED);
  Result<Bytes> later = client_->GenerateRandom(7, 1);
  ASSERT_FALSE(later.ok());
  EXPECT_EQ(later.error().code, CKR_DEVICE_REMOVED);
}

// A request over the frame limit is refused locally with CKR_DATA_LEN_RANGE:
// nothing is written and the connection stays usable.
TEST_F(ClientRoutingTest, RequestOverTheFrameLimitIsRefusedBeforeSending) {
  Bytes huge(proto::kDefaultMaxFrameSize + 1, 0x55);
  auto refused = client_->SendSign(1, 2, Mechanism{CKM_EDDSA}, huge);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, CKR_DATA_LEN_RANGE);
  Pending<Bytes> pending = SendRandom(1);
  ASSERT_TRUE(client_->Flush().ok());
  ReceivedRequest next = NextRequest();  // the big one never reached the peer
  EXPECT_EQ(next.get().body_type(), wire::RequestBody::GenerateRandomRequest);
  peer_->Write(DataReply(next.get().id(), Bytes{3}));
  ASSERT_TRUE(client_->Wait(pending).ok());
}

// A partial GetAttributeValue answer carries its body with a non-OK rv.
TEST_F(ClientRoutingTest, AttributeReplyWithSensitiveEntryKeepsItsBody) {
  std::array<CK_ATTRIBUTE_TYPE, 2> types = {CKA_LABEL, CKA_VALUE};
  auto pending = client_->SendGetAttributeValue(1, 2, types);
  ASSERT_TRUE(pending.ok());
  ASSERT_TRUE(client_->Flush().ok());
  std::uint64_t id = NextRequest().get().id();
  peer_->Write(Framed(ReplyPayload(id, CKR_ATTRIBUTE_SENSITIVE, {}, [](fb::FlatBufferBuilder& fbb) {
    std::vector<fb::Offset<wire::AttributeResult>> values = {
        wire::CreateAttributeResult(fbb, CKA_LABEL, CKR_OK, fbb.CreateVector(Bytes{'k'})),
        wire::CreateAttributeResult(fbb, CKA_VALUE, CKR_ATTRIBUTE_SENSITIVE)};
    auto body = wire::CreateGetAttributeValueResponse(fbb, fbb.CreateVector(values));
    return std::make_pair(wire::ResponseBody::GetAttributeValueResponse, body.Union());
  })));
  Result<std::vector<AttributeValue>> values = client_->Wait(*pending);
  ASSERT_TRUE(values.ok()) << values.error().message;
  ASSERT_EQ(values->size(), 2u);
  EXPECT_EQ((*values)[0].rv, CKR_OK);
  EXPECT_EQ((*values)[0].value, Bytes{'k'});
  EXPECT_EQ((*values)[1].rv, CKR_ATTRIBUTE_SENSITIVE);
  EXPECT_TRUE((*values)[1].value.empty());
}

// With a timeout, a daemon that never answers is a clear error, not a hang.
TEST(ClientTimeout, SilentPeerTimesOut) {
  Listener listener;
  ASSERT_TRUE(listener.ok());
  ConnectOptions options;
  options.address = listener.path();
  options.timeout = std::chrono::milliseconds(50);
  options.shared_memory = false;
  auto client = Client::Connect(options);
  ASSERT_TRUE(client.ok());
  int fd = listener.Accept();
  ASSERT_GE(fd, 0);
  FakePeer peer(fd);  // reads nothing, answers nothing
  Result<Bytes> data = (*client)->GenerateRandom(1, 1);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().code, CKR_DEVICE_ERROR);
  EXPECT_NE(data.error().message.find("timed out"), std::string::npos) << data.error().message;
}

}  // namespace
}  // namespace signet::client
