// The shared-memory ring against a real signetd, with hostile clients
// (docs/PROTOCOL.md "The shared-memory ring"): one that scribbles on its
// ring, one that never reads its replies, one that dies mid-request, and
// one whose slot holds no valid request. Each time an honest client signs
// on another connection meanwhile, and every signature it gets verifies.
// Also: a daemon started --no-shared-memory serves ring-asking clients on
// the socket alone.
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "key_helpers.h"
#include "proto/shm_ring.h"
#include "raw_connection.h"

namespace signet::e2e {
namespace {

namespace ring = proto::ring;
using namespace std::chrono_literals;

const crypto::SignParams kP256Raw{.scheme = crypto::SignScheme::kEcdsa,
                                  .digest = crypto::DigestAlg::kSha256,
                                  .ecdsa_format = crypto::EcdsaFormat::kRaw};

// RequestPayload: a finished Request around `body` (no frame header).
template <typename MakeBody>
std::vector<std::uint8_t> RequestPayload(std::uint64_t id, wire::RequestBody type, MakeBody make) {
  flatbuffers::FlatBufferBuilder fbb;
  auto body = make(fbb);
  fbb.Finish(wire::CreateRequest(fbb, id, proto::kProtocolVersion, type, body.Union()));
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

std::vector<std::uint8_t> GetInfoPayload(std::uint64_t id) {
  return RequestPayload(id, wire::RequestBody::GetInfoRequest,
                        [](auto& fbb) { return wire::CreateGetInfoRequest(fbb); });
}

// AttachRingRaw does the AttachRing exchange by hand on `conn` (so the test
// holds the region itself, to scribble on) and maps the memfd that rides on
// the reply; nullopt (with a test failure) when it does not come.
std::optional<ring::Region> AttachRingRaw(RawConnection& conn) {
  auto request = RequestPayload(1, wire::RequestBody::AttachRingRequest,
                                [](auto& fbb) { return wire::CreateAttachRingRequest(fbb); });
  if (!conn.SendFrame(request)) return std::nullopt;
  std::vector<std::uint8_t> bytes;
  int memfd = -1;
  while (bytes.size() < proto::kFrameHeaderSize ||
         bytes.size() <
             proto::kFrameHeaderSize +
                 proto::DecodeFrameHeader(std::span<const std::uint8_t, proto::kFrameHeaderSize>(
                     bytes.data(), proto::kFrameHeaderSize))) {
    pollfd p{conn.fd(), POLLIN, 0};
    if (::poll(&p, 1, 10000) != 1) break;
    std::uint8_t buffer[4096];
    iovec data{buffer, sizeof buffer};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    ssize_t n = ::recvmsg(conn.fd(), &message, MSG_CMSG_CLOEXEC);
    if (n <= 0) break;
    if (cmsghdr* c = CMSG_FIRSTHDR(&message); c && c->cmsg_type == SCM_RIGHTS) {
      std::memcpy(&memfd, CMSG_DATA(c), sizeof(int));
    }
    bytes.insert(bytes.end(), buffer, buffer + n);
  }
  if (memfd < 0) {
    ADD_FAILURE() << "no memfd came with the AttachRing reply";
    return std::nullopt;
  }
  Result<ring::Region> region = ring::Region::Map(memfd);
  ::close(memfd);
  if (!region.ok()) {
    ADD_FAILURE() << region.error().message;
    return std::nullopt;
  }
  return std::move(region).value();
}

// kDoorbell: the empty frame that makes the daemon look at the ring.
const std::vector<std::uint8_t> kDoorbell(proto::kFrameHeaderSize, 0);

// HonestSigner signs on its own connection (through its ring) until
// stopped, verifying every signature in-process.
class HonestSigner {
 public:
  explicit HonestSigner(DaemonTest* test) {
    auto user = test->OpenUserSession();
    EXPECT_TRUE(user.ok()) << user.error().message;
    if (!user.ok()) return;
    user_ = std::move(*user);
    auto pair = GenerateKeyPair(user_, "ec:p256", "honest", /*token=*/false);
    EXPECT_TRUE(pair.ok()) << pair.error().message;
    if (!pair.ok()) return;
    key_ = pair->private_key;
    auto public_key = ReadPublicKey(user_, pair->public_key);
    EXPECT_TRUE(public_key.ok());
    if (!public_key.ok()) return;
    public_key_ = std::move(*public_key);
    thread_ = std::thread([this] { Run(); });
  }
  // Stop ends the loop; the number of signatures made and verified.
  int Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    EXPECT_EQ(failures_, 0) << last_failure_;
    return verified_;
  }

 private:
  void Run() {
    for (int n = 0; !stop_ || n < 20; ++n) {
      client::Bytes message = ToBytes("honest message " + std::to_string(n));
      auto signature =
          user_.client->Sign(user_.session, key_, client::Mechanism{CKM_ECDSA_SHA256}, message);
      if (!signature.ok()) {
        ++failures_;
        last_failure_ = signature.error().message;
        return;
      }
      if (crypto::Verify(*public_key_, kP256Raw, message, *signature).ok()) {
        ++verified_;
      } else {
        ++failures_;
        last_failure_ = "signature " + std::to_string(n) + " does not verify";
      }
    }
  }

  UserSession user_;
  client::Handle key_ = 0;
  std::optional<crypto::PublicKey> public_key_;
  std::atomic<bool> stop_{false};
  int verified_ = 0;
  int failures_ = 0;
  std::string last_failure_;
  std::thread thread_;
};

// Scribble: one way a hostile client breaks its ring's rules.
struct Scribble {
  const char* name;
  void (*apply)(ring::Region& region);
};

const Scribble kScribbles[] = {
    {"TailFarAhead", [](ring::Region& r) { r.header().submit_tail.store(1000); }},
    {"SlotNumberOutOfRange",
     [](ring::Region& r) {
       r.header().queue[0].store(ring::kSlotCount + 7);
       r.header().submit_tail.store(1);
     }},
    {"QueuedSlotNotSubmitted",
     [](ring::Region& r) {
       r.header().queue[0].store(5);  // its state is kFree
       r.header().submit_tail.store(1);
     }},
    {"RequestLengthPastTheSlot",
     [](ring::Region& r) {
       r.slot(0).request_length.store(static_cast<std::uint32_t>(ring::kSlotCapacity) + 1);
       r.slot(0).state.store(ring::kSubmitted);
       r.header().queue[0].store(0);
       r.header().submit_tail.store(1);
     }},
};

class RingTest : public DaemonTest {};

class RingScribbleTest : public RingTest, public ::testing::WithParamInterface<Scribble> {};

TEST_P(RingScribbleTest, ClosesOnlyTheScribblersConnection) {
  HonestSigner honest(this);
  RawConnection hostile(socket_path());
  ASSERT_TRUE(hostile.connected());
  std::optional<ring::Region> region = AttachRingRaw(hostile);
  ASSERT_TRUE(region);
  GetParam().apply(*region);
  ASSERT_TRUE(hostile.Send(kDoorbell));
  hostile.ExpectClosed(10000);
  EXPECT_FALSE(LogLines({"shared-memory ring broken by the client"}).empty());
  EXPECT_GT(honest.Stop(), 0);
  // The daemon still serves new connections, through their rings.
  auto after = OpenUserSession();
  ASSERT_TRUE(after.ok()) << after.error().message;
  auto stats = after->client->GetStats();
  ASSERT_TRUE(stats.ok());
  EXPECT_GT(stats->ring_requests, 0u);
}

INSTANTIATE_TEST_SUITE_P(Hostile, RingScribbleTest, ::testing::ValuesIn(kScribbles),
                         [](const auto& p) { return std::string(p.param.name); });

TEST_F(RingTest, AClientThatNeverReadsItsRepliesHurtsNoOne) {
  HonestSigner honest(this);
  RawConnection hostile(socket_path());
  ASSERT_TRUE(hostile.connected());
  std::optional<ring::Region> region = AttachRingRaw(hostile);
  ASSERT_TRUE(region);
  Result<std::unique_ptr<ring::ClientRing>> rogue = ring::ClientRing::Attach(std::move(*region));
  ASSERT_TRUE(rogue.ok());
  // Every slot filled, its replies never read; and requests on the socket
  // whose replies are never read either.
  std::uint64_t id = 100;
  while (std::optional<std::uint32_t> slot = (*rogue)->Acquire()) {
    (*rogue)->Submit(*slot, GetInfoPayload(++id));
  }
  ASSERT_TRUE(hostile.Send(kDoorbell));
  for (int i = 0; i < 64; ++i) ASSERT_TRUE(hostile.Send(GetInfoFrame(++id)));
  std::this_thread::sleep_for(500ms);
  EXPECT_GE(honest.Stop(), 20);
  auto probe = OpenUserSession();
  ASSERT_TRUE(probe.ok()) << probe.error().message;
  EXPECT_TRUE(probe->client->GetStats().ok());
}

TEST_F(RingTest, AClientThatDiesMidRequestLeavesTheOthersServed) {
  auto observer = OpenUserSession();
  ASSERT_TRUE(observer.ok());
  auto before = observer->client->GetStats();
  ASSERT_TRUE(before.ok());
  HonestSigner honest(this);
  const pid_t child = ::fork();
  if (child == 0) {
    // The child: a ring client that asks for slow work and is gone at once.
    auto user = OpenUserSession();
    if (!user.ok()) ::_exit(2);
    for (int i = 0; i < 8; ++i) {
      (void)user->client->SendGenerateRandom(user->session, 4096);
    }
    (void)user->client->SendGetStats();
    (void)user->client->Flush();
    ::kill(::getpid(), SIGKILL);
  }
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child did not die as planned";
  // Its connection and ring go away; the honest client never noticed.
  std::uint64_t rings = ~std::uint64_t{0};
  for (auto deadline = std::chrono::steady_clock::now() + 10s;
       std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(20ms)) {
    auto stats = observer->client->GetStats();
    ASSERT_TRUE(stats.ok());
    rings = stats->ring_connections;
    if (rings == before->ring_connections + 1) break;  // the honest signer's
  }
  EXPECT_EQ(rings, before->ring_connections + 1);
  EXPECT_GE(honest.Stop(), 20);
}

TEST_F(RingTest, ASlotWithoutAValidRequestIsAnsweredMalformedAndTheRingGoesOn) {
  RawConnection conn(socket_path());
  ASSERT_TRUE(conn.connected());
  std::optional<ring::Region> region = AttachRingRaw(conn);
  ASSERT_TRUE(region);
  Result<std::unique_ptr<ring::ClientRing>> client = ring::ClientRing::Attach(std::move(*region));
  ASSERT_TRUE(client.ok());
  auto ask = [&](const std::vector<std::uint8_t>& payload) -> std::vector<std::uint8_t> {
    std::uint32_t slot = *(*client)->Acquire();
    (*client)->Submit(slot, payload);
    EXPECT_TRUE(conn.Send(kDoorbell));
    EXPECT_EQ((*client)->WaitFor(slot, 10s, 0ns), ring::ClientRing::Wait::kReplied);
    auto reply = (*client)->ReplyPayload(slot);
    std::vector<std::uint8_t> out(reply.begin(), reply.end());
    (*client)->Release(slot);
    return out;
  };
  const std::vector<std::uint8_t> garbage = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3};
  auto refused = ask(garbage);
  const wire::Response* response = ParseResponse(refused);
  ASSERT_NE(response, nullptr);
  EXPECT_EQ(response->rv(), SIGNET_RV_MALFORMED_MESSAGE);
  auto answered = ask(GetInfoPayload(7));
  response = ParseResponse(answered);
  ASSERT_NE(response, nullptr);
  EXPECT_EQ(response->rv(), CKR_OK);
  EXPECT_EQ(response->id(), 7u);
  EXPECT_NE(response->body_as_GetInfoResponse(), nullptr);
}

TEST_F(RingTest, AnAttachThatIsNotTheFirstRequestIsRefused) {
  RawConnection conn(socket_path());
  ASSERT_TRUE(conn.connected());
  ASSERT_TRUE(conn.Send(GetInfoFrame(1)));
  ASSERT_TRUE(conn.ReadFrame());
  ASSERT_TRUE(conn.SendFrame(RequestPayload(2, wire::RequestBody::AttachRingRequest, [](auto& fbb) {
    return wire::CreateAttachRingRequest(fbb);
  })));
  auto reply = conn.ReadFrame();
  ASSERT_TRUE(reply);
  const wire::Response* response = ParseResponse(*reply);
  ASSERT_NE(response, nullptr);
  EXPECT_EQ(response->rv(), CKR_FUNCTION_REJECTED);
}

class NoSharedMemoryTest : public DaemonTest {
 public:
  std::vector<std::string> DaemonArgs() override { return {"--no-shared-memory"}; }
};

TEST_F(NoSharedMemoryTest, RingAskingClientsAreServedOnTheSocket) {
  HonestSigner honest(this);
  std::this_thread::sleep_for(100ms);
  EXPECT_GE(honest.Stop(), 20);
  auto user = OpenUserSession(/*shared_memory=*/true);
  ASSERT_TRUE(user.ok()) << user.error().message;
  auto stats = user->client->GetStats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->ring_connections, 0u);
  EXPECT_EQ(stats->ring_requests, 0u);
}

}  // namespace
}  // namespace signet::e2e
