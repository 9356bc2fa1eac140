#include "crypto/sign_context_pool.h"

namespace signet::crypto::internal {

Result<SignContextPool::Lease> SignContextPool::Acquire(
    std::uint64_t params_key, const std::function<Result<EvpPkeyCtxPtr>()>& make) {
  {
    base::MutexLock lock(&mu_);
    auto it = idle_.find(params_key);
    if (it != idle_.end() && !it->second.empty()) {
      EvpPkeyCtxPtr ctx = std::move(it->second.back());
      it->second.pop_back();
      return Lease(this, params_key, std::move(ctx));
    }
  }
  SIGNET_ASSIGN_OR_RETURN(EvpPkeyCtxPtr ctx, make());
  return Lease(this, params_key, std::move(ctx));
}

void SignContextPool::Release(std::uint64_t params_key, EvpPkeyCtxPtr ctx) {
  base::MutexLock lock(&mu_);
  auto& idle = idle_[params_key];
  if (idle.size() < kMaxIdlePerParams) idle.push_back(std::move(ctx));
  // else: ctx is freed here, still under the lock but that is cheap.
}

std::size_t SignContextPool::IdleCount(std::uint64_t params_key) {
  base::MutexLock lock(&mu_);
  auto it = idle_.find(params_key);
  return it == idle_.end() ? 0 : it->second.size();
}

}  // namespace signet::crypto::internal
