// `signet bench seeds`: every seed's table, row for row, beside this
// machine's figures. It runs a short version of each seed's measurement
// through signet's own benches (speed, keygen, parallel and profile through
// a signetd, app), then prints, per seed table, the seed's rows and
// columns: the published figure, this machine's, and their ratio, oriented
// so that above 1 means this machine does better (seed_figures.h). A
// summary table ends the report.
//
// Short (default) and full (--full: the seeds' own sizes, n 1000 per
// parallel line, 3000 profiled signatures, 10 files per key size) differ
// only in how much each bench measures; the header notes say which ran.
// Thread contract: RunSeeds blocks its caller; the benches start their
// own threads and daemons.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "bench/backend_factory.h"
#include "bench/parallel.h"
#include "bench/report.h"
#include "bench/seed_figures.h"
#include "bench/signer_backend.h"
#include "bench/svg_chart.h"

namespace signet::bench {

struct SeedsOptions {
  bool full = false;
  bool progress = true;  // each bench's progress bar, on a TTY stderr
  std::string csv_path;  // as in SpeedOptions (one file per table)
  std::string json_path;
  std::string chart_path;  // SVG: one chart per seed table, seed against here
  std::string html_path;   // HTML: per seed its source, tables and chart
};

// SeedServices: how to reach signetd for seeds 000 and 001 (BenchHooks of
// bench_commands.h: a given daemon, or a throw-away one). Seed 003's files
// always go through throw-away daemons without a key pool, as the seed's
// application had none.
struct SeedServices {
  std::function<Result<std::unique_ptr<SignerBackend>>(const ParallelOptions&)> make_daemon_backend;
};

// BenchReports: each bench's report, by bench name ("speed", ...).
using BenchReports = std::map<std::string, Report>;

// SeedsReport compares `seeds` with `benches`: one table per seed table
// (id "<seed>-<table>"), then the summary. Rows whose counterpart is
// missing from `benches` say "missing". Pure: testable without a daemon.
Report SeedsReport(const std::vector<Seed>& seeds, const BenchReports& benches, bool full);

// MissingFigures counts the rows of a SeedsReport that have a counterpart
// but no figure from this machine.
int MissingFigures(const Report& report);

// SeedCharts draws, per seed, its tables' first columns: one bar per row,
// the seed's figure against this machine's, on a log scale.
std::map<std::string, std::vector<BarChart>> SeedCharts(const std::vector<Seed>& seeds,
                                                        const Report& report);

// WriteSeedsHtml writes a standalone HTML page: per seed its title and
// source, its tables and its charts (inline SVG), then the summary.
void WriteSeedsHtml(const std::vector<Seed>& seeds, const Report& report,
                    const std::map<std::string, std::vector<BarChart>>& charts, std::ostream& out);

// RunSeedBenches runs the benches the seeds need (progress and stage lines
// to `err`). The benches' own errors.
[[nodiscard]] Result<BenchReports> RunSeedBenches(const SeedsOptions& options,
                                                  const SeedServices& services, std::ostream& err);

// RunSeeds runs everything and prints the report (text to `out`, the other
// forms to their paths). Exit code: 0; 1 when a bench failed or a row with
// a counterpart got no figure; 2 when the compiled-in figures do not parse.
int RunSeeds(const SeedsOptions& options, const SeedServices& services, std::ostream& out,
             std::ostream& err);

}  // namespace signet::bench
