#include "bench/load_generator.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <vector>

namespace signet::bench {
namespace {

TEST(LoadGenerator, ClientsTogetherDoEachOperationOnce) {
  constexpr std::uint64_t kN = 200;
  auto seen = std::make_unique<std::atomic<int>[]>(kN);
  std::atomic<int> factories{0};
  WorkerFactory factory = [&](int) -> Result<Operation> {
    factories.fetch_add(1);
    return Operation([&](std::uint64_t index) {
      seen[index].fetch_add(1);
      return OkStatus();
    });
  };
  std::uint64_t last_progress = 0;
  auto run = RunLoad({"noop", 3, kN}, factory, [&](std::uint64_t d) { last_progress = d; });
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(factories.load(), 3);
  for (std::uint64_t i = 0; i < kN; ++i) EXPECT_EQ(seen[i].load(), 1) << i;
  EXPECT_EQ(run->algo, "noop");
  EXPECT_EQ(run->n, kN);
  EXPECT_EQ(run->clients, 3);
  EXPECT_EQ(run->latencies_s.size(), kN);
  EXPECT_GE(run->t1, run->t0);
  EXPECT_EQ(last_progress, kN);
  for (double latency : run->latencies_s) EXPECT_GE(latency, 0);
}

TEST(LoadGenerator, FirstOperationErrorStopsTheLoad) {
  WorkerFactory factory = [](int) -> Result<Operation> {
    return Operation([](std::uint64_t index) -> Status {
      if (index == 10) return MakeError(CKR_SIGNATURE_INVALID, "bad signature");
      return OkStatus();
    });
  };
  auto run = RunLoad({"x", 2, 1000}, factory);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code, CKR_SIGNATURE_INVALID);
  EXPECT_NE(run.error().message.find("client "), std::string::npos);
  EXPECT_NE(run.error().message.find("bad signature"), std::string::npos);
}

TEST(LoadGenerator, FactoryErrorAbortsBeforeAnyOperation) {
  std::atomic<int> ops{0};
  WorkerFactory factory = [&](int client) -> Result<Operation> {
    if (client == 1) return MakeError(CKR_DEVICE_ERROR, "cannot connect");
    return Operation([&](std::uint64_t) {
      ops.fetch_add(1);
      return OkStatus();
    });
  };
  auto run = RunLoad({"x", 2, 50}, factory);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code, CKR_DEVICE_ERROR);
  EXPECT_EQ(ops.load(), 0);
}

TEST(LoadGenerator, RejectsEmptyLoads) {
  WorkerFactory factory = [](int) -> Result<Operation> {
    return Operation([](std::uint64_t) { return OkStatus(); });
  };
  EXPECT_EQ(RunLoad({"x", 0, 10}, factory).error().code, CKR_ARGUMENTS_BAD);
  EXPECT_EQ(RunLoad({"x", 1, 0}, factory).error().code, CKR_ARGUMENTS_BAD);
}

}  // namespace
}  // namespace signet::bench
