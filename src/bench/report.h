// The result model every bench command fills and every writer reads: a
// Report is a few notes (how cycles were counted, how many keys, ...) and
// one or more Tables of typed cells. Commands build a Report; the text,
// CSV and JSON writers (report_writers.h) render it, so the three forms
// never disagree. Plain values: not synchronised.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace signet::bench {

// Cell: text, an integer count or a measured number.
using Cell = std::variant<std::string, std::int64_t, double>;

// CellText: a cell as the text tables show; numbers with `precision` digits.
std::string CellText(const Cell& cell, int precision);

// Column: `name` heads the column in every form; `precision` is the number
// of decimals a double gets in the text form (CSV/JSON keep full precision).
struct Column {
  std::string name;
  int precision = 2;
};

// Table: a titled grid. Rows have exactly columns.size() cells.
struct Table {
  // id: a short name for the table's own CSV file ("hashes" makes
  // speed-hashes.csv of --csv speed.csv when a report has several tables);
  // empty: "table<N>".
  std::string id;
  std::string title;  // e.g. "hashes and ciphers"
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;
  // chart_column: the numeric column `--chart` draws as one bar per row
  // (-1: the table has no chart); each bar is labelled by the cells of the
  // first label_columns columns.
  int chart_column = -1;
  int label_columns = 1;

  // AddRow appends a row. REQUIRES: cells.size() == columns.size().
  void AddRow(std::vector<Cell> cells);
};

// Report: everything one command run produced.
struct Report {
  std::string command;                                     // "speed"
  std::vector<std::pair<std::string, std::string>> notes;  // key, value
  std::vector<Table> tables;
};

}  // namespace signet::bench
