// AddMachineNotes: the notes every timing report opens with, so a table
// read later says what it was measured on and how: the CPU model, the
// cycle counter and its measured rate, and whether the run was --quick.
// Reads /proc/cpuinfo (Linux; omitted elsewhere). Calling thread only.
#pragma once

#include "bench/report.h"

namespace signet::bench {

// AddCpuNote appends the "cpu" note alone (for reports without cycle
// columns); nothing where /proc/cpuinfo names no model.
void AddCpuNote(Report& report);

// AddMachineNotes appends "cpu", "cycles" and "mode" notes to `report`.
// Spins for 50 ms (quick) or 200 ms to measure the cycle counter's rate.
void AddMachineNotes(Report& report, bool quick);

}  // namespace signet::bench
