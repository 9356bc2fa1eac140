// The shared-memory ring's two ends over one real sealed memfd, mapped
// twice as the daemon and a client map it: the exchange, the doorbell rule,
// the wake-ups, and the reader's refusal of every rule a client can break.
#include "proto/shm_ring.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "base/pinned_here_test_util.h"

namespace signet::proto::ring {
namespace {

using namespace std::chrono_literals;

class RingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int fd = -1;
    Result<Region> made = Region::Create(&fd);
    ASSERT_TRUE(made.ok()) << made.error().message;
    server_ = std::make_unique<ServerRing>(std::move(made).value());
    server_->Initialize();
    Result<Region> mapped = Region::Map(fd);
    ASSERT_TRUE(mapped.ok()) << mapped.error().message;
    // A second view of the client's mapping, to scribble on as a hostile
    // client would.
    Result<Region> scribble = Region::Map(fd);
    ASSERT_TRUE(scribble.ok());
    scribble_ = std::make_unique<Region>(std::move(scribble).value());
    fd_ = fd;
    Result<std::unique_ptr<ClientRing>> client = ClientRing::Attach(std::move(mapped).value());
    ASSERT_TRUE(client.ok()) << client.error().message;
    client_ = std::move(client).value();
  }
  void TearDown() override {
    if (fd_ >= 0) close(fd_);
  }

  // Take expects the next take to be `want` and returns the slot.
  std::uint32_t Take(ServerRing::Take want, SecureBytes* payload = nullptr) {
    SecureBytes ignored;
    std::uint32_t slot = kSlotCount;
    const char* why = nullptr;
    EXPECT_EQ(server_->TakeNext(&slot, payload ? payload : &ignored, &why), want)
        << (why ? why : "");
    return slot;
  }

  int fd_ = -1;
  std::unique_ptr<ServerRing> server_;
  std::unique_ptr<ClientRing> client_;
  std::unique_ptr<Region> scribble_;
};

const std::vector<std::uint8_t> kRequest = {1, 2, 3, 4, 5};
const std::vector<std::uint8_t> kReply = {9, 8, 7};

TEST_F(RingTest, RequestAndReplyTravelThroughOneSlot) {
  std::optional<std::uint32_t> slot = client_->Acquire();
  ASSERT_TRUE(slot);
  client_->Submit(*slot, kRequest);
  SecureBytes payload;
  EXPECT_EQ(Take(ServerRing::Take::kRequest, &payload), *slot);
  EXPECT_EQ(std::vector<std::uint8_t>(payload.begin(), payload.end()), kRequest);
  EXPECT_EQ(Take(ServerRing::Take::kEmpty), kSlotCount);
  ASSERT_TRUE(server_->Reply(*slot, kReply));
  EXPECT_EQ(client_->WaitFor(*slot, 1s, 0ns), ClientRing::Wait::kReplied);
  std::span<const std::uint8_t> reply = client_->ReplyPayload(*slot);
  EXPECT_EQ(std::vector<std::uint8_t>(reply.begin(), reply.end()), kReply);
  client_->Release(*slot);
}

TEST_F(RingTest, TheDaemonWipesTheRequestItTook) {
  std::uint32_t slot = *client_->Acquire();
  client_->Submit(slot, kRequest);
  Take(ServerRing::Take::kRequest);
  for (std::size_t i = 0; i < kRequest.size(); ++i) EXPECT_EQ(scribble_->payload(slot)[i], 0);
}

TEST_F(RingTest, TheDaemonLearnsTheCpuEachRequestCameFrom) {
  EXPECT_EQ(server_->LastClientCpu(), base::kAnyCpu);
  base::testing::PinnedHere pin;
  ASSERT_TRUE(pin.pinned());
  const int cpu = pin.cpu();
  std::uint32_t slot = *client_->Acquire();
  client_->Submit(slot, kRequest);
  Take(ServerRing::Take::kRequest);
  EXPECT_EQ(server_->LastClientCpu(), cpu);
}

TEST_F(RingTest, AnUnsaidOrImpossibleCpuIsNoHintAndNoCorruption) {
  for (std::uint32_t word : {0u, 0x80000000u, 0xffffffffu}) {
    std::uint32_t slot = *client_->Acquire();
    client_->Submit(slot, kRequest);
    scribble_->slot(slot).client_cpu.store(word);
    Take(ServerRing::Take::kRequest);
    EXPECT_EQ(server_->LastClientCpu(), base::kAnyCpu) << word;
    ASSERT_TRUE(server_->Reply(slot, kReply));
    client_->Release(slot);
  }
}

TEST_F(RingTest, ARequestFromTheTakersCpuIsTakenFirst) {
  std::uint32_t slots[3];
  const int cpus[3] = {3, 7, 7};
  for (int i = 0; i < 3; ++i) {
    slots[i] = *client_->Acquire();
    client_->Submit(slots[i], kRequest);
    scribble_->slot(slots[i]).client_cpu.store(static_cast<std::uint32_t>(cpus[i] + 1));
  }
  SecureBytes payload;
  const char* why = nullptr;
  std::uint32_t slot = kSlotCount;
  for (std::uint32_t want : {slots[1], slots[2], slots[0]}) {
    ASSERT_EQ(server_->TakeNext(&slot, &payload, &why, 7), ServerRing::Take::kRequest);
    EXPECT_EQ(slot, want);
  }
  EXPECT_EQ(server_->LastClientCpu(), 3);
  EXPECT_FALSE(server_->Pending());
}

TEST_F(RingTest, ATakerOnNoKnownCpuTakesOldestFirst) {
  std::uint32_t first = *client_->Acquire();
  client_->Submit(first, kRequest);
  std::uint32_t second = *client_->Acquire();
  client_->Submit(second, kRequest);
  scribble_->slot(second).client_cpu.store(8);
  EXPECT_EQ(Take(ServerRing::Take::kRequest), first);
  EXPECT_EQ(Take(ServerRing::Take::kRequest), second);
}

TEST_F(RingTest, AReplyTooLargeForTheSlotGoesOnTheSocket) {
  std::uint32_t slot = *client_->Acquire();
  client_->Submit(slot, kRequest);
  Take(ServerRing::Take::kRequest);
  std::vector<std::uint8_t> large(kSlotCapacity + 1, 7);
  EXPECT_FALSE(server_->Reply(slot, large));
  server_->ReplyOnSocket(slot);
  EXPECT_EQ(client_->WaitFor(slot, 1s, 0ns), ClientRing::Wait::kReplyOnSocket);
}

TEST_F(RingTest, EverySlotCanBeInUseAndNoMore) {
  std::vector<std::uint32_t> slots;
  while (std::optional<std::uint32_t> slot = client_->Acquire()) slots.push_back(*slot);
  EXPECT_EQ(slots.size(), kSlotCount);
  for (std::uint32_t slot : slots) client_->Submit(slot, kRequest);
  for (std::uint32_t slot : slots) EXPECT_EQ(Take(ServerRing::Take::kRequest), slot);
  client_->Release(slots[0]);
  EXPECT_TRUE(client_->Acquire());
}

TEST_F(RingTest, ADoorbellIsNeededOnlyWhileNoWorkerPolls) {
  EXPECT_FALSE(client_->NeedsDoorbell());  // nothing submitted
  client_->Submit(*client_->Acquire(), kRequest);
  EXPECT_TRUE(client_->NeedsDoorbell());
  EXPECT_FALSE(client_->NeedsDoorbell());  // once per batch
  server_->SetPolling(true);
  client_->Submit(*client_->Acquire(), kRequest);
  EXPECT_FALSE(client_->NeedsDoorbell());
  // A drain going idle looks once more: the submission is not lost.
  server_->SetPolling(false);
  EXPECT_TRUE(server_->Pending());
}

TEST_F(RingTest, ASleepingWaiterWakesOnItsReply) {
  std::uint32_t slot = *client_->Acquire();
  client_->Submit(slot, kRequest);
  Take(ServerRing::Take::kRequest);
  std::thread daemon([&] {
    std::this_thread::sleep_for(50ms);
    EXPECT_TRUE(server_->Reply(slot, kReply));
  });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(client_->WaitFor(slot, 10s, 0ns), ClientRing::Wait::kReplied);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);  // woken, not timed out
  daemon.join();
}

TEST_F(RingTest, AReplyWhileSpinningIsSeenWithoutAWakeUp) {
  std::uint32_t slot = *client_->Acquire();
  client_->Submit(slot, kRequest);
  Take(ServerRing::Take::kRequest);
  std::thread daemon([&] {
    std::this_thread::sleep_for(30ms);
    EXPECT_TRUE(server_->Reply(slot, kReply));
  });
  EXPECT_EQ(client_->WaitFor(slot, 10s, 5s), ClientRing::Wait::kReplied);
  EXPECT_EQ(scribble_->slot(slot).waiter.load(), 0u);  // nobody asleep: no FUTEX_WAKE owed
  daemon.join();
}

TEST_F(RingTest, CloseWakesEveryWaiter) {
  std::uint32_t slot = *client_->Acquire();
  client_->Submit(slot, kRequest);
  std::thread daemon([&] {
    std::this_thread::sleep_for(50ms);
    server_->Close();
  });
  EXPECT_EQ(client_->WaitFor(slot, 10s, 0ns), ClientRing::Wait::kClosed);
  daemon.join();
}

TEST_F(RingTest, AWaitWithoutAReplyTimesOut) {
  std::uint32_t slot = *client_->Acquire();
  client_->Submit(slot, kRequest);
  EXPECT_EQ(client_->WaitFor(slot, 20ms, 1ms), ClientRing::Wait::kTimeout);
}

// ---- A hostile client: each broken rule is kCorrupt, nothing worse.

TEST_F(RingTest, ATailPastTheSlotCountIsCorrupt) {
  scribble_->header().submit_tail.store(kSlotCount + 1);
  Take(ServerRing::Take::kCorrupt);
}

TEST_F(RingTest, ASlotNumberOutOfRangeIsCorrupt) {
  scribble_->header().queue[0].store(kSlotCount);
  scribble_->header().submit_tail.store(1);
  Take(ServerRing::Take::kCorrupt);
}

TEST_F(RingTest, AQueuedSlotThatWasNotSubmittedIsCorrupt) {
  scribble_->header().queue[0].store(3);  // state kFree
  scribble_->header().submit_tail.store(1);
  Take(ServerRing::Take::kCorrupt);
}

TEST_F(RingTest, TheSameSlotQueuedTwiceIsCorrupt) {
  std::uint32_t slot = *client_->Acquire();
  client_->Submit(slot, kRequest);
  scribble_->header().queue[1].store(slot);
  scribble_->header().submit_tail.store(2);
  Take(ServerRing::Take::kRequest);
  Take(ServerRing::Take::kCorrupt);
}

class RingLengthTest : public RingTest, public ::testing::WithParamInterface<std::uint32_t> {};

TEST_P(RingLengthTest, ARequestLengthOutOfRangeIsCorrupt) {
  std::uint32_t slot = *client_->Acquire();
  client_->Submit(slot, kRequest);
  scribble_->slot(slot).request_length.store(GetParam());
  Take(ServerRing::Take::kCorrupt);
}

INSTANTIATE_TEST_SUITE_P(Lengths, RingLengthTest,
                         ::testing::Values(0u, static_cast<std::uint32_t>(kSlotCapacity) + 1, ~0u));

TEST(RingRegion, TheMemfdIsSealedAgainstResizing) {
  int fd = -1;
  Result<Region> region = Region::Create(&fd);
  ASSERT_TRUE(region.ok());
  EXPECT_NE(ftruncate(fd, 4096), 0);  // a client cannot SIGBUS the daemon
  EXPECT_EQ(errno, EPERM);
  EXPECT_NE(ftruncate(fd, static_cast<off_t>(kRegionSize) * 2), 0);
  EXPECT_NE(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), 0);  // no seal taken back or added
  close(fd);
}

TEST(RingRegion, AClientRefusesAFileOfAnotherSize) {
  int fd = memfd_create("not-a-ring", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 4096), 0);
  EXPECT_FALSE(Region::Map(fd).ok());
  close(fd);
}

TEST(RingRegion, AClientRefusesAnotherLayout) {
  struct alignas(kCacheLine) Memory {
    std::uint8_t bytes[kRegionSize];
  };
  auto memory = std::make_unique<Memory>();
  ServerRing server(Region::Over(memory->bytes));
  server.Initialize();
  EXPECT_TRUE(ClientRing::Attach(Region::Over(memory->bytes)).ok());
  Region::Over(memory->bytes).header().version = kVersion + 1;
  EXPECT_FALSE(ClientRing::Attach(Region::Over(memory->bytes)).ok());
}

}  // namespace
}  // namespace signet::proto::ring
