#include "bench/parallel_line.h"

#include <gtest/gtest.h>

#include <ctime>

namespace signet::bench {
namespace {

// WallAt builds a UTC instant from calendar fields plus microseconds.
WallTime WallAt(int year, int mon, int day, int h, int m, int s, int micros) {
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = mon - 1;
  tm.tm_mday = day;
  tm.tm_hour = h;
  tm.tm_min = m;
  tm.tm_sec = s;
  return std::chrono::system_clock::from_time_t(timegm(&tm)) + std::chrono::microseconds(micros);
}

// The first line of seed 000, with four latencies whose mean is the seed's.
ParallelRun SeedRun() {
  ParallelRun run;
  run.algo = "rsa_1024";
  run.n = 1000;
  run.clients = 1;
  run.t0 = WallAt(2018, 5, 14, 0, 14, 43, 666793);
  run.t1 = WallAt(2018, 5, 14, 0, 15, 15, 729802);
  run.latencies_s = {0.030807, 0.032807, 0.031807, 0.031807};
  return run;
}

TEST(ParallelLine, ReproducesSeedLineArithmetic) {
  EXPECT_EQ(FormatParallelLine(SeedRun()),
            "rsa_1024 sigs/sec 31.1885886942 secs/sig 0:00:00.032063 mean 0:00:00.031807 "
            "(n 1000, c 1 t0 2018-05-14 00:14:43.666793 t1 2018-05-14 00:15:15.729802) "
            "p50 0:00:00.031807 p99 0:00:00.032777");
}

TEST(ParallelLine, FiguresAreNOverElapsed) {
  ParallelRun run = SeedRun();
  // Seed 000, rsa_1024 c 4: 1000 signatures in 8.257655 s.
  run.clients = 4;
  run.t0 = WallAt(2018, 5, 14, 0, 16, 0, 395804);
  run.t1 = WallAt(2018, 5, 14, 0, 16, 8, 653459);
  const ParallelFigures f = ComputeFigures(run);
  EXPECT_DOUBLE_EQ(f.sigs_per_sec, 1000 / 8.257655);
  EXPECT_DOUBLE_EQ(f.secs_per_sig, 8.257655 / 1000);
  EXPECT_NEAR(f.mean_s, 0.031807, 1e-12);
  EXPECT_EQ(FormatSigsPerSec(f.sigs_per_sec), "121.099755318");
  EXPECT_EQ(FormatDuration(f.secs_per_sig), "0:00:00.008258");  // 8257.655 us rounds up
}

TEST(ParallelLine, SmallNExactArithmetic) {
  ParallelRun run;
  run.algo = "ed25519";
  run.n = 4;
  run.clients = 2;
  run.t0 = WallAt(2024, 1, 1, 0, 0, 0, 0);
  run.t1 = run.t0 + std::chrono::milliseconds(500);
  run.latencies_s = {0.2, 0.25, 0.25, 0.3};
  EXPECT_EQ(FormatParallelLine(run),
            "ed25519 sigs/sec 8 secs/sig 0:00:00.125000 mean 0:00:00.250000 "
            "(n 4, c 2 t0 2024-01-01 00:00:00.000000 t1 2024-01-01 00:00:00.500000) "
            "p50 0:00:00.250000 p99 0:00:00.298500");
}

TEST(ParallelLine, EmptyOrZeroLengthRunsPrintZeros) {
  ParallelRun run;
  run.algo = "x";
  const ParallelFigures f = ComputeFigures(run);
  EXPECT_EQ(f.sigs_per_sec, 0);
  EXPECT_EQ(f.secs_per_sig, 0);
  EXPECT_EQ(f.mean_s, 0);
}

TEST(FormatDuration, HoursMinutesRoundingAndCarry) {
  EXPECT_EQ(FormatDuration(0), "0:00:00.000000");
  EXPECT_EQ(FormatDuration(3725.5), "1:02:05.500000");
  EXPECT_EQ(FormatDuration(1.9999996), "0:00:02.000000");
  EXPECT_EQ(FormatDuration(90000), "25:00:00.000000");
  EXPECT_EQ(FormatDuration(-1), "0:00:00.000000");
}

TEST(FormatWallTime, UtcWithMicroseconds) {
  EXPECT_EQ(FormatWallTime(WallAt(2018, 5, 14, 0, 22, 25, 726169)), "2018-05-14 00:22:25.726169");
  EXPECT_EQ(FormatWallTime(WallAt(1999, 12, 31, 23, 59, 59, 999999)), "1999-12-31 23:59:59.999999");
}

}  // namespace
}  // namespace signet::bench
