#include "bench/profile.h"

#include <barrier>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>

#include "bench/profile_callgraph.h"
#include "bench/progress_bar.h"
#include "bench/report_writers.h"
#include "core/stats.h"
#include "crypto/keys.h"
#include "crypto/sign.h"
#include "crypto/symmetric.h"

namespace signet::bench {
namespace {

std::vector<PhaseDelta> Difference(const client::ServerStats& before,
                                   const client::ServerStats& after) {
  std::map<std::string, client::PhaseStat> old;
  for (const auto& p : before.phases) old[p.name] = p;
  std::vector<PhaseDelta> out;
  for (const auto& p : after.phases) {
    const client::PhaseStat& b = old[p.name];
    out.push_back({p.name, p.calls - b.calls, p.total_ns - b.total_ns});
  }
  return out;
}

double RsaSignNs() {
  auto key = crypto::PrivateKey::Generate({crypto::KeyType::kRsa, 2048});
  if (!key.ok()) return 0;
  Bytes digest(32, 7);
  crypto::SignParams params;
  params.prehashed = true;
  constexpr int kSigns = 20;
  (void)crypto::Sign(*key, params, digest);  // warm the context pool
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kSigns; ++i) (void)crypto::Sign(*key, params, digest);
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / kSigns;
}

// AddPhaseRow adds a phase; `within` names the phase that contains it
// (text indents such rows; CSV and JSON keep the plain name).
void AddPhaseRow(Table& table, const std::string& name, const std::string& within,
                 std::uint64_t calls, double total_ns, double whole_ns) {
  const double pct = whole_ns > 0 ? 100.0 * total_ns / whole_ns : 0;
  const double per_call_us = calls > 0 ? total_ns / 1e3 / static_cast<double>(calls) : 0;
  table.AddRow({name, within, static_cast<std::int64_t>(calls), total_ns / 1e9, pct, per_call_us});
}

}  // namespace

double MeasureCounterCost(int iterations) {
  core::PhaseCounters counters;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) {
    const std::uint64_t start = core::NowNs();
    counters.Add(core::Phase::kSign, core::NowNs() - start);
  }
  const auto t1 = std::chrono::steady_clock::now();
  if (counters.Get(core::Phase::kSign).calls != static_cast<std::uint64_t>(iterations)) return 0;
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / iterations;
}

Report ProfileReport(const std::vector<PhaseDelta>& phases, double whole_ns,
                     const ProfileOptions& options, double record_ns, double rsa2048_sign_ns) {
  std::map<std::string, PhaseDelta> by_name;
  std::uint64_t records = 0;
  for (const auto& p : phases) {
    by_name[p.name] = p;
    records += p.calls;
  }
  Report report;
  report.command = "profile";
  Table table;
  table.title = "where the time goes (" + options.algorithm + ", n " + std::to_string(options.n) +
                ", c " + std::to_string(options.clients) + ")";
  table.id = "phases";
  table.chart_column = 4;  // % of whole
  table.columns = {{"phase", 0},   {"within", 0},     {"calls", 0},
                   {"total s", 6}, {"% of whole", 2}, {"per call us", 2}};
  double daemon_ns = 0, children_ns = 0;
  // execute contains the in_execute rows, so only the others add up to the
  // daemon's share.
  for (const ProfilePhase& phase : kProfilePhases) {
    const PhaseDelta& d = by_name[phase.name];
    AddPhaseRow(table, phase.name, phase.in_execute ? "execute" : "", d.calls,
                static_cast<double>(d.total_ns), whole_ns);
    (phase.in_execute ? children_ns : daemon_ns) += static_cast<double>(d.total_ns);
  }
  const PhaseDelta& execute = by_name["execute"];
  AddPhaseRow(table, "execute_other", "execute", execute.calls,
              static_cast<double>(execute.total_ns) - children_ns, whole_ns);
  AddPhaseRow(table, "outside_daemon", "", options.n, whole_ns - daemon_ns, whole_ns);
  AddPhaseRow(table, "whole", "", options.n, whole_ns, whole_ns);
  report.tables.push_back(std::move(table));

  const double per_request = options.n > 0 ? static_cast<double>(records) / options.n : 0;
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "%.1f ns (2 steady_clock reads + 2 relaxed atomic adds, "
                "uncontended, measured in-process)",
                record_ns);
  report.notes.emplace_back("counter record cost", buf);
  std::snprintf(buf, sizeof(buf),
                "%.2f records/request x %.1f ns = %.0f ns/request = %.4f%% of "
                "one RSA-2048 signature (%.0f us here)",
                per_request, record_ns, per_request * record_ns,
                rsa2048_sign_ns > 0 ? 100.0 * per_request * record_ns / rsa2048_sign_ns : 0,
                rsa2048_sign_ns / 1e3);
  report.notes.emplace_back("counter cost per request", buf);
  report.notes.emplace_back("rows",
                            "execute contains the rows 'within' it; every other row but "
                            "'whole' adds up to 100%; outside_daemon = client work, socket "
                            "transfer, waiting in the shared-memory ring, and client-side "
                            "verification");
  return report;
}

Result<ProfileRun> MeasureProfile(const ProfileOptions& options, DaemonBackend& backend) {
  SIGNET_ASSIGN_OR_RETURN(const SignAlgorithm* algo,
                          FindSignAlgorithm(options.algorithm, &std::cerr));
  SIGNET_ASSIGN_OR_RETURN(WorkerFactory factory, backend.Prepare(*algo, options.verify));
  // The "before" snapshot is taken once every client has connected and
  // logged in, so their set-up requests are not profiled.
  Result<client::ServerStats> before = MakeError(CKR_GENERAL_ERROR, "no snapshot");
  double cpu_before = -1;
  std::barrier sync(options.clients, [&]() noexcept {
    before = backend.Stats();
    cpu_before = backend.DaemonCpuSeconds();
  });
  WorkerFactory synced = [&](int client) -> Result<Operation> {
    Result<Operation> op = factory(client);
    sync.arrive_and_wait();
    return op;
  };
  ProgressBar bar = options.progress ? ProgressBar::ForStderr("profile", options.n)
                                     : ProgressBar("profile", options.n, nullptr);
  SIGNET_ASSIGN_OR_RETURN(ParallelRun run,
                          RunLoad({std::string(algo->label), options.clients, options.n}, synced,
                                  [&bar](std::uint64_t done) { bar.Update(done); }));
  bar.Finish();
  if (!before.ok()) return before.error();
  const double cpu_after = backend.DaemonCpuSeconds();
  SIGNET_ASSIGN_OR_RETURN(client::ServerStats after, backend.Stats());
  ProfileRun out;
  for (double s : run.latencies_s) out.whole_ns += s * 1e9;
  out.phases = Difference(*before, after);
  out.report = ProfileReport(out.phases, out.whole_ns, options, MeasureCounterCost(), RsaSignNs());
  out.report.notes.emplace(out.report.notes.begin(), "daemon workers",
                           std::to_string(after.workers));
  out.report.notes.emplace(out.report.notes.begin() + 1,
                           "requests run on the event loop (no worker woken)",
                           std::to_string(after.ran_on_event_loop - before->ran_on_event_loop) +
                               " of " + std::to_string(after.completed - before->completed));
  out.report.notes.emplace(out.report.notes.begin() + 2, "requests through the shared-memory ring",
                           std::to_string(after.ring_requests - before->ring_requests) + " of " +
                               std::to_string(options.n));
  if (cpu_before >= 0 && cpu_after >= cpu_before) {
    // Clock ticks (10 ms) bound its precision: +-10 ms over the whole run.
    char text[128];
    std::snprintf(
        text, sizeof(text), "%.1f us (user + system from /proc/PID/stat over %llu requests)",
        (cpu_after - cpu_before) * 1e6 / options.n, static_cast<unsigned long long>(options.n));
    out.report.notes.emplace(out.report.notes.begin() + 3, "signetd CPU per request", text);
  }
  out.workers = after.workers;
  out.run = std::move(run);
  return out;
}

int RunProfile(const ProfileOptions& options, DaemonBackend& backend, std::ostream& out,
               std::ostream& err) {
  if (options.format != "table" && options.format != "callgraph") {
    err << "bench profile: --format is table or callgraph, not '" << options.format << "'\n";
    return 2;
  }
  Result<ProfileRun> profile = MeasureProfile(options, backend);
  if (!profile.ok()) {
    err << "bench profile: " << profile.error().message << '\n';
    return profile.error().code == CKR_ARGUMENTS_BAD ? 2 : 1;
  }
  out << FormatParallelLine(profile->run) << "\n\n";
  if (options.format == "callgraph") {
    out << "# phase counters of signetd (" << profile->workers
        << " workers); self and children in milliseconds\n\n"
        << FormatCallGraph(profile->phases, profile->whole_ns, options.n);
    return 0;
  }
  return EmitReport(profile->report, {options.csv_path, options.json_path, options.chart_path}, out,
                    err);
}

}  // namespace signet::bench
