// `signet random | stats`: random bytes from the daemon's DRBG and the
// daemon's counters, once or (--profile) every interval.
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <thread>

#include "base/hex.h"
#include "base/printable.h"
#include "cli/commands.h"
#include "cli/file_io.h"
#include "cli/output.h"
#include "cli/stats_profile.h"

namespace signet::cli {
namespace {

// kRandomChunk: the most one GenerateRandom request may ask for (64 KiB).
constexpr std::size_t kRandomChunk = 64 * 1024;

struct RandomOptions {
  std::size_t bytes = 0;
  std::string out;
};

Status RunRandom(GlobalOptions& global, const RandomOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(Connection connection, Connect(global));
  client::Bytes data;
  data.reserve(options.bytes);
  while (data.size() < options.bytes) {
    std::size_t want = std::min(kRandomChunk, options.bytes - data.size());
    SIGNET_ASSIGN_OR_RETURN(client::Bytes chunk,
                            connection.client->GenerateRandom(connection.session, want));
    if (chunk.size() != want) return MakeError(CKR_DEVICE_ERROR, "short random reply");
    data.insert(data.end(), chunk.begin(), chunk.end());
  }
  if (!options.out.empty()) return WriteFile(options.out, data);
  std::printf("%s\n", ToHex(data).c_str());
  return OkStatus();
}

Json StatsJson(const client::ServerStats& stats, const client::ServerInfo& info) {
  Json phases = Json::array();
  for (const client::PhaseStat& phase : stats.phases) {
    phases.push_back({{"name", phase.name}, {"calls", phase.calls}, {"total_ns", phase.total_ns}});
  }
  Json pools = Json::array();
  for (const client::PoolStat& pool : stats.pools) {
    pools.push_back({{"name", pool.name},
                     {"size", pool.size},
                     {"target", pool.target},
                     {"generated", pool.generated},
                     {"taken", pool.taken},
                     {"misses", pool.misses},
                     {"generate_ns", pool.generate_ns}});
  }
  Json unavailable = Json::array();
  for (const client::UnavailableToken& token : info.unavailable_tokens) {
    unavailable.push_back({{"file", token.file}, {"reason", token.reason}});
  }
  return {{"workers", stats.workers},
          {"connections", stats.connections},
          {"sessions", stats.sessions},
          {"queue",
           {{"capacity", stats.queue_capacity},
            {"depth", stats.queue_depth},
            {"peak", stats.queue_peak},
            {"busy_rejections", stats.busy_rejections},
            {"completed", stats.completed},
            {"ran_on_event_loop", stats.ran_on_event_loop}}},
          {"shared_memory",
           {{"connections", stats.ring_connections}, {"requests", stats.ring_requests}}},
          {"key_cache",
           {{"hits", stats.cache_hits},
            {"misses", stats.cache_misses},
            {"evictions", stats.cache_evictions},
            {"size", stats.cache_size},
            {"capacity", stats.cache_capacity}}},
          {"phases", std::move(phases)},
          {"key_pools", std::move(pools)},
          {"unavailable_tokens", std::move(unavailable)}};
}

Status RunStats(GlobalOptions& global, bool json) {
  SIGNET_ASSIGN_OR_RETURN(auto client, ConnectClient(global));
  SIGNET_ASSIGN_OR_RETURN(client::ServerStats stats, client->GetStats());
  SIGNET_ASSIGN_OR_RETURN(client::ServerInfo info, client->GetInfo());
  if (json) {
    PrintJson(StatsJson(stats, info));
    return OkStatus();
  }
  // Token files the daemon could not open have no slot; say so first.
  for (const client::UnavailableToken& token : info.unavailable_tokens) {
    std::printf("unavailable token: %s\n", PrintableText(token.reason).c_str());
  }
  std::printf("workers %" PRIu64 "\nconnections %" PRIu64 "\nsessions %" PRIu64 "\n",
              stats.workers, stats.connections, stats.sessions);
  std::printf("queue: capacity %" PRIu64 " depth %" PRIu64 " peak %" PRIu64
              " busy_rejections %" PRIu64 " completed %" PRIu64 " (on the event loop %" PRIu64
              ")\n",
              stats.queue_capacity, stats.queue_depth, stats.queue_peak, stats.busy_rejections,
              stats.completed, stats.ran_on_event_loop);
  std::printf("shared-memory rings: connections %" PRIu64 " requests %" PRIu64 "\n",
              stats.ring_connections, stats.ring_requests);
  std::printf("key cache: hits %" PRIu64 " misses %" PRIu64 " evictions %" PRIu64
              " size %" PRIu64 "/%" PRIu64 "\n",
              stats.cache_hits, stats.cache_misses, stats.cache_evictions, stats.cache_size,
              stats.cache_capacity);
  std::printf("%-16s %12s %14s %12s\n", "phase", "calls", "total_ms", "mean_us");
  for (const client::PhaseStat& phase : stats.phases) {
    double mean_us = phase.calls == 0 ? 0.0 : phase.total_ns / 1e3 / phase.calls;
    std::printf("%-16s %12" PRIu64 " %14.3f %12.3f\n", phase.name.c_str(), phase.calls,
                phase.total_ns / 1e6, mean_us);
  }
  if (stats.pools.empty()) {
    std::printf("key pool: off\n");
  } else {
    std::printf("%-16s %8s %8s %10s %8s %8s %12s\n", "key pool", "size", "target", "generated",
                "taken", "misses", "keys_per_s");
  }
  for (const client::PoolStat& pool : stats.pools) {
    double rate = pool.generate_ns == 0 ? 0.0 : pool.generated / (pool.generate_ns / 1e9);
    std::printf("%-16s %8" PRIu64 " %8" PRIu64 " %10" PRIu64 " %8" PRIu64 " %8" PRIu64 " %12.2f\n",
                pool.name.c_str(), pool.size, pool.target, pool.generated, pool.taken, pool.misses,
                rate);
  }
  return OkStatus();
}

// StatsOptions: `signet stats` and its --profile mode.
struct StatsOptions {
  bool json = false;
  bool profile = false;
  std::string interval = "1s";
  std::uint64_t count = 0;
};

Status RunStatsProfile(GlobalOptions& global, const StatsOptions& options) {
  SIGNET_ASSIGN_OR_RETURN(std::chrono::milliseconds interval, ParseInterval(options.interval));
  SIGNET_ASSIGN_OR_RETURN(auto client, ConnectClient(global));
  SIGNET_ASSIGN_OR_RETURN(client::ServerStats before, client->GetStats());
  auto then = std::chrono::steady_clock::now();
  for (std::uint64_t n = 0; options.count == 0 || n < options.count; ++n) {
    std::this_thread::sleep_for(interval);  // the sampling period itself
    SIGNET_ASSIGN_OR_RETURN(client::ServerStats after, client->GetStats());
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - then).count();
    if (options.json) {
      std::printf("%s\n", ProfileJson(before, after, seconds).dump().c_str());
    } else {
      std::printf("%s", ProfileText(before, after, seconds).c_str());
    }
    std::fflush(stdout);
    before = std::move(after);
    then = now;
  }
  return OkStatus();
}

}  // namespace

void AddInfoCommands(CLI::App& app, GlobalOptions& global, CommandAction* selected) {
  auto options = std::make_shared<RandomOptions>();
  CLI::App* random = app.add_subcommand("random", "Random bytes from the daemon's DRBG");
  random->add_option("--bytes", options->bytes, "How many bytes")
      ->required()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30));
  random->add_option("--out", options->out, "Write raw bytes here (default: hex to stdout)");
  random->callback([&global, options, selected] {
    *selected = [&global, options] { return RunRandom(global, *options); };
  });

  auto stats_options = std::make_shared<StatsOptions>();
  CLI::App* stats = app.add_subcommand("stats", "Show the daemon's counters");
  stats->add_flag("--json", stats_options->json, "Print JSON");
  stats->add_flag("--profile", stats_options->profile,
                  "Every --interval, show what the counters moved by: requests/s, and per "
                  "phase calls/s, us/call and % of a core (with --json: one object per line)");
  stats->add_option("--interval", stats_options->interval, "With --profile: 1s, 250ms, ...")
      ->capture_default_str();
  stats
      ->add_option("--count", stats_options->count,
                   "With --profile: stop after this many intervals (0: until interrupted)")
      ->capture_default_str();
  stats->callback([&global, stats_options, selected] {
    *selected = [&global, stats_options] {
      return stats_options->profile ? RunStatsProfile(global, *stats_options)
                                    : RunStats(global, stats_options->json);
    };
  });
}

}  // namespace signet::cli
