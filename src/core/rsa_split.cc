#include "core/rsa_split.h"

#include <atomic>
#include <future>

namespace signet::core {
namespace {

// Bound on cached CRT contexts; past it, entries whose key is gone are
// swept, and if all are alive the cache starts over (the keystore's own LRU
// bounds how many keys are alive at once).
constexpr std::size_t kMaxEntries = 4096;

}  // namespace

Result<std::shared_ptr<const crypto::RsaCrtKey>> RsaSplitter::CrtKeyFor(
    const std::shared_ptr<const keystore::UnwrappedKey>& key) {
  {
    base::MutexLock lock(&mu_);
    auto it = cache_.find(key.get());
    if (it != cache_.end() && it->second.owner.lock() == key) return it->second.crt;
  }
  SIGNET_ASSIGN_OR_RETURN(auto crt, crypto::RsaCrtKey::Create(*key->private_key));
  base::MutexLock lock(&mu_);
  if (cache_.size() >= kMaxEntries) {
    std::erase_if(cache_, [](const auto& kv) { return kv.second.owner.expired(); });
    if (cache_.size() >= kMaxEntries) cache_.clear();
  }
  cache_[key.get()] = Entry{key, crt};
  return crt;
}

std::optional<Result<Bytes>> RsaSplitter::TrySign(
    const std::shared_ptr<const keystore::UnwrappedKey>& key, const crypto::SignParams& params,
    ByteView input) {
  if (pool_ == nullptr || !key->private_key ||
      key->private_key->spec().type != crypto::KeyType::kRsa ||
      key->private_key->spec().rsa_bits < kMinSplitBits) {
    return std::nullopt;
  }
  auto crt = CrtKeyFor(key);
  if (!crt.ok()) return std::nullopt;
  auto started = crypto::SplitRsaSignature::Start(*crt, params, input);
  if (!started.ok()) return Result<Bytes>(std::move(started).error());
  // Whoever claims half 1 first computes it: the helper if it starts soon,
  // otherwise this thread after half 0. So a late helper never stalls us.
  struct Shared {
    std::unique_ptr<crypto::SplitRsaSignature> sig;
    std::atomic<bool> claimed{false};
    std::promise<void> done;
  };
  auto shared = std::make_shared<Shared>();
  shared->sig = std::move(*started);
  std::future<void> helper_done = shared->done.get_future();
  bool offered = pool_->TryRunOnIdleWorker([shared] {
    if (!shared->claimed.exchange(true)) shared->sig->ComputeHalf(1);
    shared->done.set_value();
  });
  if (!offered) {
    // No idle worker after all: compute both halves here.
    shared->sig->ComputeHalf(0);
    shared->sig->ComputeHalf(1);
    return shared->sig->Finish();
  }
  shared->sig->ComputeHalf(0);
  if (!shared->claimed.exchange(true)) {
    shared->sig->ComputeHalf(1);
    return shared->sig->Finish();  // the helper will find half 1 claimed
  }
  helper_done.wait();
  return shared->sig->Finish();
}

}  // namespace signet::core
