// Writers for a Report: an aligned text table in the style of the seeds
// (pycryptopp's "Algorithm  MiB/Sec Cycle/Byte" with dashed underlines),
// CSV (RFC 4180 quoting, one table per file), JSON (nlohmann-json) and an
// SVG of bar charts (svg_chart.h), one per table that names a chart column. Pure functions of the
// Report and the stream: safe from any thread for distinct streams.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "bench/report.h"
#include "bench/svg_chart.h"
#include "signet/result.hpp"

namespace signet::bench {

// WriteText prints notes as "# key: value" lines, then each table with its
// title, a header, a dashed rule, and right-aligned numbers.
void WriteText(const Report& report, std::ostream& out);

// WriteCsv prints each table as a header row plus data rows; tables are
// separated by one empty line (files get one table each: CsvPathFor).
// Numbers keep full precision.
void WriteCsv(const Report& report, std::ostream& out);

// CsvPathFor is the file table `index` of `report` goes to when the user
// asked for `path`: `path` itself for a one-table report, else the path
// with "-<table id>" before its ".csv" (speed.csv: speed-hashes.csv and
// speed-sign.csv), so every CSV file holds one table.
std::string CsvPathFor(const std::string& path, const Report& report, std::size_t index);

// ChartsOf returns one bar chart per table with a chart column: a bar per
// row, labelled by its label columns.
std::vector<BarChart> ChartsOf(const Report& report);

// ToJson returns {"command", "notes": {..}, "tables": [{"title",
// "columns": [..], "rows": [{column: value, ...}]}]}.
nlohmann::json ToJson(const Report& report);

// WriteReportFile writes `report` to `path` as CSV (`csv` true: one file
// per table, CsvPathFor) or JSON; "-" means `stdout_stream` (all tables).
// CKR_FUNCTION_FAILED when a file cannot be written.
[[nodiscard]] Status WriteReportFile(const Report& report, const std::string& path, bool csv,
                                     std::ostream& stdout_stream);

// WriteHtmlTable writes `table` as an HTML <table> (title as caption,
// numbers right-aligned with the text form's decimals).
void WriteHtmlTable(const Table& table, std::ostream& out);

// WriteFile writes what `write` prints to `path`, replacing it.
// CKR_FUNCTION_FAILED when the file cannot be written.
[[nodiscard]] Status WriteFile(const std::string& path,
                               const std::function<void(std::ostream&)>& write);

// WriteChartFile writes ChartsOf(report) as one SVG document to `path`.
[[nodiscard]] Status WriteChartFile(const Report& report, const std::string& path);

// ReportPaths: where a bench command's --csv, --json and --chart go (empty:
// not written; "-" for CSV or JSON: stdout instead of the text form).
struct ReportPaths {
  std::string csv;
  std::string json;
  std::string chart;
};

// EmitReport is what every bench command ends with: the text form to `out`
// unless a path is "-" (then that form goes to `out` instead), CSV / JSON
// to the non-empty paths and the chart SVG to paths.chart. Returns the
// process exit code: 0, or 1 after printing the write error on `err`.
int EmitReport(const Report& report, const ReportPaths& paths, std::ostream& out,
               std::ostream& err);

}  // namespace signet::bench
