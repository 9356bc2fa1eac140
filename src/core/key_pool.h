// KeyPool: pre-generated key pairs per configured key type, so that a
// C_GenerateKeyPair for a pooled type costs a database transaction instead
// of a key generation (seed 003: RSA-2048 creation took seconds).
//
// What it guarantees:
// - Each pool entry is a fresh key (crypto::PrivateKey::Generate from the
//   DRBG, one call per key; never derived from another), stored sealed to
//   the token's pool key in the keystore's key_pool table (a restart keeps
//   it), invisible to clients, and handed out exactly once (keystore
//   TakePoolKey / ClaimPoolKey run in one transaction).
// - Pool work never holds back client requests: the generator threads run at
//   the lowest CPU priority (SCHED_IDLE, nice 19), do no work on the
//   scheduler's workers, and start a key only while no client request is
//   queued (Options::client_work_queued).
// - Pools are per token and fill from the daemon's start, with nobody
//   logged in: an entry is sealed to the token's pool public key, and only
//   a login (the KEK unwraps the pool private key) opens it, at the take
//   (docs/DESIGN.md "The key pool"). A token made before sealed pools fills
//   after its first login.
//
// Thread contract: every method may be called from any thread. The KeyPool
// must be stopped (Stop or destruction) before its SlotList's slots and
// anything Options::client_work_queued refers to are destroyed; the Hsm
// that owns it stops it in Hsm::StopKeyPool and in its destructor.
// The pool's counts are GUARDED_BY mu_ (checked by clang's -Wthread-safety,
// base/mutex.h); mu_ is held while the SlotList runs (it may take the
// Hsm's slot lock), never across key generation or a keystore call.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "crypto/keys.h"
#include "signet/result.hpp"

namespace signet::core {

class TokenSlot;

// PoolTarget: one pooled key type and how many keys each token keeps ready.
struct PoolTarget {
  std::string name;  // crypto::KeySpecName: "rsa:2048", "ec:p256", "ed25519"
  crypto::KeySpec spec;
  std::size_t target = 0;
};

// ParsePoolConfig reads signetd's --pool value: "rsa:2048=32,ec:p256=64"
// (key spec = keys per token). "" and "off" mean no pool. CKR_ARGUMENTS_BAD
// for an unknown spec, a missing or non-positive count, a count above
// kMaxPoolTarget, an RSA size a token may not hold, or a repeated type.
Result<std::vector<PoolTarget>> ParsePoolConfig(std::string_view text);

// kMaxPoolTarget: the largest count ParsePoolConfig accepts per type.
inline constexpr std::size_t kMaxPoolTarget = 100000;

// PoolTypeStats: one pooled type, summed over tokens (what GetStats shows).
struct PoolTypeStats {
  std::string name;
  std::size_t target = 0;         // per token
  std::size_t size = 0;           // ready now, all tokens
  std::uint64_t generated = 0;    // stored since start
  std::uint64_t taken = 0;        // handed out since start
  std::uint64_t misses = 0;       // matching requests that found the pool empty
  std::uint64_t generate_ns = 0;  // time spent generating the `generated` keys
};

class KeyPool {
 public:
  struct Options {
    std::vector<PoolTarget> targets;
    std::size_t threads = 1;  // generator threads
    // client_work_queued: true while client requests wait for a worker; the
    // generator does not start a key then. May be empty (never busy).
    std::function<bool()> client_work_queued;
  };

  // SlotList: the token slots there are now (slots are never removed, and
  // their ids are not contiguous: keystore/slot_ids.h). All the pool needs
  // of the HSM.
  using SlotList = std::function<std::vector<TokenSlot*>()>;

  // KeyPool starts the generator threads at once. `slots` must stay
  // callable until the pool is stopped. The Hsm owns its pool
  // (Hsm::StartKeyPool) and passes its own slot lookup: the pool knows
  // nothing else of the Hsm.
  KeyPool(SlotList slots, Options options);
  ~KeyPool();
  KeyPool(const KeyPool&) = delete;
  KeyPool& operator=(const KeyPool&) = delete;

  // Stop ends the generator threads (a key being generated is finished and
  // dropped). Idempotent; Find and Record* stay usable afterwards.
  void Stop() EXCLUDES(mu_);

  // Find returns the pool holding keys of `spec`, or nullptr.
  const PoolTarget* Find(const crypto::KeySpec& spec) const;

  // RecordTake counts a key handed out from `slot`'s pool `name` and wakes
  // the generator to refill; RecordMiss counts a matching request that found
  // the pool empty (it was generated fresh). Sizes are kept by these
  // deltas: every successful take must be recorded.
  void RecordTake(CK_SLOT_ID slot, const std::string& name) EXCLUDES(mu_);
  void RecordMiss(const std::string& name) EXCLUDES(mu_);

  // WaitUntilFull blocks until every pool of every unlocked token is at its
  // target, or `timeout` passes (false then). For tests and warm-up.
  bool WaitUntilFull(std::chrono::milliseconds timeout) EXCLUDES(mu_);

  // Stats: one entry per configured type, in configuration order.
  std::vector<PoolTypeStats> Stats() const EXCLUDES(mu_);

 private:
  struct Counters {
    std::uint64_t generated = 0;
    std::uint64_t taken = 0;
    std::uint64_t misses = 0;
    std::uint64_t generate_ns = 0;
  };
  struct Job {
    TokenSlot* slot = nullptr;
    std::size_t pool = 0;  // index into targets_
  };

  // GeneratorLoop is a generator thread's body: NextJob, RunJob, until Stop.
  void GeneratorLoop() EXCLUDES(mu_);
  // FullLocked: every unlocked token's pools are at target.
  bool FullLocked() const REQUIRES(mu_);
  // NextJob picks the emptiest pool of an unlocked token below its target
  // (counting keys other threads are generating); nullopt when all are full.
  std::optional<Job> NextJob() EXCLUDES(mu_);
  // DiscoverSlots reads the pool counts of tokens not seen before, with
  // mu_ not held (the read may wait for a keystore write).
  void DiscoverSlots() EXCLUDES(mu_);
  // RunJob generates and stores one key; false when it could not be stored.
  bool RunJob(const Job& job) EXCLUDES(mu_);
  bool ClientWorkQueued() const;
  std::size_t IndexOf(const std::string& name) const;

  // FindSlot: the slot with id `id`, or nullptr.
  TokenSlot* FindSlot(CK_SLOT_ID id) const;

  const SlotList slots_;
  const std::vector<PoolTarget> targets_;
  const std::function<bool()> client_work_queued_;

  mutable base::Mutex mu_;
  base::CondVar wake_;    // signalled by Stop and each take
  base::CondVar stored_;  // signalled after each stored key
  bool stopping_ GUARDED_BY(mu_) = false;
  std::uint64_t wake_seq_ GUARDED_BY(mu_) = 0;  // bumped by each take
  std::map<CK_SLOT_ID, std::vector<std::size_t>> sizes_ GUARDED_BY(mu_);
  std::map<CK_SLOT_ID, std::vector<std::size_t>> pending_ GUARDED_BY(mu_);
  std::vector<Counters> counters_ GUARDED_BY(mu_);
  std::vector<std::thread> threads_;  // made by the constructor, joined by Stop
};

}  // namespace signet::core
