// Internal to crypto/: ready-to-use signing contexts for one private key.
//
// OpenSSL 3.0 pays for an algorithm fetch, a method-store lock and a digest
// fetch by name every time a fresh EVP_PKEY_CTX is initialised for signing;
// for ECDSA that is ~15% of a signature. A context that has been initialised
// once can sign again and again, so each PrivateKey keeps a small pool of
// them per parameter set. A worker leases one, signs, and hands it back.
//
// Thread-safe: many threads may Acquire from one pool at once (a mutex held
// only to pop or push a pointer). A leased context is used by one thread.
// The pool belongs to the PrivateKey (and its copies) and dies with it, so
// pooled contexts never keep a key alive after the key is dropped.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "base/mutex.h"
#include "crypto/ossl_ptr.h"
#include "signet/result.hpp"

namespace signet::crypto::internal {

class SignContextPool {
 public:
  // kMaxIdlePerParams bounds the idle contexts kept per parameter set; it
  // is above any sensible worker count, so steady state never allocates.
  static constexpr std::size_t kMaxIdlePerParams = 64;

  // Lease: one context, returned to the pool on destruction unless
  // Discard() was called (after a failed operation its state is unknown).
  class Lease {
   public:
    Lease(SignContextPool* pool, std::uint64_t params_key, EvpPkeyCtxPtr ctx)
        : pool_(pool), params_key_(params_key), ctx_(std::move(ctx)) {}
    Lease(Lease&&) = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (ctx_) pool_->Release(params_key_, std::move(ctx_));
    }
    EVP_PKEY_CTX* get() const { return ctx_.get(); }
    void Discard() { ctx_.reset(); }

   private:
    SignContextPool* pool_;
    std::uint64_t params_key_;
    EvpPkeyCtxPtr ctx_;
  };

  // Acquire leases an idle context for `params_key` (any value that fully
  // identifies how the context was configured), or calls `make` for a new
  // one when none is idle; `make`'s error is returned as is.
  Result<Lease> Acquire(std::uint64_t params_key,
                        const std::function<Result<EvpPkeyCtxPtr>()>& make) EXCLUDES(mu_);

  // IdleCount: idle contexts for `params_key`, for tests.
  std::size_t IdleCount(std::uint64_t params_key) EXCLUDES(mu_);

 private:
  void Release(std::uint64_t params_key, EvpPkeyCtxPtr ctx) EXCLUDES(mu_);

  base::Mutex mu_;
  std::map<std::uint64_t, std::vector<EvpPkeyCtxPtr>> idle_ GUARDED_BY(mu_);
};

}  // namespace signet::crypto::internal
