// RsaSplitter: signs with RSA by running the two CRT half-exponentiations
// on two workers when one is idle, roughly halving a lone signature's
// latency (the seeds' two ModExp cores per signature). Under load no worker
// is idle and the caller signs normally, so throughput is unaffected.
//
// Only keys of kMinSplitBits and more are split: for RSA-2048, OpenSSL 3.0
// on AVX-512 IFMA computes both 1024-bit halves in one fused call, faster
// than one separate half (docs/DESIGN.md, "RSA on two cores"); measured on
// this machine, daemon c = 1 RSA-4096 p50 went from 4.3 ms (raw) to 2.8 ms
// split, while a split RSA-2048 was twice as slow.
//
// The split signature keeps blinding on and is checked against the public
// key before release (crypto/rsa_crt.h). The per-key CRT contexts are cached
// beside the keystore's unwrapped key and dropped with it.
//
// Thread contract: TrySign may be called from any worker concurrently.
#pragma once

#include <memory>
#include <optional>
#include <unordered_map>

#include "base/mutex.h"
#include "core/scheduler.h"
#include "crypto/rsa_crt.h"
#include "keystore/token.h"

namespace signet::core {

class RsaSplitter {
 public:
  static constexpr int kMinSplitBits = 3072;

  // RsaSplitter borrows `pool`, which must outlive it.
  explicit RsaSplitter(Scheduler* pool) : pool_(pool) {}

  // TrySign returns the signature when a split was possible (an RSA key and
  // an idle worker), or nullopt: then the caller signs on its own thread.
  std::optional<Result<Bytes>> TrySign(
      const std::shared_ptr<const keystore::UnwrappedKey>& key, const crypto::SignParams& params,
      ByteView input);

 private:
  Result<std::shared_ptr<const crypto::RsaCrtKey>> CrtKeyFor(
      const std::shared_ptr<const keystore::UnwrappedKey>& key) EXCLUDES(mu_);

  struct Entry {
    std::weak_ptr<const keystore::UnwrappedKey> owner;
    std::shared_ptr<const crypto::RsaCrtKey> crt;
  };

  Scheduler* pool_;
  base::Mutex mu_;
  std::unordered_map<const keystore::UnwrappedKey*, Entry> cache_ GUARDED_BY(mu_);
};

}  // namespace signet::core
