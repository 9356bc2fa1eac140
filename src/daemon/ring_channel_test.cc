// RingChannel's choice of request on a real ring (a sealed memfd mapped as
// a client maps it): local first only while several drains serve the ring.
#include "daemon/ring_channel.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <vector>

#include "base/pinned_here_test_util.h"

namespace signet::daemon {
namespace {

namespace ring = proto::ring;

using base::testing::PinnedHere;

class RingChannelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int fd = -1;
    Result<std::shared_ptr<RingChannel>> made = RingChannel::Create(&fd, /*max_drains=*/2);
    ASSERT_TRUE(made.ok()) << made.error().message;
    channel_ = std::move(made).value();
    Result<ring::Region> client = ring::Region::Map(fd);
    ASSERT_TRUE(client.ok());
    Result<ring::Region> scribble = ring::Region::Map(fd);
    ASSERT_TRUE(scribble.ok());
    close(fd);
    scribble_ = std::make_unique<ring::Region>(std::move(scribble).value());
    Result<std::unique_ptr<ring::ClientRing>> attached =
        ring::ClientRing::Attach(std::move(client).value());
    ASSERT_TRUE(attached.ok());
    client_ = std::move(attached).value();
  }

  // Submit queues one request said to come from `cpu`; returns its slot.
  std::uint32_t Submit(int cpu) {
    std::uint32_t slot = *client_->Acquire();
    client_->Submit(slot, request_);
    scribble_->slot(slot).client_cpu.store(static_cast<std::uint32_t>(cpu + 1));
    return slot;
  }

  // Take returns the slot of the request TakeNext hands the caller.
  std::uint32_t Take() {
    std::uint32_t slot = ring::kSlotCount;
    SecureBytes payload;
    std::string why;
    EXPECT_EQ(channel_->TakeNext(&slot, &payload, &why, [] { return false; }),
              RingChannel::Next::kRequest)
        << why;
    return slot;
  }

  std::shared_ptr<RingChannel> channel_;
  std::unique_ptr<ring::ClientRing> client_;
  std::unique_ptr<ring::Region> scribble_;
  const std::vector<std::uint8_t> request_ = {1, 2, 3};
};

TEST_F(RingChannelTest, ALoneDrainTakesTheOldestRequest) {
  PinnedHere here;
  ASSERT_TRUE(here.pinned());
  const std::uint32_t oldest = Submit(here.cpu() + 1);
  Submit(here.cpu());
  ASSERT_TRUE(channel_->StartDrain());
  EXPECT_EQ(Take(), oldest);
}

TEST_F(RingChannelTest, WithTwoDrainsEachTakesARequestFromItsOwnCpuFirst) {
  PinnedHere here;
  ASSERT_TRUE(here.pinned());
  Submit(here.cpu() + 1);
  const std::uint32_t local = Submit(here.cpu());
  Submit(here.cpu() + 1);
  ASSERT_TRUE(channel_->StartDrain());
  ASSERT_TRUE(channel_->AddDrain());
  EXPECT_EQ(Take(), local);
}

}  // namespace
}  // namespace signet::daemon
