// WriteSeedsHtml (seeds.h): the `bench seeds --html` page.
#include <algorithm>

#include "bench/report_writers.h"
#include "bench/seeds.h"

namespace signet::bench {

void WriteSeedsHtml(const std::vector<Seed>& seeds, const Report& report,
                    const std::map<std::string, std::vector<BarChart>>& charts, std::ostream& out) {
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>signet bench seeds</title>\n"
         "<style>body{font-family:sans-serif;max-width:70em;margin:2em auto}"
         "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 6px}"
         "td.n{text-align:right}caption{text-align:left;font-weight:bold}</style></head><body>\n"
         "<h1>The seed reports beside this machine</h1>\n<ul>\n";
  for (const auto& [key, value] : report.notes) {
    if (!key.starts_with("seed ")) out << "<li>" << XmlEscape(key + ": " + value) << "</li>\n";
  }
  out << "</ul>\n";
  for (const Seed& seed : seeds) {
    out << "<h2>Seed " << XmlEscape(seed.id) << ": " << XmlEscape(seed.title) << "</h2>\n<p>"
        << XmlEscape(seed.source) << "</p>\n";
    for (const Table& table : report.tables) {
      if (table.id.starts_with(seed.id + "-")) WriteHtmlTable(table, out);
    }
    if (auto chart = charts.find(seed.id); chart != charts.end()) {
      WriteSvgBarCharts(chart->second, out);
    }
  }
  auto summary = std::find_if(report.tables.begin(), report.tables.end(),
                              [](const Table& t) { return t.id == "summary"; });
  if (summary != report.tables.end()) {
    out << "<h2>Summary</h2>\n";
    WriteHtmlTable(*summary, out);
  }
  out << "</body></html>\n";
}

}  // namespace signet::bench
