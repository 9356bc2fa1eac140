// The shared-memory ring: the local fast path between a client on the Unix
// socket and signetd (docs/PROTOCOL.md "The shared-memory ring").
//
// The daemon creates one region per connection (a sealed memfd: its size
// cannot change) and passes it to that client alone over the socket with
// SCM_RIGHTS. The region holds a submission queue of slot numbers and
// kSlotCount slots; a slot carries one request payload and then its reply
// payload (the same FlatBuffers a frame carries, without the length prefix).
// A client thread owns a slot from the request until it has read the reply,
// and sleeps on that slot's state word alone; the daemon's workers take
// requests from the queue and write replies back into the slots, with no
// event-loop hop and no system call while requests keep coming.
//
// Trust: the daemon never trusts a byte of the region. ServerRing reads each
// client-written word once, checks every index, length and state before
// use, copies a request out before parsing it, never waits on the region,
// and reports a ring that breaks a rule as corrupt (the daemon then closes
// that connection only). The client trusts the daemon as it does over the
// socket, but still bounds every length it reads.
//
// Thread contract: ServerRing::Take is called by one thread at a time (the
// daemon serialises it per connection); ServerRing::Reply/ReplyOnSocket by
// any thread, each slot by one. ClientRing is safe to use from any number
// of threads.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "base/local_first.h"
#include "base/mutex.h"
#include "base/secure_bytes.h"
#include "signet/result.hpp"

namespace signet::proto::ring {

// The layout's facts, fixed by kVersion (both ends check magic and version).
inline constexpr std::uint32_t kMagic = 0x53524e47;  // "SRNG"
inline constexpr std::uint32_t kVersion = 2;
inline constexpr std::uint32_t kSlotCount = 64;
inline constexpr std::size_t kCacheLine = 64;
// kSlotSize: 32 KiB, so that a 16 KiB cipher or MAC input and its reply
// fit (docs/PERFORMANCE.md); a slot's pages are made only when it is first
// used, and the client reuses the most recently freed slot first.
inline constexpr std::size_t kSlotSize = 32 * 1024;
// kSlotCapacity: the largest request or reply payload a slot holds; larger
// requests go over the socket, and so do larger replies (kReplyOnSocket).
inline constexpr std::size_t kSlotCapacity = kSlotSize - kCacheLine;

// SlotState: the life of a slot. The client moves kFree -> kSubmitted and
// (kReplied | kReplyOnSocket) -> kFree; the daemon moves kSubmitted ->
// kTaken -> (kReplied | kReplyOnSocket).
enum SlotState : std::uint32_t {
  kFree = 0,
  kSubmitted = 1,
  kTaken = 2,
  kReplied = 3,       // the reply payload is in the slot
  kReplyOnSocket = 4  // the reply was too large: it comes as a socket frame
};

using Word = std::atomic<std::uint32_t>;
static_assert(Word::is_always_lock_free, "ring words must be address-free atomics");

// Header: the first bytes of the region. Each line has one writer.
struct Header {
  // Written once by the daemon before the client sees the region.
  alignas(kCacheLine) std::uint32_t magic;
  std::uint32_t version;
  std::uint32_t slot_count;
  std::uint32_t slot_size;
  // Client-written: slots submitted so far (mod 2^32).
  alignas(kCacheLine) Word submit_tail;
  // Daemon-written: slots taken so far; 1 while a worker will look at the
  // queue again without a doorbell; 1 once the connection is closed.
  alignas(kCacheLine) Word submit_head;
  Word daemon_polling;
  Word closed;
  // Client-written: the submission queue, slot numbers in order.
  alignas(kCacheLine) Word queue[kSlotCount];
};

// SlotHeader: the first line of each slot; the payload follows it.
struct SlotHeader {
  alignas(kCacheLine) Word state;
  Word waiter;          // client: 1 while a thread sleeps (or is about to) on state
  Word request_length;  // client-written
  Word reply_length;    // daemon-written
  Word client_cpu;      // client-written: 1 + the CPU it submitted from (0: unsaid); a hint
};
static_assert(sizeof(SlotHeader) == kCacheLine);

inline constexpr std::size_t kSlotsOffset =
    (sizeof(Header) + kCacheLine - 1) / kCacheLine * kCacheLine;
// kRegionSize: the size of the region (the memfd), exactly.
inline constexpr std::size_t kRegionSize = kSlotsOffset + std::size_t{kSlotCount} * kSlotSize;

// Region: a mapping of a ring's memory, unmapped on destruction.
class Region {
 public:
  // Create makes a sealed memfd of kRegionSize (no grow, no shrink, no new
  // seals) and maps it; *fd receives the memfd (the caller sends and closes
  // it). CKR_DEVICE_ERROR with the system error.
  static Result<Region> Create(int* fd);
  // Map maps a memfd received from the daemon, checking its size.
  static Result<Region> Map(int fd);
  // Over views memory the caller owns (tests, fuzzing): nothing is unmapped.
  static Region Over(std::span<std::uint8_t> memory);

  Region(Region&& other) noexcept;
  Region& operator=(Region&& other) noexcept;
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
  ~Region();

  Header& header() const { return *reinterpret_cast<Header*>(base_); }
  SlotHeader& slot(std::uint32_t index) const {
    return *reinterpret_cast<SlotHeader*>(base_ + kSlotsOffset + std::size_t{index} * kSlotSize);
  }
  std::uint8_t* payload(std::uint32_t index) const {
    return base_ + kSlotsOffset + std::size_t{index} * kSlotSize + kCacheLine;
  }

 private:
  Region(std::uint8_t* base, bool owned) : base_(base), owned_(owned) {}
  std::uint8_t* base_ = nullptr;
  bool owned_ = false;
};

// CpuRelax: the processor's spin-wait hint (PAUSE, YIELD).
void CpuRelax();

// WaitWord sleeps while `word` holds `expected`, at most `timeout` (a
// shared futex: the other process wakes it). Returns at once if the value
// differs; may return early (spuriously).
void WaitWord(Word& word, std::uint32_t expected, std::chrono::microseconds timeout);
// WakeWord wakes every thread sleeping on `word`.
void WakeWord(Word& word);

// ServerRing: the daemon's end of a ring.
class ServerRing {
 public:
  explicit ServerRing(Region region);
  ServerRing(const ServerRing&) = delete;
  ServerRing& operator=(const ServerRing&) = delete;

  // Initialize writes the header (before the client gets the region).
  void Initialize();

  enum class Take { kEmpty, kRequest, kCorrupt };
  // Take takes a submitted request: its slot and a private copy of its
  // payload. Of the requests waiting, the oldest, or by base/local_first.h's
  // rule one submitted from CPU `here` (the caller's; base::kAnyCpu: none),
  // so that the reply wakes a client thread on the CPU it already runs on.
  // kCorrupt (with *why) when the client broke a rule: the caller must
  // stop using this ring. One caller at a time.
  Take TakeNext(std::uint32_t* slot, SecureBytes* payload, const char** why,
                int here = base::kAnyCpu);
  // LastClientCpu: the CPU the client says it submitted the last taken
  // request from; base::kAnyCpu when unsaid. Only a hint: a false one moves
  // this client's requests a few places (base/local_first.h) and no more.
  // Safe to call while another thread takes.
  int LastClientCpu() const { return last_cpu_.load(std::memory_order_relaxed); }

  // Pending: the client has submitted requests not yet taken. Safe to call
  // while another thread takes.
  bool Pending() const;

  // SetPolling publishes whether a worker will look at the queue again. To
  // go idle, SetPolling(false) and then check Pending() (a submission that
  // raced with it rang no doorbell).
  void SetPolling(bool polling);

  // Reply writes `reply` into `slot` (taken by TakeNext) and wakes its
  // waiter; false, with nothing written, when it does not fit.
  bool Reply(std::uint32_t slot, std::span<const std::uint8_t> reply);
  // ReplyOnSocket tells the slot's waiter its reply went as a socket frame.
  void ReplyOnSocket(std::uint32_t slot);

  // Close marks the ring closed and wakes every waiter.
  void Close();

 private:
  // Waiting: a submitted request moved out of the client's queue, not yet
  // taken.
  struct Waiting {
    std::uint32_t slot;
    int cpu;  // the client's hint, read once
    int passed = 0;
  };

  void Finish(std::uint32_t slot, SlotState state);
  // Collect moves the queue's new entries into waiting_; false (with *why)
  // when the client broke a rule.
  bool Collect(const char** why);

  Region region_;
  // Queue entries moved so far; the daemon's own count, never read back.
  std::atomic<std::uint32_t> head_{0};
  std::vector<Waiting> waiting_;  // oldest first; at most kSlotCount
  // waiting_.size() and the last taken request's CPU, for readers on other
  // threads (Pending, LastClientCpu).
  std::atomic<std::uint32_t> waiting_count_{0};
  std::atomic<int> last_cpu_{base::kAnyCpu};
};

// ClientRing: the client's end of a ring.
class ClientRing {
 public:
  // Attach checks a region received from the daemon.
  static Result<std::unique_ptr<ClientRing>> Attach(Region region);

  // Acquire reserves a free slot, or nullopt when all are in use.
  std::optional<std::uint32_t> Acquire() EXCLUDES(mu_);
  // Submit copies `payload` (at most kSlotCapacity) into `slot` and queues it.
  void Submit(std::uint32_t slot, std::span<const std::uint8_t> payload) EXCLUDES(mu_);
  // NeedsDoorbell: requests were submitted since the last doorbell and no
  // worker is polling, so the daemon must be told over the socket. Clears
  // the "submitted since" mark when it returns true.
  bool NeedsDoorbell();

  enum class Wait { kReplied, kReplyOnSocket, kClosed, kTimeout };
  // WaitFor waits up to `timeout` for `slot`'s reply: spinning first (no
  // system call) for up to `spin` while the process looks like one thread
  // issuing one request at a time (no other thread waits on a ring now,
  // and lately rarely did: only then does a spinner have a core to
  // itself), then asleep on the slot's futex.
  Wait WaitFor(std::uint32_t slot, std::chrono::microseconds timeout,
               std::chrono::nanoseconds spin);
  // ReplyPayload: the reply in `slot` after kReplied (bounded by kSlotCapacity).
  std::span<const std::uint8_t> ReplyPayload(std::uint32_t slot) const;
  // Release wipes `slot` and returns it to the free list.
  void Release(std::uint32_t slot) EXCLUDES(mu_);

  bool closed() const;

 private:
  explicit ClientRing(Region region);

  Region region_;
  base::Mutex mu_;
  std::vector<std::uint32_t> free_ GUARDED_BY(mu_);
  std::uint32_t tail_ GUARDED_BY(mu_) = 0;
  std::atomic<bool> unannounced_{false};  // submitted since the last doorbell
};

}  // namespace signet::proto::ring
