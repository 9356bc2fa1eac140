#include "bench/speed.h"

#include <array>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>

#include "bench/cycle_clock.h"
#include "bench/machine_notes.h"
#include "bench/progress_bar.h"
#include "bench/report_writers.h"
#include "bench/sign_algorithms.h"
#include "bench/timed_loop.h"
#include "crypto/bulk_cipher.h"
#include "crypto/digest.h"
#include "crypto/salsa20.h"
#include "crypto/symmetric.h"

namespace signet::bench {
namespace {

using crypto::BulkCipherAlg;
using crypto::DigestAlg;

constexpr double kMiB = 1024.0 * 1024.0;

struct Durations {
  double bulk_seconds;  // per (algorithm, size)
  double sign_seconds;  // per sign table row (four per algorithm)
};

Durations DurationsFor(bool quick) { return quick ? Durations{0.005, 0.01} : Durations{0.25, 0.6}; }

// BulkKind: how a bulk row is computed.
enum class BulkKind { kDigest, kCipher, kSalsa2012 };

struct BulkAlgorithm {
  const char* display;
  BulkKind kind;
  DigestAlg digest;      // kDigest
  BulkCipherAlg cipher;  // kCipher
};

constexpr std::array<BulkAlgorithm, 8> kBulk = {{
    {"MD5", BulkKind::kDigest, DigestAlg::kMd5, {}},
    {"SHA-1", BulkKind::kDigest, DigestAlg::kSha1, {}},
    {"SHA-256", BulkKind::kDigest, DigestAlg::kSha256, {}},
    {"SHA-512", BulkKind::kDigest, DigestAlg::kSha512, {}},
    {"AES-128-CTR", BulkKind::kCipher, {}, BulkCipherAlg::kAes128Ctr},
    {"AES-256-GCM", BulkKind::kCipher, {}, BulkCipherAlg::kAes256Gcm},
    {"ChaCha20", BulkKind::kCipher, {}, BulkCipherAlg::kChaCha20},
    {"Salsa20/12", BulkKind::kSalsa2012, {}, {}},
}};

// Salsa2012Op: libsodium's Salsa20/12 (crypto/salsa20.h) over `buffer`, one
// message per call from block 0 (a benchmark: the nonce is never varied).
Result<std::function<Status()>> Salsa2012Op(Bytes& buffer) {
  auto key = std::make_shared<Bytes>(crypto::kSalsa2012KeyBytes);
  auto nonce = std::make_shared<Bytes>(crypto::kSalsa2012NonceBytes);
  SIGNET_TRY(crypto::FillRandom(*key));
  SIGNET_TRY(crypto::FillRandom(*nonce));
  return std::function<Status()>(
      [&buffer, key, nonce] { return crypto::Salsa2012Xor(*key, *nonce, buffer, buffer); });
}

// BulkOp returns an operation that processes `buffer` as one message.
Result<std::function<Status()>> BulkOp(const BulkAlgorithm& algo, Bytes& buffer) {
  if (algo.kind == BulkKind::kSalsa2012) return Salsa2012Op(buffer);
  if (algo.kind == BulkKind::kDigest) {
    return std::function<Status()>([&buffer, alg = algo.digest]() -> Status {
      SIGNET_TRY(crypto::Digest(alg, buffer));
      return OkStatus();
    });
  }
  Bytes key(crypto::BulkCipherKeySize(algo.cipher));
  Bytes iv(crypto::BulkCipherIvSize(algo.cipher));
  SIGNET_TRY(crypto::FillRandom(key));
  SIGNET_ASSIGN_OR_RETURN(auto cipher, crypto::BulkCipher::Create(algo.cipher, key, iv));
  auto shared = std::make_shared<crypto::BulkCipher>(std::move(cipher));
  return std::function<Status()>([&buffer, shared, iv]() -> Status {
    SIGNET_TRY(shared->Reset(iv));
    SIGNET_TRY(shared->Update(buffer, buffer));
    SIGNET_TRY(shared->Finish());
    return OkStatus();
  });
}

Result<Table> MeasureBulk(const std::vector<std::size_t>& sizes, double seconds,
                          const std::function<void()>& step) {
  Table table;
  table.id = "hashes";
  table.title = "hashes and ciphers (one message per buffer)";
  table.columns = {{"Algorithm", 0}, {"Bytes", 0}, {"MiB/s", 1}, {"cycles/byte", 2}};
  table.chart_column = 2;  // MiB/s, one bar per (algorithm, size)
  table.label_columns = 2;
  for (const auto& algo : kBulk) {
    for (std::size_t size : sizes) {
      Bytes buffer(size, 0x5a);
      SIGNET_ASSIGN_OR_RETURN(auto op, BulkOp(algo, buffer));
      SIGNET_ASSIGN_OR_RETURN(TimedSample s, TimeRepeated(op, seconds, 2));
      const double bytes = static_cast<double>(s.iterations) * static_cast<double>(size);
      table.AddRow({std::string(algo.display), static_cast<std::int64_t>(size),
                    bytes / s.seconds / kMiB, s.cycles / bytes});
      step();
    }
  }
  return table;
}

void AddSignRow(Table& table, const std::string& name, const TimedSample& s) {
  table.AddRow({name, s.SecondsPerOp() * 1e3, s.CyclesPerOp() / 1e6,
                static_cast<std::int64_t>(s.iterations)});
}

// MeasureOneSigner adds the algorithm's four rows (speed.h): Sign and
// Verify with a key object made from its encoded form for every operation,
// Sign/pre and Verify/pre with one key object reused.
Status MeasureOneSigner(const SignAlgorithm& algo, double seconds, Table& table,
                        const std::function<void()>& step) {
  SIGNET_ASSIGN_OR_RETURN(auto key, GenerateBenchKey(algo));
  SIGNET_ASSIGN_OR_RETURN(auto pub, key.Public());
  SIGNET_ASSIGN_OR_RETURN(SecureBytes pkcs8, key.ToPkcs8Der());
  SIGNET_ASSIGN_OR_RETURN(Bytes spki, pub.ToDer());
  Bytes input(SignInputSize(algo));
  SIGNET_TRY(crypto::FillRandom(input));
  SIGNET_ASSIGN_OR_RETURN(Bytes signature, crypto::Sign(key, algo.params, input));
  auto sign_fresh = [&]() -> Status {
    SIGNET_ASSIGN_OR_RETURN(auto fresh, crypto::PrivateKey::FromPkcs8Der(pkcs8));
    SIGNET_TRY(crypto::Sign(fresh, algo.params, input));
    return OkStatus();
  };
  auto sign_pre = [&]() -> Status {
    SIGNET_TRY(crypto::Sign(key, algo.params, input));
    return OkStatus();
  };
  auto verify_fresh = [&]() -> Status {
    SIGNET_ASSIGN_OR_RETURN(auto fresh, crypto::PublicKey::FromDer(spki));
    return crypto::Verify(fresh, algo.params, input, signature);
  };
  auto verify_pre = [&]() { return crypto::Verify(pub, algo.params, input, signature); };
  const std::pair<const char*, std::function<Status()>> rows[] = {{" Sign", sign_fresh},
                                                                  {" Sign/pre", sign_pre},
                                                                  {" Verify", verify_fresh},
                                                                  {" Verify/pre", verify_pre}};
  for (const auto& row : rows) {
    SIGNET_ASSIGN_OR_RETURN(TimedSample sample, TimeRepeated(row.second, seconds, 2));
    AddSignRow(table, algo.display + row.first, sample);
    step();
  }
  return OkStatus();
}

// MeasureReference: for a key type crypto/ signs with another library
// (crypto::HasOwnEngine), the same rows through OpenSSL's own code, named
// "<display> (OpenSSL) Sign" and so on, so both show side by side.
Status MeasureReference(const SignAlgorithm& algo, double seconds, Table& table,
                        const std::function<void()>& step) {
  if (!crypto::HasOwnEngine(algo.spec.type)) return OkStatus();
  SignAlgorithm reference = algo;
  reference.display += " (OpenSSL)";
  reference.params.engine = crypto::SignEngine::kOpenssl;
  return MeasureOneSigner(reference, seconds, table, step);
}

Result<Table> MeasureSigners(const std::vector<const SignAlgorithm*>& algos, double seconds,
                             const std::function<void()>& step) {
  Table table;
  table.id = "sign";
  table.title = "sign and verify (one thread, SHA-2 digest signed; /pre: one key object reused)";
  table.columns = {{"Algorithm", 0}, {"ms/op", 3}, {"Mcycles/op", 3}, {"ops", 0}};
  table.chart_column = 1;  // ms/op
  for (const SignAlgorithm* algo : algos) {
    SIGNET_TRY(MeasureOneSigner(*algo, seconds, table, step));
    SIGNET_TRY(MeasureReference(*algo, seconds, table, step));
  }
  return table;
}

}  // namespace

Result<Report> MeasureSpeed(const SpeedOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(auto algos, SelectSignAlgorithms(options.algorithms, &std::cerr));
  std::vector<std::size_t> sizes = options.sizes;
  if (sizes.empty()) sizes = {64, 1024, 16384};
  for (std::size_t size : sizes) {
    if (size == 0) return MakeError(CKR_ARGUMENTS_BAD, "buffer sizes must be positive");
  }
  const Durations d = DurationsFor(options.quick);
  Report report;
  report.command = "speed";
  AddMachineNotes(report, options.quick);
  std::uint64_t steps = (options.skip_bulk ? 0 : kBulk.size() * sizes.size()) +
                        (options.skip_sign ? 0 : 4 * algos.size());
  for (const SignAlgorithm* algo : algos) {
    if (!options.skip_sign && crypto::HasOwnEngine(algo->spec.type)) steps += 4;
  }
  ProgressBar bar = options.progress ? ProgressBar::ForStderr("speed", steps)
                                     : ProgressBar("speed", steps, nullptr);
  std::uint64_t done = 0;
  const std::function<void()> step = [&bar, &done] { bar.Update(++done); };
  if (!options.skip_bulk) {
    SIGNET_ASSIGN_OR_RETURN(Table bulk, MeasureBulk(sizes, d.bulk_seconds, step));
    report.tables.push_back(std::move(bulk));
  }
  if (!options.skip_sign) {
    SIGNET_ASSIGN_OR_RETURN(Table sign, MeasureSigners(algos, d.sign_seconds, step));
    report.tables.push_back(std::move(sign));
  }
  bar.Finish();
  return report;
}

int RunSpeed(const SpeedOptions& options, std::ostream& out, std::ostream& err) {
  Result<Report> report = MeasureSpeed(options);
  if (!report.ok()) {
    err << "bench speed: " << report.error().message << '\n';
    return 1;
  }
  return EmitReport(*report, {options.csv_path, options.json_path, options.chart_path}, out, err);
}

}  // namespace signet::bench
