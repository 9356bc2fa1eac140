// Writers for a Report: an aligned text table in the style of the seeds
// (pycryptopp's "Algorithm  MiB/Sec Cycle/Byte" with dashed underlines),
// CSV (RFC 4180 quoting) and JSON (nlohmann-json). Pure functions of the
// Report and the stream: safe from any thread for distinct streams.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "bench/report.h"
#include "signet/result.hpp"

namespace signet::bench {

// WriteText prints notes as "# key: value" lines, then each table with its
// title, a header, a dashed rule, and right-aligned numbers.
void WriteText(const Report& report, std::ostream& out);

// WriteCsv prints each table as a header row plus data rows; tables are
// separated by one empty line. Numbers keep full precision.
void WriteCsv(const Report& report, std::ostream& out);

// ToJson returns {"command", "notes": {..}, "tables": [{"title",
// "columns": [..], "rows": [{column: value, ...}]}]}.
nlohmann::json ToJson(const Report& report);

// WriteReportFile writes `report` to `path` as CSV (`csv` true) or JSON;
// "-" means `stdout_stream`. CKR_FUNCTION_FAILED when the file cannot be
// written.
[[nodiscard]] Status WriteReportFile(const Report& report, const std::string& path, bool csv,
                                     std::ostream& stdout_stream);

// EmitReport is what every bench command ends with: the text form to `out`
// unless a path is "-" (then that form goes to `out` instead), and CSV /
// JSON to the non-empty paths. Returns the process exit code: 0, or 1 after
// printing the write error on `err`.
int EmitReport(const Report& report, const std::string& csv_path, const std::string& json_path,
               std::ostream& out, std::ostream& err);

}  // namespace signet::bench
