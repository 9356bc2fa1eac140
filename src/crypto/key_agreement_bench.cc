// Micro-benchmark of key agreement in crypto/ alone (no daemon, no wire):
// ECDH on P-256 / P-384 / secp256k1, X25519 and X448, each computing Z
// from a private key and the other party's parsed public key, and the
// X9.63 KDF (SHA-256) over a 32-byte Z. What a C_DeriveKey pays before
// the object path; docs/PERFORMANCE.md records it.
//   build/bench/crypto_key_agreement_bench --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include "crypto/key_agreement.h"

namespace signet::crypto {
namespace {

void SharedSecret(benchmark::State& state) {
  const auto type = static_cast<KeyType>(state.range(0));
  const PrivateKey own = *PrivateKey::Generate({.type = type});
  const PublicKey peer = *PrivateKey::Generate({.type = type})->Public();
  state.SetLabel(KeySpecName({.type = type}));
  for (auto _ : state) benchmark::DoNotOptimize(EcdhSharedSecret(own, peer, false));
}
BENCHMARK(SharedSecret)
    ->Arg(static_cast<int>(KeyType::kEcP256))
    ->Arg(static_cast<int>(KeyType::kEcP384))
    ->Arg(static_cast<int>(KeyType::kEcSecp256k1))
    ->Arg(static_cast<int>(KeyType::kX25519))
    ->Arg(static_cast<int>(KeyType::kX448));

void PeerParse(benchmark::State& state) {
  const Bytes point = *PrivateKey::Generate({.type = KeyType::kEcP256})->Public()->EcPoint();
  const Bytes params = EcParamsDer(KeyType::kEcP256);
  for (auto _ : state) benchmark::DoNotOptimize(PublicKey::FromEcPoint(params, point));
}
BENCHMARK(PeerParse);

void Kdf(benchmark::State& state) {
  const Bytes z(32, 0x5a);
  for (auto _ : state) benchmark::DoNotOptimize(X963Kdf(DigestAlg::kSha256, z, {}, 32));
}
BENCHMARK(Kdf);

}  // namespace
}  // namespace signet::crypto

BENCHMARK_MAIN();
