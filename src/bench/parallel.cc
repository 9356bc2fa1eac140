#include "bench/parallel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>

#include "bench/process_round_trip.h"
#include "bench/progress_bar.h"
#include "bench/raw_backend.h"
#include "bench/report_writers.h"

namespace signet::bench {
namespace {

// Workload: one --algo name, a signature algorithm or another operation
// (bench_operations.h), and the label its lines carry.
struct Workload {
  std::string_view label;
  const SignAlgorithm* algo = nullptr;
  const BenchOperation* op = nullptr;
};

// SelectWorkloads splits the names at commas; each names an operation or a
// signature algorithm. No names: every signature algorithm a token holds.
Result<std::vector<Workload>> SelectWorkloads(const std::vector<std::string>& names) {
  std::vector<Workload> out;
  for (const std::string& name : SplitNames(names)) {
    if (const BenchOperation* op = FindBenchOperation(name)) {
      out.push_back({op->label, nullptr, op});
      continue;
    }
    SIGNET_ASSIGN_OR_RETURN(const SignAlgorithm* algo, FindSignAlgorithm(name, &std::cerr));
    out.push_back({algo->label, algo, nullptr});
  }
  if (names.empty()) {
    SIGNET_ASSIGN_OR_RETURN(auto algos, SelectSignAlgorithms({}));
    for (const SignAlgorithm* algo : algos) {
      if (!crypto::IsBenchOnly(algo->spec.type)) out.push_back({algo->label, algo, nullptr});
    }
  }
  return out;
}

std::string LabelFor(const Workload& work, const SignerBackend& backend,
                     std::size_t backend_count) {
  std::string label(work.label);
  if (backend_count > 1 && backend.name() == "raw") label += "/raw";
  return label;
}

Status CheckOptions(const ParallelOptions& options) {
  if (options.clients.empty()) return MakeError(CKR_ARGUMENTS_BAD, "no client counts given");
  for (int c : options.clients) {
    if (c < 1) return MakeError(CKR_ARGUMENTS_BAD, "client counts must be >= 1");
  }
  if (options.n < 1) return MakeError(CKR_ARGUMENTS_BAD, "-n must be >= 1");
  return OkStatus();
}

// RatioLine compares a service run with the raw run at the same load, as a
// '#' note: lines in the seed's format stay the only other lines.
std::string RatioLine(const BackendRun& daemon, const ParallelRun& raw) {
  const double raw_rate = ComputeFigures(raw).sigs_per_sec;
  if (raw_rate <= 0) return {};
  char buf[160];
  std::snprintf(buf, sizeof(buf), "# ratio %s/raw %s c %d sigs/sec %.3f", daemon.backend.c_str(),
                daemon.run.algo.c_str(), daemon.run.clients,
                ComputeFigures(daemon.run).sigs_per_sec / raw_rate);
  return buf;
}

}  // namespace

Result<std::vector<BackendRun>> MeasureParallel(const ParallelOptions& options,
                                                const std::vector<SignerBackend*>& backends,
                                                std::ostream& out) {
  SIGNET_TRY(CheckOptions(options));
  SIGNET_ASSIGN_OR_RETURN(auto workloads, SelectWorkloads(options.algorithms));
  std::vector<BackendRun> runs;
  std::vector<std::string> ratios;
  out << "# t0 and t1 are UTC; lines starting with '#' are notes\n\n";
  for (const Workload& work : workloads) {
    std::vector<WorkerFactory> factories;
    for (SignerBackend* backend : backends) {
      SIGNET_ASSIGN_OR_RETURN(WorkerFactory f, work.op != nullptr
                                                   ? backend->PrepareOperation(*work.op)
                                                   : backend->Prepare(*work.algo, options.verify));
      factories.push_back(std::move(f));
    }
    for (int c : options.clients) {
      for (std::size_t b = 0; b < backends.size(); ++b) {
        const std::string label = LabelFor(work, *backends[b], backends.size());
        ProgressBar bar = options.progress
                              ? ProgressBar::ForStderr(label + " c " + std::to_string(c), options.n)
                              : ProgressBar(label, options.n, nullptr);
        SIGNET_ASSIGN_OR_RETURN(ParallelRun run,
                                RunLoad({label, c, options.n}, factories[b],
                                        [&bar](std::uint64_t done) { bar.Update(done); }));
        bar.Finish();
        out << FormatParallelLine(run) << '\n' << std::flush;
        runs.push_back({std::string(backends[b]->name()), std::move(run)});
      }
      if (backends.size() == 2) ratios.push_back(RatioLine(runs[runs.size() - 2], runs.back().run));
    }
    out << '\n';
  }
  for (const std::string& line : ratios) {
    if (!line.empty()) out << line << '\n';
  }
  return runs;
}

namespace {

// LatencyLines: for each algorithm measured at c = 1 both through a backend
// and raw, the backend's mean latency against raw's plus one process round
// trip (issue 17's bound: the physical cost of leaving the process).
std::vector<std::string> LatencyLines(const std::vector<BackendRun>& runs, const RoundTrip& trip) {
  std::vector<std::string> lines;
  char text[256];
  std::snprintf(text, sizeof(text),
                "socketpair round trip between two processes: median %.1f us, mean %.1f us "
                "(%zu round trips)",
                trip.median_us, trip.mean_us, trip.round_trips);
  lines.emplace_back(text);
  for (const auto& [backend, run] : runs) {
    if (run.clients != 1 || backend == "raw") continue;
    for (const auto& [raw_backend, raw] : runs) {
      if (raw_backend != "raw" || raw.clients != 1 || raw.algo != run.algo + "/raw") continue;
      const double mean_us = ComputeFigures(run).mean_s * 1e6;
      const double bound_us = ComputeFigures(raw).mean_s * 1e6 + trip.median_us;
      std::snprintf(text, sizeof(text),
                    "c = 1 %s: %s mean %.1f us; raw mean %.1f us + round trip %.1f us = "
                    "%.1f us; %s by %.1f us",
                    run.algo.c_str(), backend.c_str(), mean_us, bound_us - trip.median_us,
                    trip.median_us, bound_us, mean_us <= bound_us ? "within" : "over",
                    std::abs(bound_us - mean_us));
      lines.emplace_back(text);
    }
  }
  return lines;
}

}  // namespace

Report ParallelReport(const std::vector<BackendRun>& runs, const ParallelOptions& options,
                      const std::vector<std::string>& latency_lines) {
  Report report;
  report.command = "parallel";
  report.notes.emplace_back("verify", options.verify ? "every signature verified" : "off");
  for (const std::string& line : latency_lines) report.notes.emplace_back("latency", line);
  Table table;
  table.id = "parallel";
  table.title = "parallel signatures";
  table.columns = {{"algorithm", 0}, {"backend", 0},  {"n", 0},      {"c", 0},
                   {"sigs/sec", 3},  {"secs/sig", 6}, {"mean s", 6}, {"p50 s", 6},
                   {"p99 s", 6},     {"t0", 0},       {"t1", 0}};
  for (const auto& [backend, run] : runs) {
    const ParallelFigures f = ComputeFigures(run);
    table.AddRow({run.algo, backend, static_cast<std::int64_t>(run.n),
                  static_cast<std::int64_t>(run.clients), f.sigs_per_sec, f.secs_per_sig, f.mean_s,
                  f.p50_s, f.p99_s, FormatWallTime(run.t0), FormatWallTime(run.t1)});
  }
  report.tables.push_back(std::move(table));
  return report;
}

LineChart ParallelChart(const std::vector<BackendRun>& runs) {
  LineChart chart;
  chart.title = "signatures per second against concurrent clients";
  chart.x_label = "clients";
  chart.y_label = "sigs/sec";
  std::map<std::string, std::size_t> index;  // series name -> position
  for (const auto& [backend, run] : runs) {
    auto [it, added] = index.emplace(run.algo, chart.series.size());
    if (added) chart.series.push_back({run.algo, {}});
    chart.series[it->second].points.emplace_back(run.clients, ComputeFigures(run).sigs_per_sec);
  }
  return chart;
}

int RunParallel(const ParallelOptions& options, SignerBackend* daemon, std::ostream& out,
                std::ostream& err) {
  if (daemon == nullptr && !options.raw) {
    err << "bench parallel: the daemon mode is not available in this build yet; "
           "use --raw to measure in-process signing\n";
    return 2;
  }
  std::unique_ptr<SignerBackend> raw = options.raw ? MakeRawBackend() : nullptr;
  std::vector<SignerBackend*> backends;
  if (daemon != nullptr) backends.push_back(daemon);
  if (raw) backends.push_back(raw.get());
  // Lines stream to `out` unless a machine-readable form takes stdout.
  const bool stdout_taken = options.csv_path == "-" || options.json_path == "-";
  Result<std::vector<BackendRun>> runs =
      MeasureParallel(options, backends, stdout_taken ? static_cast<std::ostream&>(err) : out);
  if (!runs.ok()) {
    err << "bench parallel: " << runs.error().message << '\n';
    return 1;
  }
  // With a backend and raw at c = 1 in this run, the c = 1 latency bound.
  std::vector<std::string> latency_lines;
  if (daemon != nullptr && raw &&
      std::find(options.clients.begin(), options.clients.end(), 1) != options.clients.end()) {
    if (Result<RoundTrip> trip = MeasureProcessRoundTrip(2000); trip.ok()) {
      latency_lines = LatencyLines(*runs, *trip);
      std::ostream& lines = stdout_taken ? err : out;
      for (const std::string& line : latency_lines) lines << "# " << line << '\n';
    }
  }
  const Report report = ParallelReport(*runs, options, latency_lines);
  for (const auto& [path, csv] :
       {std::pair{options.csv_path, true}, std::pair{options.json_path, false}}) {
    if (path.empty()) continue;
    if (Status s = WriteReportFile(report, path, csv, out); !s.ok()) {
      err << "bench parallel: " << s.error().message << '\n';
      return 1;
    }
  }
  if (!options.chart_path.empty()) {
    std::ofstream svg(options.chart_path, std::ios::trunc);
    if (svg) WriteSvgLineChart(ParallelChart(*runs), svg);
    svg.close();
    if (!svg) {
      err << "bench parallel: cannot write " << options.chart_path << '\n';
      return 1;
    }
  }
  return 0;
}

}  // namespace signet::bench
