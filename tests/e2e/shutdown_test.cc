// SIGTERM while clients are signing: the daemon finishes what it accepted
// and exits 0. Each client sees, for every request, either its correct
// reply or a clean end of the connection (or the daemon's "shutting down"
// refusal), never a garbled or wrong reply.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "key_helpers.h"

namespace signet::e2e {
namespace {

constexpr int kClients = 8;
constexpr int kWindow = 4;               // requests in flight per client
constexpr int kSignaturesBeforeTerm = 200;  // load reached before SIGTERM

// Acceptable ends of a request once the daemon stops.
bool IsCleanStop(CK_RV rv) { return rv == CKR_DEVICE_REMOVED || rv == SIGNET_RV_SHUTTING_DOWN; }

struct LoadState {
  std::mutex mutex;
  std::condition_variable reached;
  int completed = 0;
  int settled = 0;  // clients that found the key and started, or failed to
  int failed = 0;

  void Settle(bool ok) {
    std::lock_guard lock(mutex);
    ++settled;
    failed += !ok;
    reached.notify_all();
  }
  // Ready for SIGTERM: every client is signing (so each must see the stop)
  // and the load has been running for a while.
  bool Ready(int clients, int signatures) const {
    return settled == clients && (completed >= signatures || failed == clients);
  }
};

struct ClientTally {
  int good = 0;
  int clean_stops = 0;        // requests ended by the stop (all of the window)
  int shutting_down = 0;      // of which the daemon refused as shutting down
  std::string failure;
};

std::string Message(int client, int n) {
  return "load " + std::to_string(client) + "/" + std::to_string(n);
}

void SignUntilStopped(DaemonTest* test, int index, const crypto::PublicKey* public_key,
                      LoadState* load, ClientTally* tally) {
  auto user = test->OpenUserSession();
  if (!user.ok()) {
    tally->failure = "open: " + user.error().message;
    load->Settle(false);
    return;
  }
  auto keys = FindByLabel(*user, "load-key", CKO_PRIVATE_KEY);
  if (!keys.ok() || keys->size() != 1) {
    tally->failure = "key not found";
    load->Settle(false);
    return;
  }
  load->Settle(true);
  const crypto::SignParams params{crypto::SignScheme::kRsaPkcs1, crypto::DigestAlg::kSha256};
  std::deque<std::pair<int, client::Pending<client::Bytes>>> in_flight;
  int next = 0;
  bool stopped = false;
  while (!stopped || !in_flight.empty()) {
    while (!stopped && static_cast<int>(in_flight.size()) < kWindow) {
      auto ticket = user->client->SendSign(user->session, keys->front(),
                                           client::Mechanism{CKM_SHA256_RSA_PKCS},
                                           ToBytes(Message(index, next)));
      if (!ticket.ok()) {
        stopped = true;  // the connection is gone: nothing more to send
        break;
      }
      in_flight.emplace_back(next++, *ticket);
    }
    if (in_flight.empty()) break;
    auto [n, ticket] = in_flight.front();
    in_flight.pop_front();
    auto signature = user->client->Wait(ticket);
    if (!signature.ok()) {
      if (!IsCleanStop(signature.error().code)) {
        tally->failure = "unexpected error " + std::to_string(signature.error().code) + ": " +
                         signature.error().message;
        return;
      }
      ++tally->clean_stops;
      tally->shutting_down += signature.error().code == SIGNET_RV_SHUTTING_DOWN;
      stopped = true;
      continue;
    }
    if (!crypto::Verify(*public_key, params, crypto::AsBytes(Message(index, n)), *signature)
             .ok()) {
      tally->failure = "a reply does not verify for its own request";
      return;
    }
    ++tally->good;
    std::lock_guard lock(load->mutex);
    if (++load->completed == kSignaturesBeforeTerm) load->reached.notify_all();
  }
}

class ShutdownTest : public DaemonTest {};

TEST_F(ShutdownTest, SigtermDuringLoadCompletesInFlightAndExitsZero) {
  crypto::PublicKey public_key = [&] {
    auto owner = OpenUserSession();
    EXPECT_TRUE(owner.ok());
    auto pair = GenerateKeyPair(*owner, "rsa:2048", "load-key", /*token=*/true);
    EXPECT_TRUE(pair.ok()) << pair.error().message;
    auto key = ReadPublicKey(*owner, pair->public_key);
    EXPECT_TRUE(key.ok());
    return *key;
  }();

  LoadState load;
  std::vector<ClientTally> tallies(kClients);
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back(SignUntilStopped, this, i, &public_key, &load, &tallies[i]);
  }
  {
    std::unique_lock lock(load.mutex);
    load.reached.wait(lock, [&] { return load.Ready(kClients, kSignaturesBeforeTerm); });
  }
  int status = daemon_.Terminate();  // SIGTERM while every client has requests in flight
  for (std::thread& thread : threads) thread.join();

  EXPECT_EQ(status, 0) << daemon_.log();
  int good = 0;
  int shutting_down = 0;
  for (int i = 0; i < kClients; ++i) {
    shutting_down += tallies[i].shutting_down;
    EXPECT_EQ(tallies[i].failure, "") << "client " << i;
    // Every client saw the stop: at most its window of requests ended
    // without a signature.
    EXPECT_GE(tallies[i].clean_stops, 1) << "client " << i << " did not see the stop";
    EXPECT_LE(tallies[i].clean_stops, kWindow) << "client " << i;
    good += tallies[i].good;
  }
  EXPECT_GE(good, kSignaturesBeforeTerm);
  RecordProperty("signatures", good);
  RecordProperty("refused_shutting_down", shutting_down);
  EXPECT_NE(daemon_.log().find("signetd"), std::string::npos);
}

}  // namespace
}  // namespace signet::e2e
