#include "proto/shm_ring.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <string>

namespace signet::proto::ring {
namespace {

Error SystemError(const char* what) {
  return MakeError(CKR_DEVICE_ERROR,
                   std::string("shared-memory ring: ") + what + ": " + std::strerror(errno));
}

bool Answered(std::uint32_t state) { return state == kReplied || state == kReplyOnSocket; }

// g_waiting: threads of this process waiting on any ring now; g_overlap:
// how often (a moving average, in 1/256ths) a wait began while another
// thread of the process was waiting too. A spinner takes a whole core, so
// a waiter spins only while the process looks like one thread issuing one
// request at a time (the other threads' work, and the daemon's, need the
// rest of the machine): no other waiter now, and rarely one lately.
std::atomic<std::uint32_t> g_waiting{0};
std::atomic<std::uint32_t> g_overlap{0};
constexpr std::uint32_t kMaxOverlap = 256 / 8;

bool MaySpin() {
  const std::uint32_t others = g_waiting.fetch_add(1, std::memory_order_relaxed);
  const std::uint32_t sample = others > 0 ? 256 : 0;
  const std::uint32_t overlap = (g_overlap.load(std::memory_order_relaxed) * 15 + sample) / 16;
  g_overlap.store(overlap, std::memory_order_relaxed);  // a lost update is harmless
  return others == 0 && overlap < kMaxOverlap;
}

}  // namespace

void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

void WaitWord(Word& word, std::uint32_t expected, std::chrono::microseconds timeout) {
  timespec ts{static_cast<time_t>(timeout.count() / 1'000'000),
              static_cast<long>(timeout.count() % 1'000'000) * 1000};
  // Not FUTEX_PRIVATE_FLAG: the waker is another process.
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT, expected, &ts, nullptr,
          0);
}

void WakeWord(Word& word) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE, INT32_MAX, nullptr,
          nullptr, 0);
}

// ---------------------------------------------------------------- Region

Result<Region> Region::Create(int* fd) {
  int memfd = memfd_create("signet-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (memfd < 0) return SystemError("memfd_create");
  // Sealed before the client sees it: a client that could shrink the file
  // would make the daemon's next access to the mapping a SIGBUS.
  if (ftruncate(memfd, static_cast<off_t>(kRegionSize)) != 0 ||
      fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    Error error = SystemError("sizing and sealing the memfd");
    close(memfd);
    return error;
  }
  void* base = mmap(nullptr, kRegionSize, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
  if (base == MAP_FAILED) {
    Error error = SystemError("mmap");
    close(memfd);
    return error;
  }
  *fd = memfd;
  return Region(static_cast<std::uint8_t*>(base), true);
}

Result<Region> Region::Map(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return SystemError("fstat");
  if (static_cast<std::size_t>(st.st_size) != kRegionSize) {
    return MakeError(CKR_DEVICE_ERROR, "shared-memory ring of " + std::to_string(st.st_size) +
                                           " bytes, expected " + std::to_string(kRegionSize));
  }
  void* base = mmap(nullptr, kRegionSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) return SystemError("mmap");
  return Region(static_cast<std::uint8_t*>(base), true);
}

Region Region::Over(std::span<std::uint8_t> memory) { return Region(memory.data(), false); }

Region::Region(Region&& other) noexcept : base_(other.base_), owned_(other.owned_) {
  other.base_ = nullptr;
  other.owned_ = false;
}

Region& Region::operator=(Region&& other) noexcept {
  if (this != &other) {
    if (owned_) munmap(base_, kRegionSize);
    base_ = other.base_;
    owned_ = other.owned_;
    other.base_ = nullptr;
    other.owned_ = false;
  }
  return *this;
}

Region::~Region() {
  if (owned_) munmap(base_, kRegionSize);
}

// ---------------------------------------------------------------- ServerRing

void ServerRing::Initialize() {
  Header& h = region_.header();
  h.magic = kMagic;
  h.version = kVersion;
  h.slot_count = kSlotCount;
  h.slot_size = static_cast<std::uint32_t>(kSlotSize);
  h.submit_tail.store(0, std::memory_order_relaxed);
  h.submit_head.store(0, std::memory_order_relaxed);
  h.daemon_polling.store(0, std::memory_order_relaxed);
  h.closed.store(0, std::memory_order_relaxed);
}

namespace {

// HintedCpu: the CPU a slot's client_cpu word names (base::kAnyCpu: none).
int HintedCpu(const SlotHeader& slot) {
  const std::uint32_t cpu_plus_one = slot.client_cpu.load(std::memory_order_relaxed);
  if (cpu_plus_one == 0 ||
      cpu_plus_one > static_cast<std::uint32_t>(std::numeric_limits<int>::max()))
    return base::kAnyCpu;
  return static_cast<int>(cpu_plus_one) - 1;
}

}  // namespace

ServerRing::ServerRing(Region region) : region_(std::move(region)) { waiting_.reserve(kSlotCount); }

bool ServerRing::Collect(const char** why) {
  Header& h = region_.header();
  // Every word below is the client's: read once, checked, then used.
  const std::uint32_t tail = h.submit_tail.load(std::memory_order_seq_cst);
  std::uint32_t head = head_.load(std::memory_order_relaxed);
  if (tail - head > kSlotCount - waiting_.size()) {
    *why = "more submissions than slots";
    return false;
  }
  for (; head != tail; ++head) {
    const std::uint32_t index = h.queue[head % kSlotCount].load(std::memory_order_relaxed);
    if (index >= kSlotCount) {
      *why = "slot number out of range";
      return false;
    }
    waiting_.push_back(Waiting{index, HintedCpu(region_.slot(index))});
  }
  head_.store(head, std::memory_order_relaxed);
  waiting_count_.store(static_cast<std::uint32_t>(waiting_.size()), std::memory_order_relaxed);
  h.submit_head.store(head, std::memory_order_release);
  return true;
}

ServerRing::Take ServerRing::TakeNext(std::uint32_t* slot, SecureBytes* payload, const char** why,
                                      int here) {
  if (!Collect(why)) return Take::kCorrupt;
  if (waiting_.empty()) return Take::kEmpty;
  auto pick = base::PickLocalFirst(waiting_, here);
  const std::uint32_t index = pick->slot;
  const int cpu = pick->cpu;
  waiting_.erase(pick);
  waiting_count_.store(static_cast<std::uint32_t>(waiting_.size()), std::memory_order_relaxed);
  SlotHeader& s = region_.slot(index);
  std::uint32_t expected = kSubmitted;
  if (!s.state.compare_exchange_strong(expected, kTaken, std::memory_order_acq_rel)) {
    *why = "submitted slot is not in the submitted state";
    return Take::kCorrupt;
  }
  const std::uint32_t length = s.request_length.load(std::memory_order_relaxed);
  if (length == 0 || length > kSlotCapacity) {
    *why = "request length out of range";
    return Take::kCorrupt;
  }
  // One copy, then parse only the copy: the client may rewrite the slot at
  // any moment. The slot's request may carry a PIN: wipe it there.
  std::uint8_t* bytes = region_.payload(index);
  payload->assign(bytes, bytes + length);
  explicit_bzero(bytes, length);
  last_cpu_.store(cpu, std::memory_order_relaxed);
  *slot = index;
  return Take::kRequest;
}

bool ServerRing::Pending() const {
  return region_.header().submit_tail.load(std::memory_order_seq_cst) !=
             head_.load(std::memory_order_relaxed) ||
         waiting_count_.load(std::memory_order_relaxed) != 0;
}

void ServerRing::SetPolling(bool polling) {
  region_.header().daemon_polling.store(polling ? 1 : 0, std::memory_order_seq_cst);
}

void ServerRing::Finish(std::uint32_t slot, SlotState state) {
  SlotHeader& s = region_.slot(slot);
  s.state.store(state, std::memory_order_seq_cst);
  // Paired with the client's waiter store then state load (both seq_cst):
  // one side always sees the other, so a sleeper is never missed, and a
  // client that is still spinning costs no system call.
  if (s.waiter.load(std::memory_order_seq_cst) != 0) WakeWord(s.state);
}

bool ServerRing::Reply(std::uint32_t slot, std::span<const std::uint8_t> reply) {
  if (reply.size() > kSlotCapacity) return false;
  std::memcpy(region_.payload(slot), reply.data(), reply.size());
  region_.slot(slot).reply_length.store(static_cast<std::uint32_t>(reply.size()),
                                        std::memory_order_relaxed);
  Finish(slot, kReplied);
  return true;
}

void ServerRing::ReplyOnSocket(std::uint32_t slot) { Finish(slot, kReplyOnSocket); }

void ServerRing::Close() {
  region_.header().closed.store(1, std::memory_order_seq_cst);
  for (std::uint32_t i = 0; i < kSlotCount; ++i) {
    if (region_.slot(i).waiter.load(std::memory_order_seq_cst) != 0)
      WakeWord(region_.slot(i).state);
  }
}

// ---------------------------------------------------------------- ClientRing

Result<std::unique_ptr<ClientRing>> ClientRing::Attach(Region region) {
  const Header& h = region.header();
  if (h.magic != kMagic || h.version != kVersion || h.slot_count != kSlotCount ||
      h.slot_size != kSlotSize) {
    return MakeError(CKR_DEVICE_ERROR, "shared-memory ring has another layout");
  }
  return std::unique_ptr<ClientRing>(new ClientRing(std::move(region)));
}

ClientRing::ClientRing(Region region) : region_(std::move(region)) {
  base::MutexLock lock(&mu_);
  for (std::uint32_t i = kSlotCount; i > 0; --i) free_.push_back(i - 1);
}

std::optional<std::uint32_t> ClientRing::Acquire() {
  base::MutexLock lock(&mu_);
  if (free_.empty()) return std::nullopt;
  std::uint32_t slot = free_.back();
  free_.pop_back();
  return slot;
}

void ClientRing::Submit(std::uint32_t slot, std::span<const std::uint8_t> payload) {
  SlotHeader& s = region_.slot(slot);
  std::memcpy(region_.payload(slot), payload.data(), payload.size());
  s.request_length.store(static_cast<std::uint32_t>(payload.size()), std::memory_order_relaxed);
  s.reply_length.store(0, std::memory_order_relaxed);
  s.client_cpu.store(static_cast<std::uint32_t>(sched_getcpu() + 1), std::memory_order_relaxed);
  s.state.store(kSubmitted, std::memory_order_release);
  {
    base::MutexLock lock(&mu_);
    Header& h = region_.header();
    h.queue[tail_ % kSlotCount].store(slot, std::memory_order_relaxed);
    ++tail_;
    h.submit_tail.store(tail_, std::memory_order_seq_cst);
  }
  unannounced_.store(true, std::memory_order_seq_cst);
}

bool ClientRing::NeedsDoorbell() {
  if (!unannounced_.exchange(false, std::memory_order_seq_cst)) return false;
  // Paired with the daemon's SetPolling(false) then Pending(): if the
  // daemon's check missed our submission, this load sees polling == 0.
  return region_.header().daemon_polling.load(std::memory_order_seq_cst) == 0;
}

ClientRing::Wait ClientRing::WaitFor(std::uint32_t slot, std::chrono::microseconds timeout,
                                     std::chrono::nanoseconds spin_for) {
  using Clock = std::chrono::steady_clock;
  SlotHeader& s = region_.slot(slot);
  const bool may_spin = MaySpin();
  struct Leave {
    ~Leave() { g_waiting.fetch_sub(1, std::memory_order_relaxed); }
  } leave;
  const auto deadline = Clock::now() + timeout;
  std::uint32_t state = kTaken;
  // sleep: on the futex, woken by the daemon (waiter = 1), until `until`.
  auto sleep = [&](Clock::time_point until) {
    s.waiter.store(1, std::memory_order_seq_cst);
    for (;;) {
      state = s.state.load(std::memory_order_seq_cst);
      if (Answered(state) || closed()) break;
      const auto now = Clock::now();
      if (now >= until) break;
      WaitWord(s.state, state, std::chrono::duration_cast<std::chrono::microseconds>(until - now));
    }
    s.waiter.store(0, std::memory_order_seq_cst);
  };
  // spin: watch the slot, no system call, until `until`.
  auto spin = [&](Clock::time_point until) {
    do {
      for (int i = 0; i < 64; ++i) {
        state = s.state.load(std::memory_order_seq_cst);
        if (Answered(state)) return;
        CpuRelax();
      }
    } while (Clock::now() < until);
  };
  if (may_spin && spin_for.count() > 0) spin(std::min(deadline, Clock::now() + spin_for));
  if (!Answered(state) && !closed()) sleep(deadline);
  if (Answered(state)) return state == kReplied ? Wait::kReplied : Wait::kReplyOnSocket;
  return closed() ? Wait::kClosed : Wait::kTimeout;
}

std::span<const std::uint8_t> ClientRing::ReplyPayload(std::uint32_t slot) const {
  std::uint32_t length = region_.slot(slot).reply_length.load(std::memory_order_acquire);
  return {region_.payload(slot), std::min<std::size_t>(length, kSlotCapacity)};
}

void ClientRing::Release(std::uint32_t slot) {
  SlotHeader& s = region_.slot(slot);
  std::size_t used = std::max(s.request_length.load(std::memory_order_relaxed),
                              s.reply_length.load(std::memory_order_relaxed));
  explicit_bzero(region_.payload(slot), std::min(used, kSlotCapacity));
  s.state.store(kFree, std::memory_order_release);
  base::MutexLock lock(&mu_);
  free_.push_back(slot);
}

bool ClientRing::closed() const {
  return region_.header().closed.load(std::memory_order_seq_cst) != 0;
}

}  // namespace signet::proto::ring
