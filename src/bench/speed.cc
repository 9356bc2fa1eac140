#include "bench/speed.h"

#include <array>
#include <cstdio>
#include <functional>
#include <memory>

#include "bench/cycle_clock.h"
#include "bench/machine_notes.h"
#include "bench/report_writers.h"
#include "bench/sign_algorithms.h"
#include "bench/timed_loop.h"
#include "crypto/bulk_cipher.h"
#include "crypto/digest.h"
#include "crypto/symmetric.h"

namespace signet::bench {
namespace {

using crypto::BulkCipherAlg;
using crypto::DigestAlg;

constexpr double kMiB = 1024.0 * 1024.0;

struct Durations {
  double bulk_seconds;  // per (algorithm, size)
  double sign_seconds;  // per (algorithm, sign|verify)
};

Durations DurationsFor(bool quick) { return quick ? Durations{0.005, 0.01} : Durations{0.25, 1.0}; }

// BulkAlgorithm: a hash or a cipher, whichever `digest` / `cipher` says.
struct BulkAlgorithm {
  const char* display;
  DigestAlg digest;  // kNone for ciphers
  BulkCipherAlg cipher;
};

constexpr std::array<BulkAlgorithm, 7> kBulk = {{
    {"MD5", DigestAlg::kMd5, {}},
    {"SHA-1", DigestAlg::kSha1, {}},
    {"SHA-256", DigestAlg::kSha256, {}},
    {"SHA-512", DigestAlg::kSha512, {}},
    {"AES-128-CTR", DigestAlg::kNone, BulkCipherAlg::kAes128Ctr},
    {"AES-256-GCM", DigestAlg::kNone, BulkCipherAlg::kAes256Gcm},
    {"ChaCha20", DigestAlg::kNone, BulkCipherAlg::kChaCha20},
}};

// BulkOp returns an operation that processes `buffer` as one message.
Result<std::function<Status()>> BulkOp(const BulkAlgorithm& algo, Bytes& buffer) {
  if (algo.digest != DigestAlg::kNone) {
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

Result<Table> MeasureBulk(const std::vector<std::size_t>& sizes, double seconds) {
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
    }
  }
  return table;
}

void AddSignRow(Table& table, const std::string& name, const TimedSample& s) {
  table.AddRow({name, s.SecondsPerOp() * 1e3, s.CyclesPerOp() / 1e6,
                static_cast<std::int64_t>(s.iterations)});
}

Status MeasureOneSigner(const SignAlgorithm& algo, double seconds, Table& table) {
  SIGNET_ASSIGN_OR_RETURN(auto key, crypto::PrivateKey::Generate(algo.spec));
  SIGNET_ASSIGN_OR_RETURN(auto pub, key.Public());
  Bytes input(SignInputSize(algo));
  SIGNET_TRY(crypto::FillRandom(input));
  SIGNET_ASSIGN_OR_RETURN(Bytes signature, crypto::Sign(key, algo.params, input));
  auto sign = [&]() -> Status {
    SIGNET_TRY(crypto::Sign(key, algo.params, input));
    return OkStatus();
  };
  auto verify = [&]() { return crypto::Verify(pub, algo.params, input, signature); };
  SIGNET_ASSIGN_OR_RETURN(TimedSample s, TimeRepeated(sign, seconds, 2));
  AddSignRow(table, std::string(algo.display) + " Sign", s);
  SIGNET_ASSIGN_OR_RETURN(TimedSample v, TimeRepeated(verify, seconds, 2));
  AddSignRow(table, std::string(algo.display) + " Verify", v);
  return OkStatus();
}

Result<Table> MeasureSigners(const std::vector<const SignAlgorithm*>& algos, double seconds) {
  Table table;
  table.id = "sign";
  table.title = "sign and verify (one thread, SHA-2 digest signed)";
  table.columns = {{"Algorithm", 0}, {"ms/op", 3}, {"Mcycles/op", 3}, {"ops", 0}};
  table.chart_column = 1;  // ms/op
  for (const SignAlgorithm* algo : algos) SIGNET_TRY(MeasureOneSigner(*algo, seconds, table));
  return table;
}

}  // namespace

Result<Report> MeasureSpeed(const SpeedOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(auto algos, SelectSignAlgorithms(options.algorithms));
  std::vector<std::size_t> sizes = options.sizes;
  if (sizes.empty()) sizes = {64, 1024, 16384};
  for (std::size_t size : sizes) {
    if (size == 0) return MakeError(CKR_ARGUMENTS_BAD, "buffer sizes must be positive");
  }
  const Durations d = DurationsFor(options.quick);
  Report report;
  report.command = "speed";
  AddMachineNotes(report, options.quick);
  if (!options.skip_bulk) {
    SIGNET_ASSIGN_OR_RETURN(Table bulk, MeasureBulk(sizes, d.bulk_seconds));
    report.tables.push_back(std::move(bulk));
  }
  if (!options.skip_sign) {
    SIGNET_ASSIGN_OR_RETURN(Table sign, MeasureSigners(algos, d.sign_seconds));
    report.tables.push_back(std::move(sign));
  }
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
