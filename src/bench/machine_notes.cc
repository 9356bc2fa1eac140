#include "bench/machine_notes.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "bench/cycle_clock.h"

namespace signet::bench {
namespace {

std::string CpuModel() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
    }
  }
  return "";
}

std::string CycleNote(bool quick) {
  if (!HasCycleCounter()) {
    return "no cycle counter on this architecture: cycle columns are 0";
  }
  const double hz = MeasureCycleCounterHz(std::chrono::milliseconds(quick ? 50 : 200));
  char buf[200];
  std::snprintf(buf, sizeof(buf),
                "x86 time-stamp counter (RDTSC) at %.3f GHz measured against steady_clock; "
                "constant-rate reference cycles, not core clock cycles",
                hz / 1e9);
  return buf;
}

}  // namespace

void AddCpuNote(Report& report) {
  const std::string cpu = CpuModel();
  if (!cpu.empty()) {
    report.notes.emplace_back(
        "cpu", cpu + " (" + std::to_string(std::thread::hardware_concurrency()) + " threads)");
  }
}

void AddMachineNotes(Report& report, bool quick) {
  AddCpuNote(report);
  report.notes.emplace_back("cycles", CycleNote(quick));
  report.notes.emplace_back("mode", quick ? "quick (short runs, rough numbers)" : "full");
}

}  // namespace signet::bench
