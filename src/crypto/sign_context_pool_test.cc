// Tests for SignContextPool: contexts are reused, never shared between two
// live leases, dropped after Discard, and the idle list is bounded.
#include "crypto/sign_context_pool.h"

#include <gtest/gtest.h>

namespace signet::crypto::internal {
namespace {

// A real (unused) context, so the pool frees what it holds.
Result<EvpPkeyCtxPtr> MakeCtx(int* made) {
  ++*made;
  EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
  if (!ctx) return MakeError(CKR_HOST_MEMORY, "ctx");
  return ctx;
}

TEST(SignContextPool, ReusesAReturnedContext) {
  SignContextPool pool;
  int made = 0;
  EVP_PKEY_CTX* first = nullptr;
  {
    auto lease = pool.Acquire(1, [&] { return MakeCtx(&made); });
    ASSERT_TRUE(lease.ok());
    first = lease->get();
  }
  EXPECT_EQ(pool.IdleCount(1), 1u);
  auto again = pool.Acquire(1, [&] { return MakeCtx(&made); });
  EXPECT_EQ(again->get(), first);
  EXPECT_EQ(made, 1);
  EXPECT_EQ(pool.IdleCount(1), 0u);
}

TEST(SignContextPool, ConcurrentLeasesGetDistinctContextsPerParams) {
  SignContextPool pool;
  int made = 0;
  auto a = pool.Acquire(1, [&] { return MakeCtx(&made); });
  auto b = pool.Acquire(1, [&] { return MakeCtx(&made); });
  EXPECT_NE(a->get(), b->get());
  {
    auto released = pool.Acquire(2, [&] { return MakeCtx(&made); });
  }
  auto c = pool.Acquire(1, [&] { return MakeCtx(&made); });  // params 2's idle one is not used
  EXPECT_EQ(made, 4);
  EXPECT_EQ(pool.IdleCount(2), 1u);
}

TEST(SignContextPool, DiscardedContextIsNotReturned) {
  SignContextPool pool;
  int made = 0;
  {
    auto lease = pool.Acquire(7, [&] { return MakeCtx(&made); });
    lease->Discard();
  }
  EXPECT_EQ(pool.IdleCount(7), 0u);
}

TEST(SignContextPool, MakeErrorIsPassedThrough) {
  SignContextPool pool;
  auto lease =
      pool.Acquire(1, [] { return Result<EvpPkeyCtxPtr>(MakeError(CKR_DEVICE_ERROR, "x")); });
  ASSERT_FALSE(lease.ok());
  EXPECT_EQ(lease.error().code, CKR_DEVICE_ERROR);
}

TEST(SignContextPool, IdleListIsBounded) {
  SignContextPool pool;
  int made = 0;
  std::vector<SignContextPool::Lease> leases;
  for (std::size_t i = 0; i < SignContextPool::kMaxIdlePerParams + 5; ++i) {
    leases.push_back(std::move(*pool.Acquire(1, [&] { return MakeCtx(&made); })));
  }
  leases.clear();
  EXPECT_EQ(pool.IdleCount(1), SignContextPool::kMaxIdlePerParams);
}

}  // namespace
}  // namespace signet::crypto::internal
