#include "bench/load_generator.h"

#include <algorithm>
#include <atomic>
#include <latch>
#include <optional>
#include <thread>
#include <vector>

#include "base/mutex.h"

namespace signet::bench {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Shared state of one load. Written by client threads, read by the caller
// after the start latch (t0) and after the joins (everything else).
struct LoadState {
  explicit LoadState(int clients) : ready(clients) {}
  std::latch ready;     // every client built its Operation (or failed)
  std::latch start{1};  // the caller took t0
  std::atomic<std::uint64_t> next{0};
  std::atomic<std::uint64_t> done{0};
  std::atomic<bool> stop{false};
  base::Mutex mu;
  base::CondVar finished_cv;
  int finished GUARDED_BY(mu) = 0;
  std::optional<Error> first_error GUARDED_BY(mu);
  SteadyClock::time_point end GUARDED_BY(mu){};  // latest client end

  void Fail(int client, Error error) EXCLUDES(mu) {
    base::MutexLock lock(&mu);
    if (!first_error) {
      error.message = "client " + std::to_string(client) + ": " + error.message;
      first_error = std::move(error);
    }
    stop = true;
  }
};

void ClientLoop(LoadState& state, const WorkerFactory& factory, int client, std::uint64_t n,
                std::vector<double>& latencies) {
  Result<Operation> op = factory(client);
  if (!op.ok()) state.Fail(client, std::move(op).error());
  state.ready.count_down();
  state.start.wait();
  while (op.ok() && !state.stop.load(std::memory_order_relaxed)) {
    const std::uint64_t index = state.next.fetch_add(1, std::memory_order_relaxed);
    if (index >= n) break;
    const auto begin = SteadyClock::now();
    Status status = (*op)(index);
    const auto end = SteadyClock::now();
    if (!status.ok()) {
      state.Fail(client, std::move(status).error());
      break;
    }
    latencies.push_back(std::chrono::duration<double>(end - begin).count());
    state.done.fetch_add(1, std::memory_order_relaxed);
  }
  base::MutexLock lock(&state.mu);
  state.end = std::max(state.end, SteadyClock::now());
  ++state.finished;
  state.finished_cv.SignalAll();
}

}  // namespace

Result<ParallelRun> RunLoad(const LoadSpec& spec, const WorkerFactory& factory,
                            const ProgressFn& progress) {
  if (spec.clients < 1 || spec.total < 1) {
    return MakeError(CKR_ARGUMENTS_BAD, "load needs at least one client and one operation");
  }
  LoadState state(spec.clients);
  std::vector<std::vector<double>> latencies(spec.clients);
  for (auto& per_client : latencies) per_client.reserve(spec.total / spec.clients + 1);
  std::vector<std::thread> threads;
  threads.reserve(spec.clients);
  for (int c = 0; c < spec.clients; ++c) {
    threads.emplace_back(ClientLoop, std::ref(state), std::cref(factory), c, spec.total,
                         std::ref(latencies[c]));
  }
  state.ready.wait();
  // Pair the wall clock (printed) with the steady clock (measured) once, so
  // t1 - t0 is exactly the steady elapsed time.
  const auto wall0 = std::chrono::system_clock::now();
  const auto steady0 = SteadyClock::now();
  state.start.count_down();
  for (;;) {
    bool all_finished = false;
    {
      base::MutexLock lock(&state.mu);
      // The timeout only paces progress redraws; completion is the condition.
      const auto deadline = SteadyClock::now() + std::chrono::milliseconds(100);
      while (state.finished != spec.clients && state.finished_cv.WaitUntil(&state.mu, deadline)) {
      }
      all_finished = state.finished == spec.clients;
    }  // never hold the clients' lock while drawing
    if (all_finished) break;
    if (progress) progress(state.done.load(std::memory_order_relaxed));
  }
  for (auto& t : threads) t.join();
  std::optional<Error> first_error;
  SteadyClock::time_point end;
  {
    base::MutexLock lock(&state.mu);  // uncontended: every client has joined
    first_error = std::move(state.first_error);
    end = state.end;
  }
  if (first_error) return std::move(*first_error);
  if (progress) progress(state.done.load());

  ParallelRun run;
  run.algo = spec.algo;
  run.n = state.done.load();
  run.clients = spec.clients;
  run.t0 = wall0;
  run.t1 = wall0 + std::chrono::duration_cast<std::chrono::system_clock::duration>(end - steady0);
  run.latencies_s.reserve(run.n);
  for (const auto& per_client : latencies) {
    run.latencies_s.insert(run.latencies_s.end(), per_client.begin(), per_client.end());
  }
  return run;
}

}  // namespace signet::bench
