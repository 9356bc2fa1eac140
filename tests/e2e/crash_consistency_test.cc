// kill -9 of signetd while the signet CLI generates, imports and deletes
// key pairs from several processes at once, then a restart, for a few
// rounds. After each restart:
//   - every key pair whose keygen or import the CLI acknowledged (exit 0)
//     and no acknowledged delete removed is there, once, and signs (checked
//     against its public key outside the daemon);
//   - no key pair whose delete was acknowledged comes back;
//   - no half pair: every label has as many private keys as public keys,
//     with the same CKA_ID (operations cut by the kill may have happened or
//     not, but never halfway).
// The kill comes after a random number of acknowledged operations (the seed
// is printed), with the other workers' operations in flight; no sleeps.
#include <gtest/gtest.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "key_helpers.h"

namespace signet::e2e {
namespace {

constexpr int kRounds = 12;
constexpr int kWorkers = 4;
// kOneTransactionPairs: main stores and deletes a key pair in one
// transaction (issue 10, defect 8, since 238fb8b), so a half pair fails the
// test. (Before that fix: 3 half pairs in 12 kills, e.g. "'r2w3n1': 1
// private, 0 public key(s)"; false turns that into a skip.)
constexpr bool kOneTransactionPairs = true;
constexpr int kImportKeys = 3;  // PEM files made once by openssl, imported under many labels
constexpr auto kRoundTimeout = std::chrono::seconds(60);

enum class KeyKind { kP256, kEd25519 };

// Ledger: what the CLI acknowledged. Guarded by `mu`.
struct Ledger {
  std::mutex mu;
  std::condition_variable acked_cv;
  std::map<std::string, KeyKind> present;  // acknowledged and not deleted
  std::set<std::string> deleted;           // delete acknowledged
  std::map<std::string, KeyKind> uncertain;  // cut by the kill: whole or gone
  std::vector<std::string> deletable;      // present, not claimed by a worker
  int acked_this_round = 0;
  bool stop = false;  // set just before the kill
  std::vector<std::string> failures;       // CLI failures before the kill
};

class CrashConsistencyTest : public DaemonTest {
 public:  // Worker runs on the test's threads
  ProgramResult Cli(const std::vector<std::string>& args) {
    return Signet(args, {{"SIGNET_PIN", kUserPin}});
  }

  // Worker runs CLI operations until the ledger says stop.
  void Worker(int round, int worker, std::uint32_t seed) {
    std::mt19937 rng(seed);
    for (int n = 0;; ++n) {
      std::string label, victim;
      KeyKind kind = KeyKind::kP256;
      std::vector<std::string> args;
      {
        std::lock_guard lock(ledger_.mu);
        if (ledger_.stop) return;
        int op = static_cast<int>(rng() % 3);
        if (op == 2 && !ledger_.deletable.empty()) {
          std::size_t at = rng() % ledger_.deletable.size();
          victim = ledger_.deletable[at];
          ledger_.deletable.erase(ledger_.deletable.begin() + static_cast<std::ptrdiff_t>(at));
        }
        label = "r" + std::to_string(round) + "w" + std::to_string(worker) + "n" + std::to_string(n);
        if (!victim.empty()) {
          args = {"delete", "--label", victim};
        } else if (op == 1) {
          args = {"import", "--in", Path("import" + std::to_string(rng() % kImportKeys) + ".pem"),
                  "--label", label};
        } else {
          kind = rng() % 2 ? KeyKind::kEd25519 : KeyKind::kP256;
          args = {"keygen", "--type", kind == KeyKind::kEd25519 ? "ed25519" : "ec:p256", "--label",
                  label};
        }
      }
      ProgramResult result = Cli(args);
      std::lock_guard lock(ledger_.mu);
      if (result.exit_code == 0) {
        if (!victim.empty()) {
          ledger_.present.erase(victim);
          ledger_.deleted.insert(victim);
        } else {
          ledger_.present[label] = kind;
          ledger_.deletable.push_back(label);
        }
        ++ledger_.acked_this_round;
        ledger_.acked_cv.notify_all();
      } else if (ledger_.stop) {
        if (!victim.empty()) {
          ledger_.uncertain[victim] = ledger_.present[victim];
          ledger_.present.erase(victim);
        } else {
          ledger_.uncertain[label] = kind;
        }
        return;
      } else {
        ledger_.failures.push_back(args[0] + " " + label + " " + victim + ": " + result.err);
        ledger_.stop = true;  // a failure without a kill: end the round
        ledger_.acked_cv.notify_all();
        return;
      }
    }
  }

  // CheckToken verifies the promises above against the restarted daemon
  // and folds the uncertain labels into the ledger.
  void CheckToken() {
    auto user = OpenUserSession();
    ASSERT_TRUE(user.ok()) << user.error().message;

    // Every key on the token, by label: private and public CKA_IDs.
    std::map<std::string, std::pair<std::vector<client::Bytes>, std::vector<client::Bytes>>> seen;
    for (CK_OBJECT_CLASS cls : {CKO_PRIVATE_KEY, CKO_PUBLIC_KEY}) {
      auto objects =
          user->client->FindObjects(user->session, {client::UlongAttribute(CKA_CLASS, cls)});
      ASSERT_TRUE(objects.ok()) << objects.error().message;
      for (client::Handle object : *objects) {
        constexpr CK_ATTRIBUTE_TYPE kTypes[] = {CKA_LABEL, CKA_ID};
        auto values = user->client->GetAttributeValue(user->session, object, kTypes);
        ASSERT_TRUE(values.ok() && values->size() == 2);
        std::string label((*values)[0].value.begin(), (*values)[0].value.end());
        auto& entry = seen[label];
        (cls == CKO_PRIVATE_KEY ? entry.first : entry.second).push_back((*values)[1].value);
      }
    }
    for (const auto& [label, halves] : seen) {
      if (halves.first.size() != halves.second.size()) {
        std::string half = "'" + label + "': " + std::to_string(halves.first.size()) +
                           " private, " + std::to_string(halves.second.size()) + " public key(s)";
        if (kOneTransactionPairs) ADD_FAILURE() << "half pair " << half;
        half_pairs_.insert(half);
      }
      if (halves.first.size() == 1 && halves.second.size() == 1) {
        EXPECT_EQ(halves.first[0], halves.second[0]) << "CKA_ID differs in pair '" << label << "'";
      }
    }

    std::lock_guard lock(ledger_.mu);
    for (const std::string& label : ledger_.deleted) {
      EXPECT_EQ(seen.count(label), 0u) << "deleted key '" << label << "' came back";
    }
    for (const auto& [label, kind] : ledger_.uncertain) {
      auto it = seen.find(label);
      if (it != seen.end() && it->second.first.size() == 1 && it->second.second.size() == 1) {
        ledger_.present[label] = kind;  // it happened: from now on it must stay
        ledger_.deletable.push_back(label);
      } else if (it == seen.end()) {
        ledger_.deleted.insert(label);  // it did not (or the delete did): must stay gone
      }
    }
    ledger_.uncertain.clear();

    const client::Bytes message = ToBytes("signed after kill -9");
    for (const auto& [label, kind] : ledger_.present) {
      SCOPED_TRACE(label);
      auto priv = FindByLabel(*user, label, CKO_PRIVATE_KEY);
      auto pub = FindByLabel(*user, label, CKO_PUBLIC_KEY);
      ASSERT_TRUE(priv.ok() && pub.ok());
      ASSERT_EQ(priv->size(), 1u) << "acknowledged key lost or duplicated";
      ASSERT_EQ(pub->size(), 1u) << "acknowledged key lost or duplicated";
      bool ed = kind == KeyKind::kEd25519;
      auto signature = user->client->Sign(user->session, priv->front(),
                                          client::Mechanism{ed ? CKM_EDDSA : CKM_ECDSA_SHA256},
                                          message);
      ASSERT_TRUE(signature.ok()) << signature.error().message;
      auto public_key = ReadPublicKey(*user, pub->front());
      ASSERT_TRUE(public_key.ok()) << public_key.error().message;
      crypto::SignParams params{ed ? crypto::SignScheme::kEddsa : crypto::SignScheme::kEcdsa,
                                crypto::DigestAlg::kSha256};
      params.ecdsa_format = crypto::EcdsaFormat::kRaw;
      EXPECT_TRUE(crypto::Verify(*public_key, params, message, *signature).ok());
    }
  }

  Ledger ledger_;
  std::set<std::string> half_pairs_;
};

TEST_F(CrashConsistencyTest, KillDuringKeygenImportDeleteLeavesNoHalfPairs) {
  // Imported keys are all P-256 (signed with ECDSA like the generated ones).
  for (int i = 0; i < kImportKeys; ++i) {
    ProgramResult made = OpenSsl({"genpkey", "-algorithm", "EC", "-pkeyopt",
                                  "ec_paramgen_curve:P-256", "-out",
                                  Path("import" + std::to_string(i) + ".pem")});
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }
  const std::uint32_t seed = std::random_device{}();
  std::printf("crash consistency seed: %u\n", seed);
  std::mt19937 rng(seed);

  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round) + ", seed " + std::to_string(seed));
    const int kill_after = 2 + static_cast<int>(rng() % 7);  // acknowledged operations
    {
      std::lock_guard lock(ledger_.mu);
      ledger_.acked_this_round = 0;
      ledger_.stop = false;
    }
    std::vector<std::thread> workers;
    for (int w = 0; w < kWorkers; ++w) {
      workers.emplace_back(&CrashConsistencyTest::Worker, this, round, w,
                           static_cast<std::uint32_t>(rng()));
    }
    {
      std::unique_lock lock(ledger_.mu);
      bool reached = ledger_.acked_cv.wait_for(lock, kRoundTimeout, [&] {
        return ledger_.acked_this_round >= kill_after || ledger_.stop;
      });
      EXPECT_TRUE(reached) << "no progress in " << kRoundTimeout.count() << " s";
      ledger_.stop = true;
    }
    daemon_.Kill();
    for (std::thread& t : workers) t.join();
    {
      std::lock_guard lock(ledger_.mu);
      for (const std::string& failure : ledger_.failures) ADD_FAILURE() << failure;
      ASSERT_TRUE(ledger_.failures.empty());
    }
    StartDaemon();
    CheckToken();
    if (HasFatalFailure()) return;
  }
  {
    std::lock_guard lock(ledger_.mu);
    std::printf("crash consistency: %zu key pairs kept, %zu deleted over %d kills\n",
                ledger_.present.size(), ledger_.deleted.size(), kRounds);
  }
  if (!half_pairs_.empty()) {
    std::string list;
    for (const std::string& half : half_pairs_) list += "\n  " + half;
    GTEST_SKIP() << half_pairs_.size() << " half pair(s) after kill -9:" << list
                 << "\nthe no-half-pair check waits for one-transaction key pairs on main "
                    "(issue 10, defect 8); set kOneTransactionPairs then";
  }
}

}  // namespace
}  // namespace signet::e2e
