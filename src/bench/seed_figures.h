// The seeds' published figures (seed_figures.json, compiled into the
// program) and where each one's counterpart lies in signet's own bench
// reports. `bench seeds` reads them; so does its test, which checks that
// every row here gets a figure from this machine.
//
// A row's `here` lists row matches ({column: cell text}) in the table
// `table` of the report of bench `bench`; the counterpart is the sum of
// the matched rows' cells in the column's `here` column (or the row's own
// `column`). No matches (null in the file): the seed row has no
// counterpart in a software HSM and `why` says why.
// Immutable once parsed: safe to read from any thread.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "signet/result.hpp"

namespace signet::bench {

// SeedColumn: a column of a seed table and the column of signet's report
// it compares with. here_over_seed: the ratio is here/seed (rates, shares);
// else seed/here (times), so a ratio above 1 means this machine does better.
struct SeedColumn {
  std::string name;
  std::string here;
  bool here_over_seed = true;
};

struct SeedRow {
  std::string name;
  std::vector<double> values;                            // one per column
  std::vector<std::map<std::string, std::string>> here;  // empty: none
  std::string column;  // overrides the column's `here` (one-column tables)
  std::string why;     // a note on the counterpart, or why there is none
};

struct SeedTable {
  std::string id;
  std::string title;
  std::string bench;  // "speed", "keygen", "parallel", "profile", "app"
  std::string table;  // the id of that bench's table
  std::vector<SeedColumn> columns;
  std::vector<SeedRow> rows;
};

struct Seed {
  std::string id;  // "000"
  std::string title;
  std::string source;  // who published it, where, on what machine
  std::vector<SeedTable> tables;
};

// SeedFiguresJson is seed_figures.json as compiled in.
std::string_view SeedFiguresJson();

// ParseSeedFigures reads the file's text. CKR_ARGUMENTS_BAD when it is not
// valid JSON of that shape (a row with a value per column, a known bench).
[[nodiscard]] Result<std::vector<Seed>> ParseSeedFigures(std::string_view json);

}  // namespace signet::bench
