#include "bench/report_writers.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <functional>

namespace signet::bench {
namespace {

// Shortest text that reads back as the same double (CSV keeps precision).
std::string ExactNumber(double value) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, res.ptr);
}

std::string CsvField(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string CsvCell(const Cell& cell) {
  if (const auto* s = std::get_if<std::string>(&cell)) return CsvField(*s);
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return std::to_string(*i);
  return ExactNumber(std::get<double>(cell));
}

void WriteTextTable(const Table& table, std::ostream& out) {
  const std::size_t ncols = table.columns.size();
  std::vector<std::vector<std::string>> text(table.rows.size());
  std::vector<std::size_t> width(ncols);
  for (std::size_t c = 0; c < ncols; ++c) width[c] = table.columns[c].name.size();
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    for (std::size_t c = 0; c < ncols; ++c) {
      text[r].push_back(CellText(table.rows[r][c], table.columns[c].precision));
      width[c] = std::max(width[c], text[r][c].size());
    }
  }
  // The first column (the label) and the last one when it holds only text
  // (a note) are left-aligned, the rest right-aligned.
  const bool last_is_text = ncols > 1 && !table.rows.empty() &&
                            std::all_of(table.rows.begin(), table.rows.end(), [&](const auto& row) {
                              return std::holds_alternative<std::string>(row[ncols - 1]);
                            });
  auto pad = [&](const std::string& s, std::size_t c) {
    const std::string fill(width[c] - s.size(), ' ');
    return c == 0 || (last_is_text && c == ncols - 1) ? s + fill : fill + s;
  };
  auto emit = [&](auto cell_text) {
    std::string line;
    for (std::size_t c = 0; c < ncols; ++c) line += (c ? "  " : "") + pad(cell_text(c), c);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  };
  if (!table.title.empty()) out << table.title << "\n\n";
  emit([&](std::size_t c) { return table.columns[c].name; });
  emit([&](std::size_t c) { return std::string(table.columns[c].name.size(), '-'); });
  for (const auto& row : text) emit([&](std::size_t c) { return row[c]; });
}

}  // namespace

void WriteText(const Report& report, std::ostream& out) {
  for (const auto& [key, value] : report.notes) out << "# " << key << ": " << value << '\n';
  for (const auto& table : report.tables) {
    out << '\n';
    WriteTextTable(table, out);
  }
}

void WriteCsv(const Report& report, std::ostream& out) {
  bool first = true;
  for (const auto& table : report.tables) {
    if (!first) out << "\r\n";
    first = false;
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      out << (c ? "," : "") << CsvField(table.columns[c].name);
    }
    out << "\r\n";
    for (const auto& row : table.rows) {
      for (std::size_t c = 0; c < row.size(); ++c) out << (c ? "," : "") << CsvCell(row[c]);
      out << "\r\n";
    }
  }
}

nlohmann::json ToJson(const Report& report) {
  nlohmann::json doc;
  doc["command"] = report.command;
  doc["notes"] = nlohmann::json::object();
  for (const auto& [key, value] : report.notes) doc["notes"][key] = value;
  doc["tables"] = nlohmann::json::array();
  for (const auto& table : report.tables) {
    nlohmann::json t;
    t["title"] = table.title;
    t["columns"] = nlohmann::json::array();
    for (const auto& column : table.columns) t["columns"].push_back(column.name);
    t["rows"] = nlohmann::json::array();
    for (const auto& row : table.rows) {
      nlohmann::json r = nlohmann::json::object();
      for (std::size_t c = 0; c < row.size(); ++c) {
        std::visit([&](const auto& v) { r[table.columns[c].name] = v; }, row[c]);
      }
      t["rows"].push_back(std::move(r));
    }
    doc["tables"].push_back(std::move(t));
  }
  return doc;
}

std::string CsvPathFor(const std::string& path, const Report& report, std::size_t index) {
  if (report.tables.size() <= 1) return path;
  const std::string& id = report.tables[index].id;
  const std::string suffix = "-" + (id.empty() ? "table" + std::to_string(index + 1) : id);
  constexpr std::string_view kExtension = ".csv";
  if (path.ends_with(kExtension))
    return path.substr(0, path.size() - kExtension.size()) + suffix + ".csv";
  return path + suffix;
}

std::vector<BarChart> ChartsOf(const Report& report) {
  std::vector<BarChart> charts;
  for (const Table& table : report.tables) {
    if (table.chart_column < 0 ||
        static_cast<std::size_t>(table.chart_column) >= table.columns.size()) {
      continue;
    }
    const auto column = static_cast<std::size_t>(table.chart_column);
    BarChart chart;
    chart.title = table.title;
    chart.value_label = table.columns[column].name;
    for (const auto& row : table.rows) {
      Bar bar;
      for (int c = 0; c < table.label_columns && static_cast<std::size_t>(c) < row.size(); ++c) {
        bar.label += (c ? " " : "") + CellText(row[c], table.columns[c].precision);
      }
      const Cell& cell = row[column];
      if (const auto* d = std::get_if<double>(&cell)) bar.values.push_back(*d);
      if (const auto* i = std::get_if<std::int64_t>(&cell))
        bar.values.push_back(static_cast<double>(*i));
      chart.bars.push_back(std::move(bar));
    }
    charts.push_back(std::move(chart));
  }
  return charts;
}

void WriteHtmlTable(const Table& table, std::ostream& out) {
  out << "<table>\n<caption>" << XmlEscape(table.title) << "</caption>\n<tr>";
  for (const Column& column : table.columns) out << "<th>" << XmlEscape(column.name) << "</th>";
  out << "</tr>\n";
  for (const auto& row : table.rows) {
    out << "<tr>";
    for (std::size_t c = 0; c < row.size(); ++c) {
      const bool text = std::holds_alternative<std::string>(row[c]);
      out << (text ? "<td>" : "<td class=\"n\">")
          << XmlEscape(CellText(row[c], table.columns[c].precision)) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
}

Status WriteFile(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (file) write(file);
  file.close();
  if (!file) return MakeError(CKR_FUNCTION_FAILED, "cannot write " + path);
  return OkStatus();
}

Status WriteReportFile(const Report& report, const std::string& path, bool csv,
                       std::ostream& stdout_stream) {
  if (path == "-") {
    if (csv) {
      WriteCsv(report, stdout_stream);
    } else {
      stdout_stream << ToJson(report).dump(2) << '\n';
    }
    return OkStatus();
  }
  if (!csv)
    return WriteFile(path, [&](std::ostream& out) { out << ToJson(report).dump(2) << '\n'; });
  for (std::size_t i = 0; i < report.tables.size(); ++i) {
    Report one = report;
    one.tables = {report.tables[i]};
    SIGNET_TRY(
        WriteFile(CsvPathFor(path, report, i), [&](std::ostream& out) { WriteCsv(one, out); }));
  }
  return OkStatus();
}

Status WriteChartFile(const Report& report, const std::string& path) {
  return WriteFile(path, [&](std::ostream& out) { WriteSvgBarCharts(ChartsOf(report), out); });
}

int EmitReport(const Report& report, const ReportPaths& paths, std::ostream& out,
               std::ostream& err) {
  if (paths.csv != "-" && paths.json != "-") WriteText(report, out);
  for (const auto& [path, csv] : {std::pair{paths.csv, true}, std::pair{paths.json, false}}) {
    if (path.empty()) continue;
    Status status = WriteReportFile(report, path, csv, out);
    if (!status.ok()) {
      err << "bench " << report.command << ": " << status.error().message << '\n';
      return 1;
    }
  }
  if (!paths.chart.empty()) {
    if (Status status = WriteChartFile(report, paths.chart); !status.ok()) {
      err << "bench " << report.command << ": " << status.error().message << '\n';
      return 1;
    }
  }
  return 0;
}

}  // namespace signet::bench
