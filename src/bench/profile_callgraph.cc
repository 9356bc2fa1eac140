#include "bench/profile_callgraph.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace signet::bench {
namespace {

constexpr const char* kRoot = "sign_request";
constexpr const char* kRule = "-----------------------------------------------\n";

struct Node {
  std::string name;
  std::string parent;  // empty for the root
  std::uint64_t calls = 0;
  double total_ms = 0;  // self + children
  double children_ms = 0;
  int index = 0;
  double SelfMs() const { return std::max(0.0, total_ms - children_ms); }
};

// BuildNodes turns the counters into the tree the header describes.
std::vector<Node> BuildNodes(const std::vector<PhaseDelta>& phases, double whole_ns,
                             std::uint64_t requests) {
  std::map<std::string, PhaseDelta> by_name;
  for (const PhaseDelta& p : phases) by_name[p.name] = p;
  std::vector<Node> nodes = {{kRoot, "", requests, whole_ns / 1e6}};
  for (const ProfilePhase& phase : kProfilePhases) {
    const PhaseDelta& d = by_name[phase.name];
    if (d.calls == 0) continue;
    nodes.push_back({phase.name, phase.in_execute ? "execute" : kRoot, d.calls,
                     static_cast<double>(d.total_ns) / 1e6});
  }
  for (Node& node : nodes) {
    for (const Node& child : nodes) {
      if (child.parent == node.name) node.children_ms += child.total_ms;
    }
  }
  std::stable_sort(nodes.begin(), nodes.end(),
                   [](const Node& a, const Node& b) { return a.total_ms > b.total_ms; });
  for (std::size_t i = 0; i < nodes.size(); ++i) nodes[i].index = static_cast<int>(i) + 1;
  return nodes;
}

// RelativeLine: a parent or child line, indented under the primary line.
// As in gprof, both carry the callee's times and calls ("x/y": calls from
// this caller / all calls; one caller each here, so x = y) and the name of
// the caller (parent line) or callee (child line).
std::string RelativeLine(const Node& callee, const Node& named) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), "%12s %7.2f %7.2f %7llu/%-7llu     %s [%d]\n", "",
                callee.SelfMs(), callee.children_ms, static_cast<unsigned long long>(callee.calls),
                static_cast<unsigned long long>(callee.calls), named.name.c_str(), named.index);
  return buf;
}

}  // namespace

std::string FormatCallGraph(const std::vector<PhaseDelta>& phases, double whole_ns,
                            std::uint64_t requests) {
  const std::vector<Node> nodes = BuildNodes(phases, whole_ns, requests);
  std::string out = "index % time    self  children    called     name\n";
  for (const Node& node : nodes) {
    out += kRule;
    if (node.parent.empty()) {
      out += std::string(45, ' ') + "<spontaneous>\n";
    }
    for (const Node& parent : nodes) {
      if (parent.name == node.parent) out += RelativeLine(node, parent);
    }
    char buf[256];
    const std::string index = "[" + std::to_string(node.index) + "]";
    const double pct = whole_ns > 0 ? 100.0 * node.total_ms * 1e6 / whole_ns : 0;
    std::snprintf(buf, sizeof(buf), "%-6s %5.1f %7.2f %7.2f %7llu %7s %s [%d]\n", index.c_str(),
                  pct, node.SelfMs(), node.children_ms, static_cast<unsigned long long>(node.calls),
                  "", node.name.c_str(), node.index);
    out += buf;
    for (const Node& child : nodes) {
      if (child.parent == node.name) out += RelativeLine(child, child);
    }
  }
  out += kRule;
  return out;
}

}  // namespace signet::bench
