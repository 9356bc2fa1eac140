#include "bench/seeds.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "bench/app.h"
#include "bench/daemon_backend.h"
#include "bench/keygen.h"
#include "bench/profile.h"
#include "bench/report_writers.h"
#include "bench/speed.h"

namespace signet::bench {
namespace {

constexpr const char* kMissing = "missing";

std::optional<double> CellNumber(const Cell& cell) {
  if (const auto* d = std::get_if<double>(&cell)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return static_cast<double>(*i);
  return std::nullopt;
}

std::optional<std::size_t> ColumnIndex(const Table& table, const std::string& name) {
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    if (table.columns[c].name == name) return c;
  }
  return std::nullopt;
}

const Table* FindTable(const BenchReports& benches, const SeedTable& seed_table) {
  auto report = benches.find(seed_table.bench);
  if (report == benches.end()) return nullptr;
  for (const Table& table : report->second.tables) {
    if (table.id == seed_table.table) return &table;
  }
  return nullptr;
}

// HereFigure is the counterpart of `row` in column `column`: the sum of the
// matched rows' cells, or nothing when a match finds no row.
std::optional<double> HereFigure(const Table* table, const SeedRow& row, const SeedColumn& column) {
  if (table == nullptr || row.here.empty()) return std::nullopt;
  auto index = ColumnIndex(*table, row.column.empty() ? column.here : row.column);
  if (!index) return std::nullopt;
  double sum = 0;
  for (const auto& match : row.here) {
    auto found = std::find_if(table->rows.begin(), table->rows.end(), [&](const auto& cells) {
      return std::all_of(match.begin(), match.end(), [&](const auto& key_value) {
        auto c = ColumnIndex(*table, key_value.first);
        // Measured numbers are figures, never row keys.
        return c && !std::holds_alternative<double>(cells[*c]) &&
               CellText(cells[*c], 0) == key_value.second;
      });
    });
    if (found == table->rows.end()) return std::nullopt;
    auto value = CellNumber((*found)[*index]);
    if (!value) return std::nullopt;
    sum += *value;
  }
  return sum;
}

// Ratio: a share of 0 here (seed 001's key unwrap, which signet's key cache
// keeps off the signing path) is a real figure with a ratio of 0.
double Ratio(const SeedColumn& column, double seed, double here) {
  if (seed <= 0) return 0;
  if (column.here_over_seed) return here / seed;
  return here > 0 ? seed / here : 0;
}

// Decimals that show a column's smallest figure with three significant digits.
int PrecisionFor(double smallest) {
  if (smallest <= 0 || smallest >= 100) return 0;
  return std::clamp(2 - static_cast<int>(std::floor(std::log10(smallest))), 1, 6);
}

std::string Counterpart(const SeedTable& seed_table, const SeedRow& row) {
  if (row.here.empty()) return "none: " + row.why;
  std::string text = seed_table.bench;
  if (seed_table.table != seed_table.bench) text += " " + seed_table.table;
  text += ":";
  for (std::size_t i = 0; i < row.here.size(); ++i) {
    text += i ? " +" : "";
    for (const auto& [key, value] : row.here[i]) text += " " + key + "=" + value;
  }
  if (!row.column.empty()) text += " [" + row.column + "]";
  if (!row.why.empty()) text += " (" + row.why + ")";
  return text;
}

Table CompareTable(const Seed& seed, const SeedTable& seed_table, const BenchReports& benches) {
  const Table* here_table = FindTable(benches, seed_table);
  Table table;
  table.id = seed.id + "-" + seed_table.id;
  table.title = "seed " + seed.id + ": " + seed_table.title;
  table.columns.push_back({"seed row", 0});
  for (std::size_t c = 0; c < seed_table.columns.size(); ++c) {
    double smallest = 0;
    for (const SeedRow& row : seed_table.rows) {
      smallest = smallest == 0 ? row.values[c] : std::min(smallest, row.values[c]);
    }
    const std::string& name = seed_table.columns[c].name;
    table.columns.push_back({name + " seed", PrecisionFor(smallest)});
    table.columns.push_back({name + " here", 2});  // set once the rows are in
    table.columns.push_back({name + " x", 2});
  }
  table.columns.push_back({"signet counterpart", 0});
  for (const SeedRow& row : seed_table.rows) {
    std::vector<Cell> cells = {row.name};
    for (std::size_t c = 0; c < seed_table.columns.size(); ++c) {
      const SeedColumn& column = seed_table.columns[c];
      cells.emplace_back(row.values[c]);
      if (auto here = HereFigure(here_table, row, column)) {
        cells.emplace_back(*here);
        cells.emplace_back(Ratio(column, row.values[c], *here));
      } else {
        cells.emplace_back(std::string(row.here.empty() ? "-" : kMissing));
        cells.emplace_back(std::string("-"));
      }
    }
    cells.emplace_back(Counterpart(seed_table, row));
    table.AddRow(std::move(cells));
  }
  // This machine's figures get the decimals their own smallest one needs.
  for (std::size_t c = 0; c < seed_table.columns.size(); ++c) {
    const std::size_t here = 2 + 3 * c;
    double smallest = 0;
    for (const auto& cells : table.rows) {
      if (auto v = CellNumber(cells[here]); v && *v > 0) {
        smallest = smallest == 0 ? *v : std::min(smallest, *v);
      }
    }
    table.columns[here].precision = PrecisionFor(smallest);
  }
  return table;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

Table SummaryTable(const std::vector<Seed>& seeds, const std::vector<Table>& compared) {
  Table summary;
  summary.id = "summary";
  summary.title = "summary (x: the first column's ratio; above 1: this machine does better)";
  summary.columns = {{"seed", 0},     {"table", 0}, {"rows", 0}, {"measured", 0},
                     {"median x", 2}, {"min x", 2}, {"max x", 2}};
  std::size_t t = 0;
  for (const Seed& seed : seeds) {
    for (const SeedTable& seed_table : seed.tables) {
      const Table& table = compared[t++];
      std::vector<double> ratios;
      for (const auto& row : table.rows) {
        if (auto x = CellNumber(row[3])) ratios.push_back(*x);
      }
      const auto [min, max] = std::minmax_element(ratios.begin(), ratios.end());
      summary.AddRow({seed.id, seed_table.title, static_cast<std::int64_t>(table.rows.size()),
                      static_cast<std::int64_t>(ratios.size()), Median(ratios),
                      ratios.empty() ? 0.0 : *min, ratios.empty() ? 0.0 : *max});
    }
  }
  return summary;
}

}  // namespace

Report SeedsReport(const std::vector<Seed>& seeds, const BenchReports& benches, bool full) {
  Report report;
  report.command = "seeds";
  report.notes.emplace_back("mode", full ? "full (--full: the seeds' own sizes)"
                                         : "short (a smaller version of each measurement; "
                                           "--full for the seeds' own sizes)");
  for (const Seed& seed : seeds) {
    report.notes.emplace_back("seed " + seed.id, seed.title + ". Source: " + seed.source);
  }
  report.notes.emplace_back(
      "columns",
      "<column> seed: the published figure; here: this machine; x: the ratio, "
      "here/seed for rates and shares, seed/here for times");
  for (const Seed& seed : seeds) {
    for (const SeedTable& seed_table : seed.tables) {
      report.tables.push_back(CompareTable(seed, seed_table, benches));
    }
  }
  report.tables.push_back(SummaryTable(seeds, report.tables));
  return report;
}

int MissingFigures(const Report& report) {
  int missing = 0;
  for (const Table& table : report.tables) {
    for (const auto& row : table.rows) {
      for (const Cell& cell : row) {
        if (const auto* s = std::get_if<std::string>(&cell); s && *s == kMissing) ++missing;
      }
    }
  }
  return missing;
}

std::map<std::string, std::vector<BarChart>> SeedCharts(const std::vector<Seed>& seeds,
                                                        const Report& report) {
  std::map<std::string, std::vector<BarChart>> charts;
  for (const Seed& seed : seeds) {
    for (const SeedTable& seed_table : seed.tables) {
      auto table = std::find_if(report.tables.begin(), report.tables.end(), [&](const Table& t) {
        return t.id == seed.id + "-" + seed_table.id;
      });
      if (table == report.tables.end()) continue;
      BarChart chart;
      chart.title = table->title;
      chart.value_label = seed_table.columns.at(0).name;
      chart.series = {"seed", "here"};
      chart.log_scale = true;
      for (const auto& row : table->rows) {
        Bar bar{std::get<std::string>(row[0]), {}};
        bar.values.push_back(CellNumber(row[1]).value_or(0));
        bar.values.push_back(CellNumber(row[2]).value_or(0));
        chart.bars.push_back(std::move(bar));
      }
      charts[seed.id].push_back(std::move(chart));
    }
  }
  return charts;
}

Result<BenchReports> RunSeedBenches(const SeedsOptions& options, const SeedServices& services,
                                    std::ostream& err) {
  const bool full = options.full;
  BenchReports reports;

  err << "bench seeds: seed 002, hashes, ciphers and signatures (bench speed)\n";
  SpeedOptions speed;
  speed.quick = !full;
  speed.algorithms = {"rsa:2056", "ec:secp256k1", "ec:secp192r1"};
  speed.sizes = {16384};
  SIGNET_ASSIGN_OR_RETURN(reports["speed"], MeasureSpeed(speed));

  err << "bench seeds: seed 002, key generation (bench keygen)\n";
  KeygenOptions keygen;
  keygen.algorithms = {"rsa:2056", "ec:secp192r1"};
  keygen.count = full ? 0 : 3;
  keygen.quick = !full;
  keygen.progress = options.progress;
  SIGNET_ASSIGN_OR_RETURN(reports["keygen"], MeasureKeygen(keygen));

  err << "bench seeds: seeds 000 and 001, parallel signatures through signetd (bench parallel)\n";
  if (!services.make_daemon_backend) {
    return MakeError(CKR_FUNCTION_NOT_SUPPORTED, "no daemon backend in this build");
  }
  ParallelOptions parallel;
  parallel.algorithms = {"rsa:1024", "rsa:2048", "rsa:4096"};
  parallel.n = full ? 1000 : 48;
  parallel.progress = options.progress;
  SIGNET_ASSIGN_OR_RETURN(std::unique_ptr<SignerBackend> daemon,
                          services.make_daemon_backend(parallel));
  std::ostream discard(nullptr);  // the seed-format lines: the table has them
  SIGNET_ASSIGN_OR_RETURN(auto runs, MeasureParallel(parallel, {daemon.get()}, discard));
  reports["parallel"] = ParallelReport(runs, parallel);

  err << "bench seeds: seed 001, where the time goes (bench profile)\n";
  auto* profiled = dynamic_cast<DaemonBackend*>(daemon.get());
  if (profiled == nullptr)
    return MakeError(CKR_FUNCTION_NOT_SUPPORTED, "the backend is not signetd");
  ProfileOptions profile;
  profile.algorithm = "rsa:2048";
  profile.clients = 4;
  profile.n = full ? 3000 : 300;
  profile.progress = options.progress;
  SIGNET_ASSIGN_OR_RETURN(ProfileRun profile_run, MeasureProfile(profile, *profiled));
  reports["profile"] = std::move(profile_run.report);
  daemon.reset();

  err << "bench seeds: seed 003, mutable files (bench app)\n";
  AppOptions app;
  app.algorithms = {"rsa:2048", "rsa:1024", "rsa:522"};
  app.pool = "off";
  app.trials = full ? 0 : 2;
  app.progress = options.progress;
  SIGNET_ASSIGN_OR_RETURN(reports["app"], MeasureApp(app, ServiceAccess{}));
  return reports;
}

int RunSeeds(const SeedsOptions& options, const SeedServices& services, std::ostream& out,
             std::ostream& err) {
  Result<std::vector<Seed>> seeds = ParseSeedFigures(SeedFiguresJson());
  if (!seeds.ok()) {
    err << "bench seeds: " << seeds.error().message << '\n';
    return 2;
  }
  Result<BenchReports> benches = RunSeedBenches(options, services, err);
  if (!benches.ok()) {
    err << "bench seeds: " << benches.error().message << '\n';
    return 1;
  }
  const Report report = SeedsReport(*seeds, *benches, options.full);
  if (int code = EmitReport(report, {options.csv_path, options.json_path, ""}, out, err)) {
    return code;
  }
  const auto charts = SeedCharts(*seeds, report);
  Status written = OkStatus();
  if (!options.chart_path.empty()) {
    std::vector<BarChart> all;
    for (const auto& [seed, list] : charts) all.insert(all.end(), list.begin(), list.end());
    written =
        WriteFile(options.chart_path, [&](std::ostream& svg) { WriteSvgBarCharts(all, svg); });
  }
  if (written.ok() && !options.html_path.empty()) {
    written = WriteFile(options.html_path,
                        [&](std::ostream& html) { WriteSeedsHtml(*seeds, report, charts, html); });
  }
  if (!written.ok()) {
    err << "bench seeds: " << written.error().message << '\n';
    return 1;
  }
  if (int missing = MissingFigures(report)) {
    err << "bench seeds: " << missing << " seed figure(s) found no counterpart in the benches\n";
    return 1;
  }
  return 0;
}

}  // namespace signet::bench
