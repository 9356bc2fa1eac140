// The metrics endpoint's pages: /metrics (every signet_ and process_ family
// in the Prometheus text format), /healthz (the process answers) and
// /readyz (keystore readable, self-tests passed, workers running); 404 for
// anything else.
//
// What /metrics reports is read where the daemon already keeps it, at
// scrape time: core::Scheduler::Stats, the Hsm's PhaseCounters, key-cache
// and key-pool stats and per-token PIN-check counters, the Server's
// connection counters and core::RequestMetrics (docs/DESIGN.md "Metrics").
//
// Thread contract: ServeMetricsPath runs on the metrics server's thread;
// everything it reads is atomic or takes the owner's own lock briefly. The
// sources must outlive the metrics server.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>

#include "core/hsm.h"
#include "core/scheduler.h"
#include "daemon/metrics_http.h"
#include "daemon/server.h"

namespace signet::daemon {

// MetricsSources: what the pages read.
struct MetricsSources {
  core::Hsm* hsm = nullptr;
  const core::Scheduler* scheduler = nullptr;
  const Server* server = nullptr;
  std::filesystem::path data_dir;
  bool self_tests_passed = false;
  // stopping: set once shutdown began (readiness fails from then on).
  const std::atomic<bool>* stopping = nullptr;
};

// RenderMetrics: the /metrics page.
std::string RenderMetrics(const MetricsSources& sources);

// NotReadyReason: why the daemon is not ready (one line), or "" when it is:
// shutting down, self-tests not passed, no worker running, the data
// directory unreadable, or a served token's file missing, not a regular
// file, or not readable and writable.
std::string NotReadyReason(const MetricsSources& sources);

// ServeMetricsPath answers one GET of `path`.
HttpResponse ServeMetricsPath(const MetricsSources& sources, const std::string& path);

}  // namespace signet::daemon
