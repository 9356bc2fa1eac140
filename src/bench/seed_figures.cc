#include "bench/seed_figures.h"

#include <nlohmann/json.hpp>

namespace signet::bench {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kBenches[] = {"speed", "keygen", "parallel", "profile", "app"};

SeedColumn ParseColumn(const Json& j) {
  SeedColumn column;
  column.name = j.at("name").get<std::string>();
  if (!j.at("here").is_null()) column.here = j.at("here").get<std::string>();
  const std::string ratio = j.at("ratio").get<std::string>();
  if (ratio != "here/seed" && ratio != "seed/here") {
    throw std::invalid_argument("ratio must be here/seed or seed/here, not " + ratio);
  }
  column.here_over_seed = ratio == "here/seed";
  return column;
}

SeedRow ParseRow(const Json& j, std::size_t columns) {
  SeedRow row;
  row.name = j.at("name").get<std::string>();
  row.values = j.at("values").get<std::vector<double>>();
  if (row.values.size() != columns) {
    throw std::invalid_argument("row '" + row.name + "' needs one value per column");
  }
  if (!j.at("here").is_null()) {
    row.here = j.at("here").get<std::vector<std::map<std::string, std::string>>>();
  }
  if (j.contains("column")) row.column = j.at("column").get<std::string>();
  if (j.contains("why")) row.why = j.at("why").get<std::string>();
  return row;
}

SeedTable ParseTable(const Json& j) {
  SeedTable table;
  table.id = j.at("id").get<std::string>();
  table.title = j.at("title").get<std::string>();
  table.bench = j.at("bench").get<std::string>();
  if (std::find(std::begin(kBenches), std::end(kBenches), table.bench) == std::end(kBenches)) {
    throw std::invalid_argument("unknown bench '" + table.bench + "'");
  }
  table.table = j.at("table").get<std::string>();
  for (const Json& c : j.at("columns")) table.columns.push_back(ParseColumn(c));
  for (const Json& r : j.at("rows")) table.rows.push_back(ParseRow(r, table.columns.size()));
  return table;
}

}  // namespace

Result<std::vector<Seed>> ParseSeedFigures(std::string_view json) {
  try {
    const Json doc = Json::parse(json);
    std::vector<Seed> seeds;
    for (const Json& s : doc.at("seeds")) {
      Seed seed;
      seed.id = s.at("id").get<std::string>();
      seed.title = s.at("title").get<std::string>();
      seed.source = s.at("source").get<std::string>();
      for (const Json& t : s.at("tables")) seed.tables.push_back(ParseTable(t));
      seeds.push_back(std::move(seed));
    }
    return seeds;
  } catch (const std::exception& e) {
    return MakeError(CKR_ARGUMENTS_BAD, std::string("seed figures: ") + e.what());
  }
}

}  // namespace signet::bench
