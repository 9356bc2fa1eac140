#include "bench/report.h"

#include <cassert>

namespace signet::bench {

void Table::AddRow(std::vector<Cell> cells) {
  assert(cells.size() == columns.size());
  rows.push_back(std::move(cells));
}

}  // namespace signet::bench
