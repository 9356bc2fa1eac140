// signetd: the signet daemon. Parses arguments, runs the crypto self-tests,
// opens the data dir and the audit log, starts the worker pool and the
// server, rotates the audit log on SIGHUP, and on SIGTERM/SIGINT drains
// in-flight requests, closes the audit log and exits 0.
#include <grp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <asio.hpp>
#include <atomic>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/audit_format.h"
#include "core/hsm.h"
#include "core/key_pool.h"
#include "core/scheduler.h"
#include "crypto/legacy_provider.h"
#include "crypto/self_test.h"
#include "daemon/audit_log.h"
#include "daemon/log.h"
#include "daemon/login_ticket_key.h"
#include "daemon/metrics_endpoint.h"
#include "daemon/metrics_http.h"
#include "daemon/process_hardening.h"
#include "daemon/server.h"
#include "signet/version.hpp"

namespace {

struct Args {
  std::string data_dir;
  std::string keystore;
  std::string login_ticket_key;
  std::string socket_path;
  std::string cryptech_socket;
  std::string cryptech_token;
  std::string listen;
  std::string tls_cert;
  std::string tls_key;
  std::string tls_client_ca;
  std::string allow_group;
  // Every front-end limit, with its default, lives in ServerOptions.
  signet::daemon::ServerOptions server;
  double idle_timeout_s = 300;
  double handshake_timeout_s = 10;
  double drain_timeout_s = 30;
  std::size_t workers = 0;
  std::size_t max_queue = 4096;
  std::string pool = "off";
  bool strict = false;  // refuse to start when any token file is unusable
  bool legacy_des = true;  // load OpenSSL's legacy provider: single DES
  std::size_t pool_threads = 1;
  // On by default: it only acts for RSA >= 3072 bits and only when a worker
  // is idle, so it cuts a lone signature's latency and never costs
  // throughput (core/rsa_split.h).
  bool rsa_split = true;
  // The core's limits and access switches (core/limits.h has the defaults).
  signet::core::Limits limits;
  std::int64_t login_delay_base_ms = signet::core::Limits{}.login_delay_base.count();
  std::int64_t login_delay_cap_ms = signet::core::Limits{}.login_delay_cap.count();
  std::vector<std::string> public_rw_compat;
  // The metrics and health endpoint (daemon/metrics_http.h); empty: none.
  std::string metrics_listen;
  bool metrics_tls = false;
  // The chained audit log (daemon/audit_log.h); neither: lines on stderr.
  std::string audit_log;
  bool audit_syslog = false;
  std::uint64_t audit_log_max_bytes = 0;
};

// kAuditQueue: the scheduler queue rotations run on (no connection's id).
constexpr signet::core::Scheduler::QueueId kAuditQueue =
    std::numeric_limits<signet::core::Scheduler::QueueId>::max();

// AddAuditOptions: the audit log's flags (docs/SECURITY.md "Audit log").
void AddAuditOptions(CLI::App& app, Args& args) {
  app.add_option("--audit-log", args.audit_log,
                 "write audit records to FILE as chained JSON lines, each synced before the "
                 "reply (SIGHUP rotates; default: text lines on stderr)");
  app.add_flag("--audit-syslog", args.audit_syslog,
               "send each audit record to syslog (LOG_AUTHPRIV) as the same chained JSON "
               "(with --audit-log: to both)");
  app.add_option("--audit-log-max-bytes", args.audit_log_max_bytes,
                 "rotate the audit log file once it reaches this size (0: only on SIGHUP)")
      ->capture_default_str();
}

// OpenAuditLog: the audit log the flags ask for; nullptr when none.
signet::Result<std::unique_ptr<signet::daemon::AuditLog>> OpenAuditLog(const Args& args) {
  if (args.audit_log.empty() && !args.audit_syslog) {
    return std::unique_ptr<signet::daemon::AuditLog>();
  }
  return signet::daemon::AuditLog::Open(
      {.path = args.audit_log, .syslog = args.audit_syslog, .max_bytes = args.audit_log_max_bytes});
}

// RotateOnSighup rotates the audit log on each SIGHUP, on a worker (it
// writes and syncs files; the event loop never blocks).
void RotateOnSighup(asio::signal_set& hup, signet::core::Scheduler& scheduler,
                    signet::daemon::AuditLog* audit_log) {
  hup.async_wait([&hup, &scheduler, audit_log](const asio::error_code& ec, int) {
    if (ec) return;
    if (audit_log == nullptr) {
      signet::daemon::Log("received SIGHUP: no audit log to rotate");
    } else {
      scheduler.SubmitControl(kAuditQueue, [audit_log] {
        signet::Status rotated = audit_log->Rotate(signet::audit_format::kReasonSighup);
        signet::daemon::Log(rotated.ok() ? "audit log rotated"
                                         : "audit log rotation failed, writing on: " +
                                               rotated.error().message);
      });
    }
    RotateOnSighup(hup, scheduler, audit_log);
  });
}

// Millis converts a flag in seconds.
std::chrono::milliseconds Millis(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
}

// GroupId: a group given by number or name.
std::optional<gid_t> GroupId(const std::string& group) {
  if (!group.empty() && std::all_of(group.begin(), group.end(), ::isdigit)) {
    return static_cast<gid_t>(std::stoul(group));
  }
  std::vector<char> buffer(16384);
  struct group entry{};
  struct group* found = nullptr;
  if (::getgrnam_r(group.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 ||
      found == nullptr) {
    return std::nullopt;
  }
  return found->gr_gid;
}

// AddLimitOptions: the flags of core::Limits and the access switches.
void AddLimitOptions(CLI::App& app, Args& args) {
  signet::core::Limits& l = args.limits;
  app.add_option("--max-sessions-per-connection", l.max_sessions,
                 "sessions one connection may hold (CKR_SESSION_COUNT beyond)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--max-session-objects", l.max_session_objects,
                 "session objects one connection may hold (CKR_DEVICE_MEMORY beyond)")
      ->capture_default_str();
  app.add_option("--max-session-object-bytes", l.max_session_object_bytes,
                 "total size of one connection's session objects")
      ->capture_default_str();
  app.add_option("--max-multi-part-held-bytes", l.max_multi_part_held_bytes,
                 "bytes one connection's multi-part operations may hold back (AES-GCM "
                 "decryption holds its plaintext until the tag checks; CKR_DEVICE_MEMORY beyond)")
      ->capture_default_str();
  app.add_option("--token-max-objects", l.max_token_objects, "objects per token (quota)")
      ->capture_default_str();
  app.add_option("--token-max-bytes", l.max_token_bytes, "total object size per token (quota)")
      ->capture_default_str();
  app.add_option("--login-delay-base-ms", args.login_delay_base_ms,
                 "after the n-th failed PIN check in a row (n >= 2) of a token or peer, refuse "
                 "further checks for base*2^(n-2) ms (0: no throttle)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--login-delay-cap-ms", args.login_delay_cap_ms, "longest such delay")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--public-rw-compat", args.public_rw_compat,
                 "token SERIAL whose public R/W sessions may write public token objects without "
                 "login, as PKCS#11 allows (repeatable; default: none)");
}

// AddMetricsOptions: the flags of the metrics and health endpoint.
void AddMetricsOptions(CLI::App& app, Args& args) {
  app.add_option("--metrics-listen", args.metrics_listen,
                 "serve /metrics (Prometheus), /healthz and /readyz over HTTP on HOST:PORT "
                 "(host 127.0.0.1 when only :PORT is given)");
  app.add_flag("--metrics-tls", args.metrics_tls,
               "serve the metrics endpoint over TLS 1.3 with --tls-cert and --tls-key");
}

// StartMetrics starts the metrics endpoint when --metrics-listen asks for it;
// nullptr and a log line when it cannot.
std::unique_ptr<signet::daemon::MetricsHttpServer> StartMetrics(
    const Args& args, const signet::daemon::MetricsSources& sources, bool* failed) {
  *failed = false;
  if (args.metrics_listen.empty()) return nullptr;
  signet::daemon::MetricsHttpOptions options;
  options.listen = args.metrics_listen;
  options.tls = args.metrics_tls;
  options.tls_cert = args.tls_cert;
  options.tls_key = args.tls_key;
  auto metrics = std::make_unique<signet::daemon::MetricsHttpServer>(
      options, [sources](const std::string& path) { return ServeMetricsPath(sources, path); });
  if (auto started = metrics->Start(); !started.ok()) {
    signet::daemon::Log(started.error().message);
    *failed = true;
    return nullptr;
  }
  signet::daemon::Log(std::string("metrics endpoint ") + (args.metrics_tls ? "https" : "http") +
                      " metrics_port=" + std::to_string(metrics->port()));
  return metrics;
}

// CryptechSlot: the slot of the token `which` names (docs/CRYPTECH.md);
// empty: the first token.
signet::Result<CK_SLOT_ID> CryptechSlot(const std::vector<signet::core::SlotDescription>& slots,
                                        const std::string& which) {
  auto [kind, value] = [&]() -> std::pair<std::string, std::string> {
    for (const char* prefix : {"label:", "serial:", "slot:"}) {
      if (which.rfind(prefix, 0) == 0) {
        return {std::string(prefix, std::strlen(prefix) - 1), which.substr(std::strlen(prefix))};
      }
    }
    return {"", which};
  }();
  for (const auto& slot : slots) {
    if (!slot.token_present) continue;
    if (which.empty() || ((kind.empty() || kind == "label") && slot.label == value) ||
        ((kind.empty() || kind == "serial") && slot.serial == value) ||
        ((kind.empty() || kind == "slot") && std::to_string(slot.id) == value)) {
      return slot.id;
    }
  }
  return signet::MakeError(CKR_SLOT_ID_INVALID,
                           which.empty() ? "no token to serve" : "no token named " + which);
}

int Run(const Args& args) {
  using signet::daemon::Log;
  // Before any key is unwrapped into this process's memory.
  if (signet::Status hardened = signet::daemon::HardenProcess(); !hardened.ok()) {
    Log("warning: cannot harden the process: " + hardened.error().message);
  }
  // Before any thread uses OpenSSL (crypto/legacy_provider.h).
  if (args.legacy_des) {
    if (signet::Status legacy = signet::crypto::LoadLegacyProvider(); legacy.ok()) {
      Log("single DES offered (OpenSSL's legacy provider loaded)");
    } else {
      Log("single DES not offered: " + legacy.error().message);
    }
  }
  signet::Status self_test = signet::crypto::RunSelfTests();
  if (!self_test.ok()) {
    Log("crypto self-tests FAILED, refusing to start: " + self_test.error().message);
    return 1;
  }
  if (!args.listen.empty() && (args.tls_cert.empty() || args.tls_key.empty())) {
    Log("--listen needs --tls-cert and --tls-key");
    return 2;
  }
  if (args.metrics_tls &&
      (args.metrics_listen.empty() || args.tls_cert.empty() || args.tls_key.empty())) {
    Log("--metrics-tls needs --metrics-listen, --tls-cert and --tls-key");
    return 2;
  }
  std::optional<gid_t> allow_group;
  if (!args.allow_group.empty()) {
    auto gid = GroupId(args.allow_group);
    if (!gid) {
      Log("--allow-group: no such group: " + args.allow_group);
      return 2;
    }
    allow_group = *gid;
  }
  signet::core::HsmOptions hsm_options;
  hsm_options.data_dir = args.data_dir;
  hsm_options.keystore_uri = args.keystore;
  const std::filesystem::path socket_path =
      args.socket_path.empty() ? std::filesystem::path(args.data_dir) / "signetd.sock"
                               : std::filesystem::path(args.socket_path);
  hsm_options.lock_holder = "signetd on " + socket_path.string();
  hsm_options.limits = args.limits;
  hsm_options.limits.login_delay_base = std::chrono::milliseconds(args.login_delay_base_ms);
  hsm_options.limits.login_delay_cap = std::chrono::milliseconds(args.login_delay_cap_ms);
  // One operation's held bytes come back in one reply: at most a frame.
  hsm_options.limits.max_held_per_operation =
      std::min(hsm_options.limits.max_held_per_operation, args.server.max_frame_size - 4096);
  hsm_options.public_rw_compat.insert(args.public_rw_compat.begin(), args.public_rw_compat.end());
  hsm_options.strict = args.strict;
  if (!args.login_ticket_key.empty()) {
    auto keys = signet::daemon::ReadLoginTicketKeys(args.login_ticket_key);
    if (!keys.ok()) {
      Log(keys.error().message);
      return 2;
    }
    hsm_options.login_ticket_keys = std::move(*keys);
  }
  auto hsm = signet::core::Hsm::Open(hsm_options);
  if (!hsm.ok()) {
    Log("cannot open " + (args.keystore.empty() ? "data dir " + args.data_dir : "the keystore") +
        ": " + hsm.error().message);
    return 1;
  }
  for (const std::string& serial : args.public_rw_compat) {
    bool known = false;
    for (const auto& slot : (*hsm)->Slots()) known = known || slot.serial == serial;
    Log(known ? "token " + serial + ": public R/W sessions may write public objects (compat)"
              : "warning: --public-rw-compat " + serial + ": no such token");
  }
  for (const signet::core::UnavailableToken& bad : (*hsm)->unavailable_tokens()) {
    Log("token unavailable, serving the others: " + bad.reason);
  }
  // After the data directory's lock: a second daemon on it never touches the log.
  auto audit_log = OpenAuditLog(args);
  if (!audit_log.ok()) {
    Log("cannot open the audit log, refusing to start: " + audit_log.error().message);
    return 1;
  }
  auto pool_targets = signet::core::ParsePoolConfig(args.pool);
  if (!pool_targets.ok()) {
    Log("--pool: " + pool_targets.error().message);
    return 2;
  }
  signet::core::Scheduler scheduler({args.workers, args.max_queue}, &(*hsm)->counters());
  // The key pool's generators wait while client requests are queued; they
  // are stopped below before the scheduler goes away.
  if (!pool_targets->empty()) {
    (*hsm)->StartKeyPool(
        signet::core::KeyPool::Options{std::move(*pool_targets), args.pool_threads,
                                       [&scheduler] { return scheduler.stats().depth > 0; }});
  }
  if (args.rsa_split) (*hsm)->EnableRsaSplit(&scheduler);
  asio::io_context io(1);
  signet::daemon::ServerOptions options = args.server;
  options.allow_group = allow_group;
  options.idle_timeout = Millis(args.idle_timeout_s);
  options.handshake_timeout = Millis(args.handshake_timeout_s);
  options.drain_timeout = Millis(args.drain_timeout_s);
  options.socket_path = socket_path;
  if (!args.cryptech_socket.empty()) {
    auto slot = CryptechSlot((*hsm)->Slots(), args.cryptech_token);
    if (!slot.ok()) {
      Log("--cryptech-token: " + slot.error().message);
      return 2;
    }
    options.cryptech_socket_path = args.cryptech_socket;
    options.cryptech_slot = *slot;
  }
  options.listen = args.listen;
  options.tls_cert = args.tls_cert;
  options.tls_key = args.tls_key;
  options.tls_client_ca = args.tls_client_ca;
  options.audit_log = audit_log->get();
  signet::daemon::Server server(io, **hsm, scheduler, options);
  if (auto started = server.Start(); !started.ok()) {
    Log(started.error().message);
    return 1;
  }
  std::atomic<bool> stopping{false};
  signet::daemon::MetricsSources metrics_sources{hsm->get(),    &scheduler,     &server,
                                                 args.data_dir, self_test.ok(), &stopping};
  bool metrics_failed = false;
  auto metrics = StartMetrics(args, metrics_sources, &metrics_failed);
  if (metrics_failed) return 1;
  asio::signal_set hup(io, SIGHUP);
  RotateOnSighup(hup, scheduler, audit_log->get());
  asio::signal_set signals(io, SIGTERM, SIGINT);
  signals.async_wait([&](const asio::error_code& ec, int signo) {
    if (ec) return;
    stopping = true;  // /readyz answers 503 from now on
    Log(std::string("received ") + (signo == SIGTERM ? "SIGTERM" : "SIGINT") +
        ", finishing in-flight requests");
    hup.cancel();  // its wait would keep io.run() going
    server.Shutdown([] {});
  });
  std::string config = "workers=" + std::to_string(scheduler.workers()) +
                       " max_queue=" + std::to_string(args.max_queue) +
                       " rsa_split=" + (args.rsa_split ? "on" : "off") +
                       " slots=" + std::to_string((*hsm)->Slots().size());
  if (server.tcp_port() != 0) config += " tcp_port=" + std::to_string(server.tcp_port());
  config += " pool=" + args.pool;
  config += " max_connections=" + std::to_string(server.max_connections()) +
            " max_connections_per_peer=" + std::to_string(options.max_connections_per_peer) +
            " idle_timeout_ms=" + std::to_string(options.idle_timeout.count());
  Log(config);
  if (!options.cryptech_socket_path.empty()) {
    Log("cryptech listener socket=" + options.cryptech_socket_path.string() +
        " slot=" + std::to_string(options.cryptech_slot));
  }
  // Scripts and tests wait for exactly this line.
  Log("ready socket=" + options.socket_path.string());
  io.run();
  if (server.drain_timed_out()) {
    // A request still runs on a worker: do not wait for it (the keystore
    // survives being cut short, like a kill -9).
    if (*audit_log) (void)(*audit_log)->Close(signet::audit_format::kReasonShutdown);
    Log("stopped (drain timeout: in-flight work abandoned)");
    std::_Exit(0);
  }
  if (metrics) metrics->Stop();
  (*hsm)->StopKeyPool();
  scheduler.WaitIdle();  // connection clean-up queued by the last closes
  if (*audit_log) {
    if (signet::Status closed = (*audit_log)->Close(signet::audit_format::kReasonShutdown);
        !closed.ok()) {
      Log("audit log: " + closed.error().message);
    }
  }
  Log("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // First, while nothing secret exists: no lazy symbol binding later, which
  // would leave copies of vector registers (request bytes) on the stacks.
  if (signet::Status bound = signet::daemon::BindSymbolsAtStart(argv); !bound.ok()) {
    signet::daemon::Log("warning: symbols are bound lazily, which may leave copies of secrets on "
                     "thread stacks: " +
                     bound.error().message);
  }
  std::signal(SIGPIPE, SIG_IGN);  // a vanished peer is an error code, not a signal
  // A logrotate SIGHUP before the audit log's handler is set up (while
  // tokens open) must not kill the daemon: ignored until Run installs it.
  std::signal(SIGHUP, SIG_IGN);
  Args args;
  CLI::App app{"signetd: the signet software HSM daemon"};
  app.set_version_flag("--version", std::string("signetd ") + signet::kVersionString);
  app.add_option("--data", args.data_dir, "data directory (one <serial>.token per token)")
      ->required();
  app.add_option("--keystore", args.keystore,
                 "serve the tokens of a PostgreSQL database that other signetd nodes share "
                 "(postgresql://USER@HOST:PORT/DB...; docs/SCALING.md) instead of DATA's token "
                 "files");
  app.add_option("--login-ticket-key", args.login_ticket_key,
                 "FILE of 64 hex digits that every node of a shared keystore holds: logins "
                 "then come with re-login tickets the PKCS#11 module fails over with; up to 3 "
                 "such lines while the key is rotated: the first seals, each opens "
                 "(docs/SCALING.md)");
  app.add_option("--socket", args.socket_path, "Unix socket path (default DATA/signetd.sock)");
  app.add_option("--listen", args.listen, "also listen on HOST:PORT with TLS 1.3");
  app.add_option("--cryptech-socket", args.cryptech_socket,
                 "also answer Cryptech's libhal RPC on this Unix socket (docs/CRYPTECH.md)");
  app.add_option("--cryptech-token", args.cryptech_token,
                 "the token behind --cryptech-socket: label, serial or slot id, or label:L, "
                 "serial:S, slot:N (default: the first token)");
  app.add_option("--tls-cert", args.tls_cert, "server certificate chain (PEM)");
  app.add_option("--tls-key", args.tls_key, "server private key (PEM)");
  app.add_option("--tls-client-ca", args.tls_client_ca,
                 "require client certificates from this CA (TCP needs it unless "
                 "--insecure-no-client-auth)");
  app.add_flag("--insecure-no-client-auth", args.server.insecure_no_client_auth,
               "listen on TCP without client certificates: anyone who reaches the port may "
               "use the HSM");
  app.add_option("--admin-cert", args.server.admin_cert,
                 "a TLS client presenting this certificate (PEM) is an administrator");
  app.add_option("--allow-group", args.allow_group,
                 "also let this group (GID or name) connect to the Unix socket (made 0660)");
  app.add_flag("--no-shared-memory", args.server.no_shared_memory,
               "refuse the shared-memory ring on the Unix socket: every request goes through "
               "the socket (docs/PROTOCOL.md \"The shared-memory ring\")");
  app.add_option("--max-connections", args.server.max_connections,
                 "open connections in total (kept below RLIMIT_NOFILE - --fd-reserve)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--max-connections-per-peer", args.server.max_connections_per_peer,
                 "open connections per uid (Unix socket) or IP address (TCP)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--fd-reserve", args.server.fd_reserve,
                 "descriptors kept free for token files and logs")
      ->capture_default_str();
  app.add_option("--max-in-flight", args.server.max_in_flight,
                 "requests of one connection being computed at once")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--max-unread-reply-bytes", args.server.max_pending_write_bytes,
                 "a connection stops taking requests while its unwritten replies plus the "
                 "bounds of replies being computed reach this")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--max-frame-size", args.server.max_frame_size,
                 "largest request or reply payload in bytes")
      ->check(CLI::Range(std::size_t{4096}, std::size_t{16} << 20))
      ->capture_default_str();
  app.add_option("--idle-timeout", args.idle_timeout_s,
                 "seconds before a connection without requests or work in flight is closed "
                 "(0: never)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--tls-handshake-timeout", args.handshake_timeout_s,
                 "seconds a TCP client has to finish its TLS handshake (0: no limit)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--drain-timeout", args.drain_timeout_s,
                 "on SIGTERM, seconds to wait for in-flight requests and their replies")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--workers", args.workers, "worker threads (default: one per core)");
  app.add_option("--max-queue", args.max_queue, "queued requests before replying busy")
      ->check(CLI::PositiveNumber);
  app.add_option("--pool", args.pool,
                 "key pool per token: TYPE=COUNT,... e.g. rsa:2048=32,rsa:4096=8,ec:p256=64 "
                 "(filled while a user or SO is logged in; 'off' disables)")
      ->capture_default_str();
  app.add_option("--pool-threads", args.pool_threads,
                 "key pool generator threads (lowest priority)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  app.add_flag("--strict", args.strict,
               "refuse to start when any token file cannot be opened (default: serve the "
               "healthy tokens, log each unusable file)");
  app.add_option("--legacy-des", args.legacy_des,
                 "offer single DES (CKM_DES_*) through OpenSSL's legacy provider; false: never "
                 "load it")
      ->capture_default_str();
  app.add_option("--rsa-split", args.rsa_split,
                 "run a lone RSA (>= 3072-bit) signature's two CRT halves on two idle workers")
      ->capture_default_str();
  AddLimitOptions(app, args);
  AddMetricsOptions(app, args);
  AddAuditOptions(app, args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // 2 for bad usage, as Run's own usage checks (CLI11's codes are 105-115);
    // --help and --version end parsing this way too, with status 0.
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    return Run(args);
  } catch (const std::exception& e) {
    signet::daemon::Log(std::string("fatal: ") + e.what());
    return 1;
  }
}
