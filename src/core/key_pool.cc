#include "core/key_pool.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>

#include "core/object.h"
#include "core/stats.h"
#include "core/token_slot.h"

namespace signet::core {
namespace {

// How long a generator waits before looking again when every pool is full
// or no token is unlocked (a login does not wake it; a take does).
constexpr auto kRecheckInterval = std::chrono::milliseconds(250);
// How long it backs off while client requests are queued.
constexpr auto kBusyBackoff = std::chrono::milliseconds(2);

// LowerThreadPriority puts the calling thread below every normal thread:
// SCHED_IDLE runs it only on CPU time nobody else wants, and nice 19 is the
// fallback where SCHED_IDLE is refused. Both are best effort.
void LowerThreadPriority() {
  (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 19);
  sched_param param{};
  (void)::pthread_setschedparam(::pthread_self(), SCHED_IDLE, &param);
}

Result<PoolTarget> ParseOneTarget(std::string_view item) {
  auto eq = item.find('=');
  if (eq == std::string_view::npos) {
    return MakeError(CKR_ARGUMENTS_BAD, "pool entry '" + std::string(item) + "' needs =COUNT");
  }
  PoolTarget target;
  SIGNET_ASSIGN_OR_RETURN(target.spec, crypto::ParseKeySpec(item.substr(0, eq)));
  SIGNET_TRY(CheckDaemonKeyType(target.spec.type));
  if (target.spec.type == crypto::KeyType::kRsa &&
      (target.spec.rsa_bits < 1024 || target.spec.rsa_bits > 4096)) {
    return MakeError(CKR_ARGUMENTS_BAD, "pooled RSA keys are 1024-4096 bits");
  }
  std::string_view count = item.substr(eq + 1);
  auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), target.target);
  if (ec != std::errc() || end != count.data() + count.size() || target.target == 0 ||
      target.target > kMaxPoolTarget) {
    return MakeError(CKR_ARGUMENTS_BAD, "pool count '" + std::string(count) + "' must be 1-" +
                                            std::to_string(kMaxPoolTarget));
  }
  target.name = crypto::KeySpecName(target.spec);
  return target;
}

bool SameSpec(const crypto::KeySpec& a, const crypto::KeySpec& b) {
  return a.type == b.type && (a.type != crypto::KeyType::kRsa || a.rsa_bits == b.rsa_bits);
}

// CanFill: the token has its pool key, so entries can be sealed to it with
// nobody logged in (keystore Token::CanFillPool).
bool CanFill(TokenSlot& slot) { return slot.token().CanFillPool(); }

}  // namespace

Result<std::vector<PoolTarget>> ParsePoolConfig(std::string_view text) {
  std::vector<PoolTarget> targets;
  if (text.empty() || text == "off") return targets;
  for (;;) {
    auto comma = text.find(',');
    SIGNET_ASSIGN_OR_RETURN(PoolTarget target, ParseOneTarget(text.substr(0, comma)));
    for (const auto& other : targets) {
      if (SameSpec(other.spec, target.spec)) {
        return MakeError(CKR_ARGUMENTS_BAD, "pool type " + target.name + " given twice");
      }
    }
    targets.push_back(std::move(target));
    if (comma == std::string_view::npos) return targets;
    text = text.substr(comma + 1);  // "a=1," leaves "" and fails above
  }
}

KeyPool::KeyPool(SlotList slots, Options options)
    : slots_(std::move(slots)),
      targets_(std::move(options.targets)),
      client_work_queued_(std::move(options.client_work_queued)),
      counters_(targets_.size()) {
  DiscoverSlots();  // sizes are known before the first GetStats, also of locked tokens
  if (targets_.empty()) return;
  for (std::size_t i = 0; i < std::max<std::size_t>(1, options.threads); ++i) {
    threads_.emplace_back([this] { GeneratorLoop(); });
  }
}

KeyPool::~KeyPool() { Stop(); }

void KeyPool::Stop() {
  {
    base::MutexLock lock(&mu_);
    stopping_ = true;
  }
  wake_.SignalAll();
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

const PoolTarget* KeyPool::Find(const crypto::KeySpec& spec) const {
  for (const auto& target : targets_) {
    if (SameSpec(target.spec, spec)) return &target;
  }
  return nullptr;
}

std::size_t KeyPool::IndexOf(const std::string& name) const {
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    if (targets_[i].name == name) return i;
  }
  return targets_.size();
}

void KeyPool::RecordTake(CK_SLOT_ID slot, const std::string& name) {
  std::size_t index = IndexOf(name);
  if (index == targets_.size()) return;
  {
    base::MutexLock lock(&mu_);
    ++counters_[index].taken;
    auto it = sizes_.find(slot);
    if (it != sizes_.end() && it->second[index] > 0) --it->second[index];
    ++wake_seq_;
  }
  wake_.Signal();
}

void KeyPool::RecordMiss(const std::string& name) {
  std::size_t index = IndexOf(name);
  if (index == targets_.size()) return;
  base::MutexLock lock(&mu_);
  ++counters_[index].misses;
}

bool KeyPool::FullLocked() const {
  for (const auto& [id, sizes] : sizes_) {
    TokenSlot* slot = FindSlot(id);
    if (slot == nullptr || !CanFill(*slot)) continue;
    for (std::size_t i = 0; i < targets_.size(); ++i) {
      if (sizes[i] < targets_[i].target) return false;
    }
  }
  return true;
}

bool KeyPool::WaitUntilFull(std::chrono::milliseconds timeout) {
  DiscoverSlots();
  base::MutexLock lock(&mu_);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!FullLocked()) {
    if (!stored_.WaitUntil(&mu_, deadline)) return FullLocked();
  }
  return true;
}

std::vector<PoolTypeStats> KeyPool::Stats() const {
  std::vector<PoolTypeStats> out;
  base::MutexLock lock(&mu_);
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    PoolTypeStats stats;
    stats.name = targets_[i].name;
    stats.target = targets_[i].target;
    for (const auto& [slot, sizes] : sizes_) stats.size += sizes[i];
    stats.generated = counters_[i].generated;
    stats.taken = counters_[i].taken;
    stats.misses = counters_[i].misses;
    stats.generate_ns = counters_[i].generate_ns;
    out.push_back(std::move(stats));
  }
  return out;
}

TokenSlot* KeyPool::FindSlot(CK_SLOT_ID id) const {
  for (TokenSlot* slot : slots_()) {
    if (slot->id() == id) return slot;
  }
  return nullptr;
}

void KeyPool::DiscoverSlots() {
  // A token's pool size is read from its database once, when the token is
  // first seen (at start, or after InitToken made it); from then on every
  // change goes through this KeyPool (RunJob's store, RecordTake), so the
  // counts stay exact without re-reading. The read happens with no lock
  // held (it may wait for a keystore write).
  for (TokenSlot* slot : slots_()) {
    const CK_SLOT_ID id = slot->id();
    {
      base::MutexLock lock(&mu_);
      if (sizes_.contains(id)) continue;
    }
    auto counts = slot->token().PoolCounts();
    if (!counts.ok()) continue;
    std::vector<std::size_t> sizes(targets_.size(), 0);
    for (std::size_t i = 0; i < targets_.size(); ++i) {
      auto it = counts->find(targets_[i].name);
      if (it != counts->end()) sizes[i] = it->second;
    }
    base::MutexLock lock(&mu_);
    sizes_.emplace(id, std::move(sizes));
    pending_.emplace(id, std::vector<std::size_t>(targets_.size(), 0));
  }
}

std::optional<KeyPool::Job> KeyPool::NextJob() {
  DiscoverSlots();
  base::MutexLock lock(&mu_);
  std::optional<Job> best;
  double best_fill = 1.0;
  for (const auto& [id, sizes] : sizes_) {
    TokenSlot* slot = FindSlot(id);
    if (slot == nullptr || !CanFill(*slot)) continue;
    for (std::size_t i = 0; i < targets_.size(); ++i) {
      double fill =
          static_cast<double>(sizes[i] + pending_[id][i]) / static_cast<double>(targets_[i].target);
      if (fill < best_fill) {
        best_fill = fill;
        best = Job{slot, i};
      }
    }
  }
  if (best) ++pending_[best->slot->id()][best->pool];
  return best;
}

bool KeyPool::RunJob(const Job& job) {
  const PoolTarget& target = targets_[job.pool];
  std::uint64_t start = NowNs();
  // One Generate per key: fresh DRBG output, nothing shared between keys.
  auto stored = [&]() -> Status {
    SIGNET_ASSIGN_OR_RETURN(crypto::PrivateKey key, crypto::PrivateKey::Generate(target.spec));
    SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey public_key, key.Public());
    SIGNET_ASSIGN_OR_RETURN(AttributeMap derived, PublicKeyAttributes(public_key));
    SIGNET_ASSIGN_OR_RETURN(SecureBytes der, key.ToPkcs8Der());
    return job.slot->token().StorePoolKey(target.name, der, derived);
  }();
  std::uint64_t elapsed = NowNs() - start;
  base::MutexLock lock(&mu_);
  --pending_[job.slot->id()][job.pool];
  if (!stored.ok()) {
    // The keystore refused (a full disk, say): the key is dropped (zeroised
    // with its SecureBytes) and the job is tried again later.
    return false;
  }
  ++sizes_[job.slot->id()][job.pool];
  ++counters_[job.pool].generated;
  counters_[job.pool].generate_ns += elapsed;
  stored_.SignalAll();
  return true;
}

bool KeyPool::ClientWorkQueued() const { return client_work_queued_ && client_work_queued_(); }

void KeyPool::GeneratorLoop() {
  LowerThreadPriority();
  for (;;) {
    std::uint64_t seen;
    {
      base::MutexLock lock(&mu_);
      if (stopping_) return;
      seen = wake_seq_;
    }
    if (ClientWorkQueued()) {
      base::MutexLock lock(&mu_);
      const auto deadline = std::chrono::steady_clock::now() + kBusyBackoff;
      while (!stopping_) {
        if (!wake_.WaitUntil(&mu_, deadline)) break;  // backed off long enough
      }
      continue;
    }
    std::optional<Job> job = NextJob();
    if (job && RunJob(*job)) continue;
    // Everything full, no token with a pool key, or a failed store: look again
    // after a take or the recheck interval.
    base::MutexLock lock(&mu_);
    const auto deadline = std::chrono::steady_clock::now() + kRecheckInterval;
    while (!stopping_ && wake_seq_ == seen) {
      if (!wake_.WaitUntil(&mu_, deadline)) break;  // time to look again
    }
  }
}

}  // namespace signet::core
