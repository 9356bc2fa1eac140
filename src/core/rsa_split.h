// RsaSplitter: signs with RSA by running the two CRT half-exponentiations
// on two workers when one is idle, roughly halving a lone signature's
// latency (the seeds' two ModExp cores per signature). Under load no worker
// is idle and the caller signs normally, so throughput is unaffected.
//
// The split signature keeps blinding on and is checked against the public
// key before release (crypto/rsa_crt.h). The per-key CRT contexts are cached
// beside the keystore's unwrapped key and dropped with it.
//
// Thread contract: TrySign may be called from any worker concurrently.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "core/scheduler.h"
#include "crypto/rsa_crt.h"
#include "keystore/token.h"

namespace signet::core {

class RsaSplitter {
 public:
  // RsaSplitter borrows `pool`, which must outlive it.
  explicit RsaSplitter(Scheduler* pool) : pool_(pool) {}

  // TrySign returns the signature when a split was possible (an RSA key and
  // an idle worker), or nullopt: then the caller signs on its own thread.
  std::optional<Result<crypto::Bytes>> TrySign(
      const std::shared_ptr<const keystore::UnwrappedKey>& key, const crypto::SignParams& params,
      crypto::ByteView input);

 private:
  Result<std::shared_ptr<const crypto::RsaCrtKey>> CrtKeyFor(
      const std::shared_ptr<const keystore::UnwrappedKey>& key);

  struct Entry {
    std::weak_ptr<const keystore::UnwrappedKey> owner;
    std::shared_ptr<const crypto::RsaCrtKey> crt;
  };

  Scheduler* pool_;
  std::mutex mu_;
  std::unordered_map<const keystore::UnwrappedKey*, Entry> cache_;
};

}  // namespace signet::core
