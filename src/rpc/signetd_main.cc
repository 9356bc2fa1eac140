// signetd: the signet daemon. Parses arguments, runs the crypto self-tests,
// opens the data dir, starts the worker pool and the server, and on
// SIGTERM/SIGINT drains in-flight requests and exits 0.
#include <CLI/CLI.hpp>
#include <asio.hpp>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>

#include "core/hsm.h"
#include "core/key_pool.h"
#include "core/scheduler.h"
#include "crypto/self_test.h"
#include "rpc/log.h"
#include "rpc/process_hardening.h"
#include "rpc/server.h"

namespace {

struct Args {
  std::string data_dir;
  std::string socket_path;
  std::string listen;
  std::string tls_cert;
  std::string tls_key;
  std::string tls_client_ca;
  std::size_t workers = 0;
  std::size_t max_queue = 4096;
  std::string pool = "off";
  std::size_t pool_threads = 1;
  // On by default: it only acts for RSA >= 3072 bits and only when a worker
  // is idle, so it cuts a lone signature's latency and never costs
  // throughput (core/rsa_split.h).
  bool rsa_split = true;
};

int Run(const Args& args) {
  using signet::rpc::Log;
  // Before any key is unwrapped into this process's memory.
  if (signet::Status hardened = signet::rpc::HardenProcess(); !hardened.ok()) {
    Log("warning: cannot harden the process: " + hardened.error().message);
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
  signet::core::HsmOptions hsm_options;
  hsm_options.data_dir = args.data_dir;
  auto hsm = signet::core::Hsm::Open(hsm_options);
  if (!hsm.ok()) {
    Log("cannot open data dir " + args.data_dir + ": " + hsm.error().message);
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
  std::shared_ptr<signet::core::KeyPool> pool;
  if (!pool_targets->empty()) {
    pool = std::make_shared<signet::core::KeyPool>(
        **hsm,
        signet::core::KeyPool::Options{std::move(*pool_targets), args.pool_threads,
                                       [&scheduler] { return scheduler.stats().depth > 0; }});
    (*hsm)->SetKeyPool(pool);
  }
  if (args.rsa_split) (*hsm)->EnableRsaSplit(&scheduler);
  asio::io_context io(1);
  signet::rpc::ServerOptions options;
  options.socket_path = args.socket_path.empty()
                            ? std::filesystem::path(args.data_dir) / "signetd.sock"
                            : std::filesystem::path(args.socket_path);
  options.listen = args.listen;
  options.tls_cert = args.tls_cert;
  options.tls_key = args.tls_key;
  options.tls_client_ca = args.tls_client_ca;
  signet::rpc::Server server(io, **hsm, scheduler, options);
  if (auto started = server.Start(); !started.ok()) {
    Log(started.error().message);
    return 1;
  }
  asio::signal_set signals(io, SIGTERM, SIGINT);
  signals.async_wait([&](const asio::error_code& ec, int signo) {
    if (ec) return;
    Log(std::string("received ") + (signo == SIGTERM ? "SIGTERM" : "SIGINT") +
        ", finishing in-flight requests");
    server.Shutdown([] {});
  });
  std::string config = "workers=" + std::to_string(scheduler.workers()) +
                       " max_queue=" + std::to_string(args.max_queue) +
                       " rsa_split=" + (args.rsa_split ? "on" : "off") +
                       " slots=" + std::to_string((*hsm)->Slots().size());
  if (server.tcp_port() != 0) config += " tcp_port=" + std::to_string(server.tcp_port());
  config += " pool=" + args.pool;
  Log(config);
  // Scripts and tests wait for exactly this line.
  Log("ready socket=" + options.socket_path.string());
  io.run();
  if (pool) {
    (*hsm)->SetKeyPool(nullptr);
    pool->Stop();
  }
  Log("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // a vanished peer is an error code, not a signal
  Args args;
  CLI::App app{"signetd: the signet software HSM daemon"};
  app.add_option("--data", args.data_dir, "data directory (one <serial>.token per token)")
      ->required();
  app.add_option("--socket", args.socket_path, "Unix socket path (default DATA/signetd.sock)");
  app.add_option("--listen", args.listen, "also listen on HOST:PORT with TLS 1.3");
  app.add_option("--tls-cert", args.tls_cert, "server certificate chain (PEM)");
  app.add_option("--tls-key", args.tls_key, "server private key (PEM)");
  app.add_option("--tls-client-ca", args.tls_client_ca, "require client certificates from this CA");
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
  app.add_option("--rsa-split", args.rsa_split,
                 "run a lone RSA (>= 3072-bit) signature's two CRT halves on two idle workers")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    return Run(args);
  } catch (const std::exception& e) {
    signet::rpc::Log(std::string("fatal: ") + e.what());
    return 1;
  }
}
