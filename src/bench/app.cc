#include "bench/app.h"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <thread>

#include "bench/app_in_process.h"
#include "bench/app_workload.h"
#include "bench/local_daemon.h"
#include "bench/machine_notes.h"
#include "bench/progress_bar.h"
#include "bench/report_writers.h"
#include "bench/sign_algorithms.h"
#include "bench/stats.h"
#include "crypto/keys.h"

namespace signet::bench {
namespace {

constexpr std::size_t kMaxPayload = 512 * 1024;  // well inside the 1 MiB frame
constexpr auto kWarmUpBound = std::chrono::minutes(15);
constexpr auto kWarmUpPoll = std::chrono::milliseconds(100);
const std::vector<std::string> kDefaultAlgorithms = {"rsa:512",  "rsa:522",  "rsa:1024", "rsa:2048",
                                                     "rsa:3072", "rsa:4096", "ec:p256",  "ed25519"};

// Mode: how the daemon of a pass is set up, or kInProcess for no daemon
// (app_in_process.h). Rows print its name.
enum class Mode { kOff, kOn, kGiven, kInProcess };
constexpr const char* kModeNames[] = {"off", "on", "given", "in-process"};

// InProcessOnly: sizes a token refuses (under 1024 bits) run in-process.
bool InProcessOnly(const SignAlgorithm& algo) {
  return algo.spec.type == crypto::KeyType::kRsa && algo.spec.rsa_bits < 1024;
}

// AlgorithmsFor: the types a pass of `mode` measures.
std::vector<const SignAlgorithm*> AlgorithmsFor(Mode mode,
                                                const std::vector<const SignAlgorithm*>& algos,
                                                bool all_in_process) {
  std::vector<const SignAlgorithm*> out;
  for (const SignAlgorithm* algo : algos) {
    if ((mode == Mode::kInProcess) == (all_in_process || InProcessOnly(*algo))) {
      out.push_back(algo);
    }
  }
  return out;
}

int TrialsFor(const AppOptions& options, const SignAlgorithm& algo, Mode mode) {
  if (options.trials > 0) return options.trials;
  if (mode == Mode::kOn || algo.spec.type != crypto::KeyType::kRsa) return 10;
  if (algo.spec.rsa_bits >= 4096) return 3;
  return algo.spec.rsa_bits >= 3072 ? 5 : 10;
}

std::string PoolName(const SignAlgorithm& algo) { return crypto::KeySpecName(algo.spec); }

const client::PoolStat* FindPool(const client::ServerStats& stats, const std::string& name) {
  for (const auto& p : stats.pools) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

// RowResult: one (type, mode) pass.
struct RowResult {
  std::vector<FileTimes> files;
  std::uint64_t pool_taken = 0;
  std::uint64_t pool_misses = 0;
};

// PoolWanted: for each selected type, the number of ready keys to wait for.
using PoolWanted = std::vector<std::pair<std::string, std::uint64_t>>;

// WaitForPool polls GetStats until every wanted pool holds its keys.
// CKR_DEVICE_ERROR when the daemon has no such pool or it stays short.
Status WaitForPool(AppSession& session, const PoolWanted& wanted, bool progress) {
  std::uint64_t total = 0;
  for (const auto& [name, n] : wanted) total += n;
  ProgressBar bar = progress ? ProgressBar::ForStderr("pool warm-up", total)
                             : ProgressBar("pool warm-up", total, nullptr);
  const auto deadline = std::chrono::steady_clock::now() + kWarmUpBound;
  while (true) {
    SIGNET_ASSIGN_OR_RETURN(client::ServerStats stats, session.Stats());
    std::uint64_t ready = 0;
    for (const auto& [name, n] : wanted) {
      const client::PoolStat* pool = FindPool(stats, name);
      if (pool == nullptr) return MakeError(CKR_DEVICE_ERROR, "the daemon has no pool " + name);
      ready += std::min<std::uint64_t>(pool->size, n);
    }
    bar.Update(ready);
    if (ready >= total) return OkStatus();
    if (std::chrono::steady_clock::now() > deadline) {
      return MakeError(CKR_DEVICE_ERROR, "the key pool did not fill in time");
    }
    // Nothing to wait on over the wire: the pool fills in the daemon.
    std::this_thread::sleep_for(kWarmUpPoll);
  }
}

Result<RowResult> RunRow(AppSession& session, const SignAlgorithm& algo, int trials,
                         std::size_t size, ProgressBar& bar, std::uint64_t& done) {
  RowResult row;
  const std::string name = PoolName(algo);
  SIGNET_ASSIGN_OR_RETURN(client::ServerStats before, session.Stats());
  for (int i = 0; i < trials; ++i) {
    SIGNET_ASSIGN_OR_RETURN(FileTimes t, session.RunFile(algo, size));
    row.files.push_back(t);
    bar.Update(++done);
  }
  SIGNET_ASSIGN_OR_RETURN(client::ServerStats after, session.Stats());
  const client::PoolStat* p0 = FindPool(before, name);
  const client::PoolStat* p1 = FindPool(after, name);
  if (p0 != nullptr && p1 != nullptr) {
    row.pool_taken = p1->taken - p0->taken;
    row.pool_misses = p1->misses - p0->misses;
  }
  return row;
}

// Pass: one daemon set-up and the rows measured on it.
struct Pass {
  Mode mode;
  std::map<const SignAlgorithm*, RowResult> rows;
};

std::string PoolFlag(const AppOptions& options, const std::vector<const SignAlgorithm*>& algos) {
  std::string flag;
  for (const SignAlgorithm* algo : algos) {
    flag += (flag.empty() ? "" : ",") + PoolName(*algo) + "=" +
            std::to_string(TrialsFor(options, *algo, Mode::kOn));
  }
  return flag;
}

std::string ResolvePin(const ServiceAccess& access) {
  if (access.pin) return *access.pin;
  const char* env = std::getenv("SIGNET_PIN");
  return env != nullptr ? env : "";
}

// RunInProcessPass measures every type of `algos` in this process.
Status RunInProcessPass(const AppOptions& options, const std::vector<const SignAlgorithm*>& algos,
                        ProgressBar& bar, std::uint64_t& done, Pass& pass) {
  SIGNET_ASSIGN_OR_RETURN(InProcessFiles files, InProcessFiles::Create());
  for (const SignAlgorithm* algo : algos) {
    RowResult& row = pass.rows[algo];
    for (int i = 0, n = TrialsFor(options, *algo, pass.mode); i < n; ++i) {
      SIGNET_ASSIGN_OR_RETURN(FileTimes t, files.RunFile(*algo, options.size));
      row.files.push_back(t);
      bar.Update(++done);
    }
  }
  return OkStatus();
}

// RunPass starts (or reaches) the daemon of `mode`, warms its pool and
// measures every type on it; an in-process pass needs no daemon.
Status RunPass(const AppOptions& options, const ServiceAccess& access,
               const std::vector<const SignAlgorithm*>& algos, ProgressBar& bar,
               std::uint64_t& done, Pass& pass) {
  if (pass.mode == Mode::kInProcess) return RunInProcessPass(options, algos, bar, done, pass);
  std::unique_ptr<LocalDaemon> daemon;
  std::string socket = access.socket, pin = ResolvePin(access), token = access.token_label;
  if (pass.mode != Mode::kGiven) {
    std::vector<std::string> args;
    // Two generator threads: the machine's cores, so warm-up is short.
    if (pass.mode == Mode::kOn) args = {"--pool", PoolFlag(options, algos), "--pool-threads", "2"};
    SIGNET_ASSIGN_OR_RETURN(daemon, LocalDaemon::Start("", args));
    socket = daemon->socket();
    pin = daemon->pin();
    token = daemon->token_label();
  }
  SIGNET_ASSIGN_OR_RETURN(auto session, AppSession::Open(socket, pin, token));
  PoolWanted wanted;
  if (pass.mode != Mode::kOff) {
    SIGNET_ASSIGN_OR_RETURN(client::ServerStats stats, session->Stats());
    for (const SignAlgorithm* algo : algos) {
      const client::PoolStat* pool = FindPool(stats, PoolName(*algo));
      if (pool == nullptr) continue;  // a given daemon may pool some types only
      const auto trials = static_cast<std::uint64_t>(TrialsFor(options, *algo, pass.mode));
      wanted.emplace_back(pool->name, std::min<std::uint64_t>(pool->target, trials));
    }
  }
  SIGNET_TRY(WaitForPool(*session, wanted, options.progress));
  for (const SignAlgorithm* algo : algos) {
    SIGNET_ASSIGN_OR_RETURN(
        pass.rows[algo],
        RunRow(*session, *algo, TrialsFor(options, *algo, pass.mode), options.size, bar, done));
  }
  return OkStatus();
}

Table MakeTable(const std::vector<const SignAlgorithm*>& algos, const std::vector<Pass>& passes) {
  Table table;
  table.id = "app";
  table.title = "mutable-file life cycle (milliseconds per file; pool in-process: no daemon)";
  table.chart_column = 3;  // create ms, one bar per (key, pool mode)
  table.label_columns = 2;
  table.columns = {{"Key", 0},          {"pool", 0},       {"files", 0},       {"create ms", 3},
                   {"create min", 3},   {"create max", 3}, {"keygen ms", 3},   {"upload ms", 3},
                   {"upload min", 3},   {"upload max", 3}, {"download ms", 3}, {"download min", 3},
                   {"download max", 3}, {"pool taken", 0}, {"pool empty", 0}};
  for (const SignAlgorithm* algo : algos) {
    for (const Pass& pass : passes) {
      const auto found = pass.rows.find(algo);
      if (found == pass.rows.end()) continue;  // measured by another pass
      const RowResult& r = found->second;
      std::vector<double> create, keygen, upload, download;
      for (const FileTimes& t : r.files) {
        create.push_back(t.create_ms);
        keygen.push_back(t.keygen_ms);
        upload.push_back(t.upload_ms);
        download.push_back(t.download_ms);
      }
      const Summary c = Summarize(create), u = Summarize(upload), d = Summarize(download);
      table.AddRow({std::string(algo->display), std::string(kModeNames[int(pass.mode)]),
                    static_cast<std::int64_t>(r.files.size()), c.median, c.best, c.worst,
                    Summarize(keygen).median, u.median, u.best, u.worst, d.median, d.best, d.worst,
                    static_cast<std::int64_t>(r.pool_taken),
                    static_cast<std::int64_t>(r.pool_misses)});
    }
  }
  return table;
}

// ModesFor: the daemon modes asked for (none with --pool in-process); the
// in-process pass is added by MeasureApp when a type needs it.
Result<std::vector<Mode>> ModesFor(const AppOptions& options, const ServiceAccess& access) {
  if (options.pool == "in-process") return std::vector<Mode>{};
  if (!access.socket.empty()) {
    if (ResolvePin(access).empty()) {
      return MakeError(CKR_ARGUMENTS_BAD, "a daemon given by --socket needs --pin or SIGNET_PIN");
    }
    return std::vector<Mode>{Mode::kGiven};
  }
  if (options.pool == "off") return std::vector<Mode>{Mode::kOff};
  if (options.pool == "on") return std::vector<Mode>{Mode::kOn};
  if (options.pool == "both") return std::vector<Mode>{Mode::kOff, Mode::kOn};
  return MakeError(CKR_ARGUMENTS_BAD,
                   "--pool takes on, off, both or in-process, not '" + options.pool + "'");
}

std::string JoinModes(const std::vector<Pass>& passes) {
  std::string out;
  for (const Pass& pass : passes)
    out += (out.empty() ? "" : ", ") + std::string(kModeNames[int(pass.mode)]);
  return out;
}

std::string TrialsNote(const AppOptions& options) {
  if (options.trials > 0) return std::to_string(options.trials) + " per key type and mode";
  return "10 per key type and mode; without a pool 5 for RSA-3072 and 3 for RSA-4096";
}

// AddRunNotes says what was run: modes, files, payload, the daemons and,
// when there is one, what an in-process row is.
void AddRunNotes(Report& report, const AppOptions& options, const ServiceAccess& access,
                 const std::vector<Pass>& passes, const std::vector<const SignAlgorithm*>& pooled) {
  report.notes.emplace_back("pool modes", JoinModes(passes));
  report.notes.emplace_back("files", TrialsNote(options));
  report.notes.emplace_back("payload", std::to_string(options.size) + " bytes, AES-256-GCM");
  bool daemon = false, pool_on = false, in_process = false;
  for (const Pass& pass : passes) {
    daemon |= pass.mode != Mode::kInProcess && !pass.rows.empty();
    pool_on |= pass.mode == Mode::kOn;
    in_process |= pass.mode == Mode::kInProcess;
  }
  if (daemon) {
    const std::string own = pool_on ? "own signetd per mode; pool on: --pool " +
                                          PoolFlag(options, pooled) +
                                          " --pool-threads 2, warm before timing"
                                    : "own signetd, no key pool";
    report.notes.emplace_back("daemon",
                              !access.socket.empty() ? "given (" + access.socket + ")" : own);
  }
  if (in_process) {
    report.notes.emplace_back(
        "in-process",
        "no daemon: the same steps with crypto/ in this process (the token refuses RSA under "
        "1024 bits), so no round trips; create ms - keygen ms is the time spent outside key "
        "generation. Compare in-process rows with each other, not with daemon rows");
  }
}

}  // namespace

Result<Report> MeasureApp(const AppOptions& options, const ServiceAccess& access) {
  if (options.trials < 0) return MakeError(CKR_ARGUMENTS_BAD, "--trials must be >= 0");
  if (options.size == 0 || options.size > kMaxPayload) {
    return MakeError(CKR_ARGUMENTS_BAD, "--size takes 1 to 524288 bytes");
  }
  SIGNET_ASSIGN_OR_RETURN(std::vector<Mode> modes, ModesFor(options, access));
  SIGNET_ASSIGN_OR_RETURN(
      auto algos,
      SelectSignAlgorithms(options.algorithms.empty() ? kDefaultAlgorithms : options.algorithms,
                           &std::cerr));
  const bool all_in_process = options.pool == "in-process";
  const auto daemon_algos = AlgorithmsFor(Mode::kOff, algos, all_in_process);
  if (daemon_algos.empty()) modes.clear();  // no daemon to start for nothing
  if (!AlgorithmsFor(Mode::kInProcess, algos, all_in_process).empty()) {
    modes.push_back(Mode::kInProcess);
  }
  std::uint64_t total = 0;
  for (Mode mode : modes) {
    for (const SignAlgorithm* algo : AlgorithmsFor(mode, algos, all_in_process)) {
      total += TrialsFor(options, *algo, mode);
    }
  }
  Report report;
  report.command = "app";
  AddCpuNote(report);  // no cycle column here: AddMachineNotes' other notes would not apply
  std::vector<Pass> passes;
  ProgressBar bar =
      options.progress ? ProgressBar::ForStderr("app", total) : ProgressBar("app", total, nullptr);
  std::uint64_t done = 0;
  for (Mode mode : modes) {
    passes.push_back(Pass{mode, {}});
    SIGNET_TRY(RunPass(options, access, AlgorithmsFor(mode, algos, all_in_process), bar, done,
                       passes.back()));
  }
  bar.Finish();
  AddRunNotes(report, options, access, passes, daemon_algos);
  report.tables.push_back(MakeTable(algos, passes));
  return report;
}

int RunApp(const AppOptions& options, const ServiceAccess& access, std::ostream& out,
           std::ostream& err) {
  Result<Report> report = MeasureApp(options, access);
  if (!report.ok()) {
    err << "bench app: " << report.error().message << '\n';
    return 1;
  }
  return EmitReport(*report, {options.csv_path, options.json_path, options.chart_path}, out, err);
}

}  // namespace signet::bench
