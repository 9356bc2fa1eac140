// ring_reader_fuzz: proto::ring::ServerRing (src/proto/shm_ring.h), the
// daemon's reader of a shared-memory ring, over a ring a hostile client
// wrote. Input: bytes 0-3 the submission tail (little-endian), then one
// byte per queue entry (a slot number, so 64..255 are out of range), then
// per slot a state byte (its value mod 6 the state, its value / 6 the
// client's CPU word) and a 2-byte request length, then payload bytes spread
// over the slots, 64 each. The reader takes on CPU -1, 0 and 1 in turn, so
// requests are taken out of order too.
//
// Checks: the reader takes at most one request per slot and never more
// than the tail announced; every request it takes came from a submitted
// slot, has a length in 1..kSlotCapacity and equals the slot's bytes; it
// wipes the slot's request and marks it taken; a reply (fitting or not)
// leaves the slot answered. Everything else is kCorrupt, never a crash or
// an out-of-range access (ASan).
#include <cstring>
#include <memory>
#include <set>
#include <vector>

#include "fuzz_target.h"
#include "proto/shm_ring.h"

namespace {

namespace ring = signet::proto::ring;

constexpr std::size_t kPayloadPerSlot = 64;

struct alignas(ring::kCacheLine) Memory {
  std::uint8_t bytes[ring::kRegionSize];
};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static auto* memory = new Memory;
  std::memset(memory->bytes, 0, sizeof(memory->bytes));
  ring::ServerRing server(ring::Region::Over(memory->bytes));
  server.Initialize();
  ring::Region view = ring::Region::Over(memory->bytes);

  auto take = [&](std::size_t n) {
    std::size_t k = std::min(n, size);
    const std::uint8_t* p = data;
    data += k;
    size -= k;
    return std::make_pair(p, k);
  };
  auto [tail_bytes, tail_len] = take(4);
  std::uint32_t tail = 0;
  std::memcpy(&tail, tail_bytes, tail_len);
  view.header().submit_tail.store(tail);
  for (std::uint32_t i = 0; i < ring::kSlotCount; ++i) {
    auto [b, n] = take(1);
    view.header().queue[i].store(n ? b[0] : 0);
  }
  for (std::uint32_t i = 0; i < ring::kSlotCount; ++i) {
    auto [b, n] = take(3);
    std::uint8_t field[3] = {};
    std::memcpy(field, b, n);
    view.slot(i).state.store(field[0] % 6);
    view.slot(i).client_cpu.store(field[0] / 6);
    view.slot(i).request_length.store(field[1] | (field[2] << 8));
  }
  for (std::uint32_t i = 0; i < ring::kSlotCount && size > 0; ++i) {
    auto [b, n] = take(kPayloadPerSlot);
    std::memcpy(view.payload(i), b, n);
  }
  // What each slot held before the reader ran, to compare with what it took.
  std::vector<std::vector<std::uint8_t>> before(ring::kSlotCount);
  std::vector<std::uint32_t> state_before(ring::kSlotCount);
  for (std::uint32_t i = 0; i < ring::kSlotCount; ++i) {
    state_before[i] = view.slot(i).state.load();
    std::uint32_t length = view.slot(i).request_length.load();
    if (length <= ring::kSlotCapacity) before[i].assign(view.payload(i), view.payload(i) + length);
  }

  std::set<std::uint32_t> taken;
  const std::vector<std::uint8_t> small_reply(16, 0xab);
  const std::vector<std::uint8_t> large_reply(ring::kSlotCapacity + 1, 0xcd);
  for (std::uint32_t round = 0; round <= ring::kSlotCount + 1; ++round) {
    std::uint32_t slot = 0;
    signet::SecureBytes payload;
    const char* why = nullptr;
    const int here = static_cast<int>(round % 3) - 1;
    ring::ServerRing::Take result = server.TakeNext(&slot, &payload, &why, here);
    if (result == ring::ServerRing::Take::kEmpty) break;
    if (result == ring::ServerRing::Take::kCorrupt) {
      FUZZ_CHECK(why != nullptr);
      break;
    }
    FUZZ_CHECK(slot < ring::kSlotCount);
    FUZZ_CHECK(state_before[slot] == ring::kSubmitted);
    FUZZ_CHECK(taken.insert(slot).second);
    FUZZ_CHECK(!payload.empty() && payload.size() <= ring::kSlotCapacity);
    FUZZ_CHECK(before[slot].size() == payload.size() &&
               std::equal(payload.begin(), payload.end(), before[slot].begin()));
    FUZZ_CHECK(view.slot(slot).state.load() == ring::kTaken);
    for (std::size_t i = 0; i < payload.size(); ++i) FUZZ_CHECK(view.payload(slot)[i] == 0);
    if (round % 2 == 0) {
      FUZZ_CHECK(server.Reply(slot, small_reply));
      FUZZ_CHECK(view.slot(slot).state.load() == ring::kReplied);
      FUZZ_CHECK(view.slot(slot).reply_length.load() == small_reply.size());
    } else {
      FUZZ_CHECK(!server.Reply(slot, large_reply));
      server.ReplyOnSocket(slot);
      FUZZ_CHECK(view.slot(slot).state.load() == ring::kReplyOnSocket);
    }
  }
  FUZZ_CHECK(taken.size() <= ring::kSlotCount && taken.size() <= tail);
  server.Close();
  FUZZ_CHECK(view.header().closed.load() == 1);
  return 0;
}
