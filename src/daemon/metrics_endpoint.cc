#include "daemon/metrics_endpoint.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <tuple>

#include "base/rv_names.h"
#include "core/key_pool.h"
#include "core/request_metrics.h"
#include "daemon/process_metrics.h"
#include "daemon/prometheus_text.h"
#include "daemon/request_labels.h"
#include "signet/version.hpp"

namespace signet::daemon {
namespace {

constexpr double kNsPerSecond = 1e9;

double Seconds(std::uint64_t ns) { return static_cast<double>(ns) / kNsPerSecond; }

// kBoundsSeconds: core::kLatencyBoundsNs in seconds, the `le` values.
const std::array<double, core::kLatencyBoundsNs.size()> kBoundsSeconds = [] {
  std::array<double, core::kLatencyBoundsNs.size()> out{};
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = Seconds(core::kLatencyBoundsNs[i]);
  return out;
}();

void RenderRequests(PrometheusText& out, const core::RequestMetrics& requests) {
  std::vector<core::RequestMetrics::CellSnapshot> cells;
  requests.ForEachCell([&](const core::RequestMetrics::CellSnapshot& c) { cells.push_back(c); });
  std::vector<core::RequestMetrics::ErrorCount> errors = requests.Errors();

  out.Family("signet_requests_total", "counter",
             "Requests dispatched, by operation, mechanism and result (CK_RV name).");
  for (const auto& c : cells) {
    if (c.ok == 0) continue;
    const std::string op = OpLabel(c.op);
    out.Sample("signet_requests_total",
               {{"op", op}, {"mechanism", MechanismLabel(c.mechanism)}, {"rv", "CKR_OK"}},
               static_cast<double>(c.ok));
  }
  for (const auto& e : errors) {
    const std::string op = OpLabel(e.op);
    const std::string rv = RvToString(e.rv);
    out.Sample("signet_requests_total",
               {{"op", op}, {"mechanism", MechanismLabel(e.mechanism)}, {"rv", rv}},
               static_cast<double>(e.count));
  }
  out.Family("signet_request_errors_uncounted_total", "counter",
             "Failed requests left out of signet_requests_total because its table of "
             "(op, mechanism, rv) combinations is full.");
  out.Sample("signet_request_errors_uncounted_total", {},
             static_cast<double>(requests.dropped_errors()));

  out.Family("signet_request_duration_seconds", "histogram",
             "Time from dispatch to reply built (queue wait not included: "
             "signet_queue_wait_seconds), by operation and mechanism.");
  for (const auto& c : cells) {
    const std::string op = OpLabel(c.op);
    out.Histogram("signet_request_duration_seconds",
                  {{"op", op}, {"mechanism", MechanismLabel(c.mechanism)}}, kBoundsSeconds,
                  c.buckets, Seconds(c.sum_ns));
  }
}

void RenderScheduler(PrometheusText& out, const core::Scheduler& scheduler,
                     core::PhaseCounters& phases) {
  const core::Scheduler::Stats s = scheduler.stats();
  out.Family("signet_workers", "gauge", "Worker threads.");
  out.Sample("signet_workers", {}, static_cast<double>(s.workers));
  const core::PhaseSnapshot execute = phases.Get(core::Phase::kExecute);
  out.Family("signet_worker_busy_seconds_total", "counter",
             "Time spent running requests (on workers, or inline on the event loop); "
             "rate() / signet_workers is the workers' utilisation.");
  out.Sample("signet_worker_busy_seconds_total", {}, Seconds(execute.total_ns));
  out.Family("signet_queue_depth", "gauge", "Requests queued for a worker now.");
  out.Sample("signet_queue_depth", {}, static_cast<double>(s.depth));
  out.Family("signet_queue_capacity", "gauge", "Most requests the queue holds (--max-queue).");
  out.Sample("signet_queue_capacity", {}, static_cast<double>(s.capacity));
  out.Family("signet_queue_peak_depth", "gauge", "Deepest the queue has been since start.");
  out.Sample("signet_queue_peak_depth", {}, static_cast<double>(s.peak));
  out.Family("signet_queue_rejected_total", "counter",
             "Requests refused because the queue was full (SIGNET_RV_BUSY).");
  out.Sample("signet_queue_rejected_total", {}, static_cast<double>(s.rejected));
  out.Family("signet_tasks_completed_total", "counter",
             "Tasks the scheduler ran (requests and connection clean-up).");
  out.Sample("signet_tasks_completed_total", {}, static_cast<double>(s.completed));
  out.Family("signet_tasks_inline_total", "counter",
             "Of those, short signatures run on the event loop while every worker was idle.");
  out.Sample("signet_tasks_inline_total", {}, static_cast<double>(s.ran_here));
  out.Family("signet_tasks_local_total", "counter",
             "Of those, tasks a worker took ahead of their turn because their client "
             "runs on the worker's CPU.");
  out.Sample("signet_tasks_local_total", {}, static_cast<double>(s.ran_local));
  const core::PhaseSnapshot wait = phases.Get(core::Phase::kQueueWait);
  out.Family("signet_queue_wait_seconds", "summary", "Time requests waited for a worker.");
  out.Sample("signet_queue_wait_seconds_sum", {}, Seconds(wait.total_ns));
  out.Sample("signet_queue_wait_seconds_count", {}, static_cast<double>(wait.calls));
  out.Family("signet_phase_seconds", "summary",
             "Where request time goes (the counters of `signet stats`), by phase.");
  for (int i = 0; i < static_cast<int>(core::Phase::kCount); ++i) {
    auto phase = static_cast<core::Phase>(i);
    const core::PhaseSnapshot p = phases.Get(phase);
    const Labels labels = {{"phase", core::PhaseName(phase)}};
    out.Sample("signet_phase_seconds_sum", labels, Seconds(p.total_ns));
    out.Sample("signet_phase_seconds_count", labels, static_cast<double>(p.calls));
  }
}

// RenderKeystore: a shared keystore's connection (none for a data
// directory).
void RenderKeystore(PrometheusText& out, const keystore::KeystoreHealth& health) {
  if (!health.shared) return;
  out.Family("signet_keystore_listening", "gauge",
             "1 while the LISTEN connection to the PostgreSQL keystore is up and caught up; "
             "0: every key use asks the database.");
  out.Sample("signet_keystore_listening", {}, health.listening ? 1 : 0);
  out.Family("signet_keystore_statements_total", "counter",
             "SQL statements sent to the PostgreSQL keystore.");
  out.Sample("signet_keystore_statements_total", {}, static_cast<double>(health.statements));
}

void RenderKeys(PrometheusText& out, core::Hsm& hsm) {
  const keystore::CacheStats cache = hsm.CacheTotals();
  out.Family("signet_key_cache_hits_total", "counter",
             "Key uses served by the unwrapped-key cache.");
  out.Sample("signet_key_cache_hits_total", {}, static_cast<double>(cache.hits));
  out.Family("signet_key_cache_misses_total", "counter", "Key uses that had to unwrap the key.");
  out.Sample("signet_key_cache_misses_total", {}, static_cast<double>(cache.misses));
  out.Family("signet_key_cache_evictions_total", "counter", "Keys evicted from the cache.");
  out.Sample("signet_key_cache_evictions_total", {}, static_cast<double>(cache.evictions));
  out.Family("signet_key_cache_keys", "gauge", "Unwrapped keys in the cache now.");
  out.Sample("signet_key_cache_keys", {}, static_cast<double>(cache.size));
  out.Family("signet_key_cache_capacity", "gauge", "Most keys the cache holds.");
  out.Sample("signet_key_cache_capacity", {}, static_cast<double>(cache.capacity));

  RenderKeystore(out, hsm.KeystoreHealth());

  std::vector<core::PoolTypeStats> pools;
  if (auto pool = hsm.key_pool()) pools = pool->Stats();
  struct PoolFamily {
    const char* name;
    const char* type;
    const char* help;
    double (*value)(const core::PoolTypeStats&);
  };
  static constexpr PoolFamily kPoolFamilies[] = {
      {"signet_key_pool_keys", "gauge", "Pre-generated key pairs ready, all tokens, by key type.",
       [](const core::PoolTypeStats& p) { return static_cast<double>(p.size); }},
      {"signet_key_pool_target", "gauge", "Key pairs the pool keeps per token (--pool).",
       [](const core::PoolTypeStats& p) { return static_cast<double>(p.target); }},
      {"signet_key_pool_taken_total", "counter", "Key pairs handed out by the pool.",
       [](const core::PoolTypeStats& p) { return static_cast<double>(p.taken); }},
      {"signet_key_pool_misses_total", "counter",
       "Key pair generations that found the pool empty and generated fresh.",
       [](const core::PoolTypeStats& p) { return static_cast<double>(p.misses); }},
      {"signet_key_pool_generated_total", "counter", "Key pairs the pool generated.",
       [](const core::PoolTypeStats& p) { return static_cast<double>(p.generated); }},
  };
  for (const PoolFamily& f : kPoolFamilies) {
    out.Family(f.name, f.type, f.help);
    for (const core::PoolTypeStats& p : pools) out.Sample(f.name, {{"type", p.name}}, f.value(p));
  }
}

void RenderTokens(PrometheusText& out, core::Hsm& hsm,
                  const std::vector<core::TokenActivity>& tokens) {
  out.Family("signet_tokens", "gauge", "Tokens served.");
  out.Sample("signet_tokens", {}, static_cast<double>(tokens.size()));
  out.Family("signet_tokens_unavailable", "gauge",
             "Token files found at start that could not be served.");
  out.Sample("signet_tokens_unavailable", {}, static_cast<double>(hsm.unavailable_tokens().size()));
  out.Family("signet_sessions_open", "gauge", "Sessions open over all connections.");
  out.Sample("signet_sessions_open", {}, static_cast<double>(hsm.open_sessions()));
  struct LoginFamily {
    const char* name;
    const char* help;
    const std::array<std::uint64_t, 2> core::TokenActivity::*counts;
  };
  static constexpr LoginFamily kLoginFamilies[] = {
      {"signet_logins_total", "PIN checks that passed (C_Login, C_SetPIN, C_InitToken), by token.",
       &core::TokenActivity::logins},
      {"signet_login_failures_total",
       "PIN checks that failed (CKR_PIN_INCORRECT or CKR_PIN_LOCKED), by token.",
       &core::TokenActivity::login_failures},
      {"signet_login_lockouts_total",
       "PIN checks answered CKR_PIN_LOCKED (the one that locked the PIN and any after), by token.",
       &core::TokenActivity::lockouts},
      {"signet_login_throttled_total",
       "PIN checks refused unchecked by the failed-login throttle, by token.",
       &core::TokenActivity::throttled},
  };
  for (const LoginFamily& f : kLoginFamilies) {
    out.Family(f.name, "counter", f.help);
    for (const core::TokenActivity& t : tokens) {
      for (std::size_t who = 0; who < 2; ++who) {
        out.Sample(f.name, {{"token", t.serial}, {"user", who == 0 ? "user" : "so"}},
                   static_cast<double>((t.*f.counts)[who]));
      }
    }
  }
}

void RenderConnections(PrometheusText& out, const Server& server) {
  const std::pair<const char*, const TransportCounters*> transports[] = {
      {"unix", &server.unix_connections()}, {"tls", &server.tls_connections()}};
  out.Family("signet_connections_open", "gauge", "Client connections open now, by transport.");
  for (const auto& [name, c] : transports) {
    out.Sample("signet_connections_open", {{"transport", name}},
               static_cast<double>(c->open.load(std::memory_order_relaxed)));
  }
  out.Family("signet_connections_accepted_total", "counter",
             "Client connections accepted since start, by transport.");
  for (const auto& [name, c] : transports) {
    out.Sample("signet_connections_accepted_total", {{"transport", name}},
               static_cast<double>(c->accepted.load(std::memory_order_relaxed)));
  }
  out.Family("signet_ring_connections_open", "gauge",
             "Unix connections with a shared-memory ring, open now.");
  out.Sample("signet_ring_connections_open", {}, static_cast<double>(server.ring_connections()));
  out.Family("signet_ring_requests_total", "counter",
             "Requests taken from shared-memory rings since start.");
  out.Sample("signet_ring_requests_total", {}, static_cast<double>(server.ring_requests()));
}

void RenderProcess(PrometheusText& out) {
  const ProcessMetrics p = ReadProcessMetrics();
  const std::tuple<const char*, const char*, const char*, double> families[] = {
      {"process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
       p.resident_memory_bytes},
      {"process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.",
       p.virtual_memory_bytes},
      {"process_open_fds", "gauge", "Number of open file descriptors.", p.open_fds},
      {"process_max_fds", "gauge", "Maximum number of open file descriptors.", p.max_fds},
      {"process_start_time_seconds", "gauge",
       "Start time of the process since unix epoch in seconds.", p.start_time_seconds},
      {"process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.",
       p.cpu_seconds},
  };
  for (const auto& [name, type, help, value] : families) {
    if (value < 0) continue;  // not readable here: left out rather than made up
    out.Family(name, type, help);
    out.Sample(name, {}, value);
  }
}

// TokenFileProblem: why `file` is not a readable token file, or "".
// stat(2) and access(2) only, never open(2): closing any descriptor of a
// file drops every POSIX lock this process holds on it, SQLite's included,
// and a token's WAL then looks unused to another process (a `signet
// backup`), which may delete it under the running daemon (SQLite's "How To
// Corrupt An SQLite Database File", section 2.2).
std::string TokenFileProblem(const std::filesystem::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  if (::access(file.c_str(), R_OK | W_OK) != 0) return std::strerror(errno);
  return "";
}

// ReadinessProblem: NotReadyReason with the served tokens already read
// (Hsm::Tokens reads each token's summary under its locks: once a scrape).
std::string ReadinessProblem(const MetricsSources& sources,
                             const std::vector<core::TokenActivity>& tokens) {
  if (sources.stopping && sources.stopping->load()) return "shutting down";
  if (!sources.self_tests_passed) return "crypto self-tests have not passed";
  if (sources.scheduler == nullptr || sources.scheduler->workers() == 0) {
    return "no worker threads running";
  }
  if (DIR* dir = ::opendir(sources.data_dir.c_str())) {
    ::closedir(dir);
  } else {
    return "data directory " + sources.data_dir.string() + ": " + std::strerror(errno);
  }
  for (const core::TokenActivity& t : tokens) {
    if (t.file.empty()) continue;  // a shared keystore's token: no file here
    if (std::string problem = TokenFileProblem(t.file); !problem.empty()) {
      return "token file " + t.file.string() + ": " + problem;
    }
  }
  return "";
}

std::vector<core::TokenActivity> ServedTokens(const MetricsSources& sources) {
  return sources.hsm ? sources.hsm->Tokens() : std::vector<core::TokenActivity>{};
}

}  // namespace

std::string RenderMetrics(const MetricsSources& sources) {
  PrometheusText out;
  out.Family("signet_build_info", "gauge", "The signetd version (the value is always 1).");
  out.Sample("signet_build_info", {{"version", kVersionString}}, 1);
  const std::vector<core::TokenActivity> tokens = ServedTokens(sources);
  const std::string not_ready = ReadinessProblem(sources, tokens);
  out.Family("signet_ready", "gauge", "1 while /readyz answers 200, else 0.");
  out.Sample("signet_ready", {}, not_ready.empty() ? 1 : 0);
  if (sources.server) RenderRequests(out, sources.server->request_metrics());
  if (sources.scheduler && sources.hsm) {
    RenderScheduler(out, *sources.scheduler, sources.hsm->counters());
  }
  if (sources.hsm) {
    RenderKeys(out, *sources.hsm);
    RenderTokens(out, *sources.hsm, tokens);
  }
  if (sources.server) RenderConnections(out, *sources.server);
  RenderProcess(out);
  return out.text();
}

std::string NotReadyReason(const MetricsSources& sources) {
  return ReadinessProblem(sources, ServedTokens(sources));
}

HttpResponse ServeMetricsPath(const MetricsSources& sources, const std::string& path) {
  if (path == "/metrics") {
    return HttpResponse{200, std::string(kPrometheusContentType), RenderMetrics(sources)};
  }
  if (path == "/healthz") return HttpResponse{200, "text/plain; charset=utf-8", "ok\n"};
  if (path == "/readyz") {
    std::string reason = NotReadyReason(sources);
    if (reason.empty()) return HttpResponse{200, "text/plain; charset=utf-8", "ready\n"};
    // One line: a file name with a newline in it must not add another.
    for (char& c : reason) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    return HttpResponse{503, "text/plain; charset=utf-8", "not ready: " + reason + "\n"};
  }
  return HttpResponse{404, "text/plain; charset=utf-8", "not found\n"};
}

}  // namespace signet::daemon
