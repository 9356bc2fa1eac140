// Micro-benchmark of a split RSA signature's phases against OpenSSL's own
// whole signature: what the critical path of a lone split signature costs
// (Start + one half + Finish) next to crypto::Sign.
//   build/bench/crypto_rsa_crt_bench --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include "crypto/rsa_crt.h"

namespace signet::crypto {
namespace {

const PrivateKey& Key(int bits) {
  static PrivateKey k2048 = *PrivateKey::Generate(KeySpec{KeyType::kRsa, 2048});
  static PrivateKey k4096 = *PrivateKey::Generate(KeySpec{KeyType::kRsa, 4096});
  return bits == 2048 ? k2048 : k4096;
}

const SignParams kParams{.scheme = SignScheme::kRsaPkcs1, .digest = DigestAlg::kSha256};

void WholeSign(benchmark::State& state) {
  const PrivateKey& key = Key(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(Sign(key, kParams, AsBytes("m")));
}

void SplitStart(benchmark::State& state) {
  auto crt = *RsaCrtKey::Create(Key(static_cast<int>(state.range(0))));
  for (auto _ : state) benchmark::DoNotOptimize(SplitRsaSignature::Start(crt, kParams, AsBytes("m")));
}

void SplitHalf(benchmark::State& state) {
  auto crt = *RsaCrtKey::Create(Key(static_cast<int>(state.range(0))));
  auto split = *SplitRsaSignature::Start(crt, kParams, AsBytes("m"));
  for (auto _ : state) split->ComputeHalf(0);
}

void SplitFinish(benchmark::State& state) {
  auto crt = *RsaCrtKey::Create(Key(static_cast<int>(state.range(0))));
  auto split = *SplitRsaSignature::Start(crt, kParams, AsBytes("m"));
  split->ComputeHalf(0);
  split->ComputeHalf(1);
  for (auto _ : state) benchmark::DoNotOptimize(split->Finish());
}

BENCHMARK(WholeSign)->Arg(2048)->Arg(4096)->Unit(benchmark::kMicrosecond);
BENCHMARK(SplitStart)->Arg(2048)->Arg(4096)->Unit(benchmark::kMicrosecond);
BENCHMARK(SplitHalf)->Arg(2048)->Arg(4096)->Unit(benchmark::kMicrosecond);
BENCHMARK(SplitFinish)->Arg(2048)->Arg(4096)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace signet::crypto

BENCHMARK_MAIN();
