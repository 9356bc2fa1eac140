#include "bench/report.h"

#include <cassert>
#include <cstdio>

namespace signet::bench {

std::string CellText(const Cell& cell, int precision) {
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return std::to_string(*i);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", precision, std::get<double>(cell));
  return buf;
}

void Table::AddRow(std::vector<Cell> cells) {
  assert(cells.size() == columns.size());
  rows.push_back(std::move(cells));
}

}  // namespace signet::bench
