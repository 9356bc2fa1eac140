#include "bench/keygen.h"

#include <chrono>
#include <iostream>

#include "bench/cycle_clock.h"
#include "bench/machine_notes.h"
#include "bench/progress_bar.h"
#include "bench/report_writers.h"
#include "bench/sign_algorithms.h"
#include "bench/stats.h"
#include "crypto/keys.h"

namespace signet::bench {
namespace {

struct KeygenSamples {
  std::vector<double> ms;
  double cycles = 0;  // total over all keys
};

// GenerateKeys times `count` key generations, advancing `bar` by one per key.
Result<KeygenSamples> GenerateKeys(const SignAlgorithm& algo, int count, ProgressBar& bar,
                                   std::uint64_t& done) {
  KeygenSamples samples;
  samples.ms.reserve(count);
  for (int i = 0; i < count; ++i) {
    const std::uint64_t c0 = ReadCycleCounter();
    const auto t0 = std::chrono::steady_clock::now();
    SIGNET_TRY(GenerateBenchKey(algo));
    const auto t1 = std::chrono::steady_clock::now();
    samples.cycles += static_cast<double>(ReadCycleCounter() - c0);
    samples.ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    bar.Update(++done);
  }
  return samples;
}

}  // namespace

Result<Report> MeasureKeygen(const KeygenOptions& options) {
  if (options.count < 0) return MakeError(CKR_ARGUMENTS_BAD, "--count must be >= 0");
  SIGNET_ASSIGN_OR_RETURN(auto algos, SelectSignAlgorithms(options.algorithms, &std::cerr));
  auto count_for = [&](const SignAlgorithm* a) {
    return options.count > 0 ? options.count : a->keygen_count;
  };
  std::uint64_t total = 0;
  for (const SignAlgorithm* algo : algos) total += count_for(algo);

  Report report;
  report.command = "keygen";
  AddMachineNotes(report, options.quick);
  report.notes.emplace_back("keys", options.count > 0
                                        ? std::to_string(options.count) + " per type"
                                        : "per-type default (RSA <= 2048: 10, 3072: 4, 4096: 2, "
                                          "ECDSA/Ed25519: 100)");
  Table table;
  table.id = "keygen";
  table.title = "key generation (milliseconds per new key)";
  table.chart_column = 3;  // mean ms
  table.columns = {{"Algorithm", 0}, {"keys", 0},     {"best ms", 3},    {"mean ms", 3},
                   {"median ms", 3}, {"worst ms", 3}, {"Mcycles/key", 2}};
  ProgressBar bar = options.progress ? ProgressBar::ForStderr("keygen", total)
                                     : ProgressBar("keygen", total, nullptr);
  std::uint64_t done = 0;
  for (const SignAlgorithm* algo : algos) {
    const int count = count_for(algo);
    SIGNET_ASSIGN_OR_RETURN(KeygenSamples samples, GenerateKeys(*algo, count, bar, done));
    const Summary s = Summarize(samples.ms);
    table.AddRow({std::string(algo->display), static_cast<std::int64_t>(count), s.best, s.mean,
                  s.median, s.worst, samples.cycles / count / 1e6});
  }
  bar.Finish();
  report.tables.push_back(std::move(table));
  return report;
}

int RunKeygen(const KeygenOptions& options, std::ostream& out, std::ostream& err) {
  Result<Report> report = MeasureKeygen(options);
  if (!report.ok()) {
    err << "bench keygen: " << report.error().message << '\n';
    return 1;
  }
  return EmitReport(*report, {options.csv_path, options.json_path, options.chart_path}, out, err);
}

}  // namespace signet::bench
