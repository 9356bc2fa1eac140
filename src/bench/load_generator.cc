#include "bench/load_generator.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <latch>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

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
  std::mutex mu;
  std::condition_variable finished_cv;
  int finished = 0;                  // guarded by mu
  std::optional<Error> first_error;  // guarded by mu
  SteadyClock::time_point end{};     // guarded by mu: latest client end

  void Fail(int client, Error error) {
    std::lock_guard lock(mu);
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
  std::lock_guard lock(state.mu);
  state.end = std::max(state.end, SteadyClock::now());
  ++state.finished;
  state.finished_cv.notify_all();
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
    std::unique_lock lock(state.mu);
    // The timeout only paces progress redraws; completion is the predicate.
    if (state.finished_cv.wait_for(lock, std::chrono::milliseconds(100),
                                   [&] { return state.finished == spec.clients; })) {
      break;
    }
    lock.unlock();  // never hold the clients' lock while drawing
    if (progress) progress(state.done.load(std::memory_order_relaxed));
  }
  for (auto& t : threads) t.join();
  if (state.first_error) return std::move(*state.first_error);
  if (progress) progress(state.done.load());

  ParallelRun run;
  run.algo = spec.algo;
  run.n = state.done.load();
  run.clients = spec.clients;
  run.t0 = wall0;
  run.t1 =
      wall0 + std::chrono::duration_cast<std::chrono::system_clock::duration>(state.end - steady0);
  run.latencies_s.reserve(run.n);
  for (const auto& per_client : latencies) {
    run.latencies_s.insert(run.latencies_s.end(), per_client.begin(), per_client.end());
  }
  return run;
}

}  // namespace signet::bench
