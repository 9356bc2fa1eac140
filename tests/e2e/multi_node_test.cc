// Several signetd nodes on one PostgreSQL keystore (issue 18;
// docs/SCALING.md), each a real daemon on its own socket, driven through
// the client library: a key made on node 1 signs on node 3 at once (the
// signature checked with the public key node 3 reads back); a key
// destroyed on node 2 is refused on nodes 1 and 3 at their next use, warm
// caches included; wrong PINs spread over the three nodes lock the token
// for all of them; with PostgreSQL stopped under signing load, the nodes
// sign on from their caches, refuse changes with a clear error, and take
// changes again once it is back; and the key pool the nodes fill together
// hands each pooled key to exactly one of 16 clients spread over the nodes.
// `signet init --keystore` makes the schema and a token on an empty
// database, which a node then serves. A token made through one running node
// is served by the others without a restart; one re-initialised through
// a node ends the other nodes' logins (their KEK is the old one). A node's
// scrape shows its LISTEN connection to the keystore (down while
// PostgreSQL is stopped) and the statements it sent.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "crypto/sign.h"
#include "key_helpers.h"
#include "postgres_server.h"

namespace signet::e2e {
namespace {

constexpr int kNodes = 3;

class MultiNodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!PostgresInstalled()) GTEST_SKIP() << "PostgreSQL is not installed (scripts/deps.sh)";
    ASSERT_EQ(server_.Start(), "");
    // Node 0 first: it makes the token the others then serve.
    StartNode(0);
    auto admin = client::Client::Connect({.address = Socket(0)});
    ASSERT_TRUE(admin.ok()) << admin.error().message;
    auto info = (*admin)->GetInfo();
    ASSERT_TRUE(info.ok());
    ASSERT_FALSE(info->slots.empty());
    auto made = (*admin)->InitToken(info->slots.back().slot_id, AsBytes(kSoPin), kTokenLabel,
                                    AsBytes(kUserPin));
    ASSERT_TRUE(made.ok()) << made.error().message;
    for (int i = 1; i < kNodes; ++i) StartNode(i);
  }

  void TearDown() override {
    for (auto& node : nodes_) {
      if (node && node->running()) {
        EXPECT_EQ(node->Terminate(), 0) << node->log();
      }
    }
  }

  // NodeArgs: extra signetd flags for every node.
  virtual std::vector<std::string> NodeArgs() const { return {}; }

  std::string Socket(int i) const { return dir_.path() + "/n" + std::to_string(i) + ".sock"; }

  void StartNode(int i) {
    auto node = std::make_unique<Daemon>();
    const std::string data = dir_.path() + "/data" + std::to_string(i);
    std::vector<std::string> args = {"--keystore", server_.uri(),          "--login-delay-base-ms",
                                     "0",          "--login-delay-cap-ms", "0"};
    for (const std::string& arg : NodeArgs()) args.push_back(arg);
    ASSERT_EQ(node->Start(data, Socket(i), args), "");
    nodes_.push_back(std::move(node));
  }

  // Session opens a session on node `i` (logged in as the user unless
  // `login` is false).
  Result<UserSession> Session(int i, bool login = true) {
    UserSession user;
    SIGNET_ASSIGN_OR_RETURN(user.client, client::Client::Connect({.address = Socket(i)}));
    SIGNET_ASSIGN_OR_RETURN(client::ServerInfo info, user.client->GetInfo());
    for (const client::SlotInfo& slot : info.slots) {
      if (slot.token_present) user.slot = slot.slot_id;
    }
    SIGNET_ASSIGN_OR_RETURN(user.session, user.client->OpenSession(user.slot));
    if (login) SIGNET_TRY(user.client->Login(user.session, CKU_USER, AsBytes(kUserPin)));
    return user;
  }

  // Sign signs `message` on `user`'s node with the private key labelled
  // `label`.
  static Result<Bytes> Sign(UserSession& user, const std::string& label, ByteView message) {
    SIGNET_ASSIGN_OR_RETURN(auto keys, FindByLabel(user, label, CKO_PRIVATE_KEY));
    if (keys.empty()) return MakeError(CKR_OBJECT_HANDLE_INVALID, "no key labelled " + label);
    return user.client->Sign(user.session, keys.front(), {.type = CKM_ECDSA_SHA256}, message);
  }

  TempDir dir_;
  PostgresServer server_;
  std::vector<std::unique_ptr<Daemon>> nodes_;
};

const crypto::SignParams kEcdsaSha256{.scheme = crypto::SignScheme::kEcdsa,
                                      .ecdsa_format = crypto::EcdsaFormat::kRaw};

TEST_F(MultiNodeTest, AKeyMadeOnNodeOneSignsOnNodeThreeAtOnce) {
  auto one = Session(0);
  ASSERT_TRUE(one.ok()) << one.error().message;
  auto three = Session(2);
  ASSERT_TRUE(three.ok()) << three.error().message;
  // Node 3 has looked at the token's objects before the key exists.
  ASSERT_TRUE(FindByLabel(*three, "made-on-one", CKO_PRIVATE_KEY)->empty());
  ASSERT_TRUE(GenerateKeyPair(*one, "ec:p256", "made-on-one", /*token=*/true).ok());

  const Bytes message = ToBytes("signed on node three");
  auto signature = Sign(*three, "made-on-one", message);
  ASSERT_TRUE(signature.ok()) << signature.error().message;
  auto pubs = FindByLabel(*three, "made-on-one", CKO_PUBLIC_KEY);
  ASSERT_TRUE(pubs.ok());
  ASSERT_EQ(pubs->size(), 1u);
  auto pub = ReadPublicKey(*three, pubs->front());
  ASSERT_TRUE(pub.ok());
  EXPECT_TRUE(crypto::Verify(*pub, kEcdsaSha256, message, *signature).ok());
  Bytes other = message;
  other[0] ^= 1;
  EXPECT_FALSE(crypto::Verify(*pub, kEcdsaSha256, other, *signature).ok());
}

TEST_F(MultiNodeTest, ATokenMadeOnNodeTwoIsServedByTheOthersWithoutARestart) {
  // Every node runs; node 2 makes a second token on its free slot.
  auto admin = client::Client::Connect({.address = Socket(1)});
  ASSERT_TRUE(admin.ok()) << admin.error().message;
  auto before = (*admin)->GetInfo();
  ASSERT_TRUE(before.ok());
  auto made = (*admin)->InitToken(before->slots.back().slot_id, AsBytes(kSoPin), "second",
                                  AsBytes(kUserPin));
  ASSERT_TRUE(made.ok()) << made.error().message;
  const CK_SLOT_ID second = made->slot_id;
  auto two = Session(1);  // the newest token: the second
  ASSERT_TRUE(two.ok()) << two.error().message;
  ASSERT_EQ(two->slot, second);
  ASSERT_TRUE(GenerateKeyPair(*two, "ec:p256", "on-second", /*token=*/true).ok());
  auto free_on_two = (*admin)->GetInfo();
  ASSERT_TRUE(free_on_two.ok());

  // Node 3 is asked for the new slot before it listed its slots again (a
  // client failing over from node 2 does that): it finds the token.
  UserSession three;
  auto three_client = client::Client::Connect({.address = Socket(2)});
  ASSERT_TRUE(three_client.ok()) << three_client.error().message;
  three.client = std::move(*three_client);
  three.slot = second;
  auto session = three.client->OpenSession(second);
  ASSERT_TRUE(session.ok()) << session.error().message;
  three.session = *session;
  ASSERT_TRUE(three.client->Login(three.session, CKU_USER, AsBytes(kUserPin)).ok());
  const Bytes message = ToBytes("signed with the second token on node three");
  auto signature = Sign(three, "on-second", message);
  ASSERT_TRUE(signature.ok()) << signature.error().message;
  auto pubs = FindByLabel(three, "on-second", CKO_PUBLIC_KEY);
  ASSERT_TRUE(pubs.ok());
  ASSERT_EQ(pubs->size(), 1u);
  auto pub = ReadPublicKey(three, pubs->front());
  ASSERT_TRUE(pub.ok());
  EXPECT_TRUE(crypto::Verify(*pub, kEcdsaSha256, message, *signature).ok());

  // Node 1 lists it (C_GetSlotList), with node 2's free slot after it.
  auto one = client::Client::Connect({.address = Socket(0)});
  ASSERT_TRUE(one.ok());
  auto listed = (*one)->GetInfo();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->slots.size(), free_on_two->slots.size());
  for (std::size_t i = 0; i < listed->slots.size(); ++i) {
    EXPECT_EQ(listed->slots[i].slot_id, free_on_two->slots[i].slot_id);
    EXPECT_EQ(listed->slots[i].label, free_on_two->slots[i].label);
    EXPECT_EQ(listed->slots[i].serial, free_on_two->slots[i].serial);
  }
  EXPECT_EQ(listed->slots.back().slot_id, second + 1);
}

TEST_F(MultiNodeTest, ATokenReinitialisedOnNodeTwoEndsTheLoginsOfTheOthers) {
  auto one = Session(0);
  ASSERT_TRUE(one.ok()) << one.error().message;
  ASSERT_TRUE(GenerateKeyPair(*one, "ec:p256", "before", /*token=*/true).ok());
  auto admin = client::Client::Connect({.address = Socket(1)});
  ASSERT_TRUE(admin.ok()) << admin.error().message;
  const std::string new_pin = "renewed-user-pin";
  auto renewed = (*admin)->InitToken(one->slot, AsBytes(kSoPin), "renewed", AsBytes(new_pin));
  ASSERT_TRUE(renewed.ok()) << renewed.error().message;

  // Node 1's login holds the old KEK: a key made under it would not open
  // under the new PINs, so it is refused, and so is the use of a key.
  auto refused = GenerateKeyPair(*one, "ec:p256", "after", /*token=*/true);
  ASSERT_FALSE(refused.ok()) << "node 1 wrapped a key under the KEK the re-initialisation replaced";
  EXPECT_EQ(refused.error().code, CKR_USER_NOT_LOGGED_IN) << refused.error().message;

  // Logged in again with the new PIN, node 1 makes a key node 3 signs with.
  ASSERT_TRUE(one->client->Logout(one->session).ok());
  ASSERT_TRUE(one->client->Login(one->session, CKU_USER, AsBytes(new_pin)).ok());
  ASSERT_TRUE(GenerateKeyPair(*one, "ec:p256", "after", /*token=*/true).ok());
  auto three = Session(2, /*login=*/false);
  ASSERT_TRUE(three.ok()) << three.error().message;
  ASSERT_TRUE(three->client->Login(three->session, CKU_USER, AsBytes(new_pin)).ok());
  EXPECT_TRUE(FindByLabel(*three, "before", CKO_PRIVATE_KEY)->empty());
  auto signature = Sign(*three, "after", ToBytes("m"));
  EXPECT_TRUE(signature.ok()) << signature.error().message;
}

TEST_F(MultiNodeTest, AKeyDestroyedOnNodeTwoIsRefusedOnTheOthersWarmCachesIncluded) {
  std::vector<UserSession> users;
  for (int i = 0; i < kNodes; ++i) {
    auto user = Session(i);
    ASSERT_TRUE(user.ok()) << user.error().message;
    users.push_back(std::move(*user));
  }
  ASSERT_TRUE(GenerateKeyPair(users[0], "ec:p256", "doomed", /*token=*/true).ok());
  const Bytes message = ToBytes("m");
  std::vector<client::Handle> handles;
  for (auto& user : users) {
    auto keys = FindByLabel(user, "doomed", CKO_PRIVATE_KEY);
    ASSERT_TRUE(keys.ok());
    ASSERT_EQ(keys->size(), 1u);
    handles.push_back(keys->front());
    for (int warm = 0; warm < 3; ++warm) {
      ASSERT_TRUE(
          user.client->Sign(user.session, handles.back(), {.type = CKM_ECDSA_SHA256}, message)
              .ok());
    }
  }
  ASSERT_TRUE(users[1].client->DestroyObject(users[1].session, handles[1]).ok());
  for (int i : {0, 2}) {
    auto refused =
        users[i].client->Sign(users[i].session, handles[i], {.type = CKM_ECDSA_SHA256}, message);
    ASSERT_FALSE(refused.ok()) << "node " << i << " still signs with a destroyed key";
    EXPECT_EQ(refused.error().code, CKR_OBJECT_HANDLE_INVALID) << refused.error().message;
    EXPECT_TRUE(FindByLabel(users[i], "doomed", CKO_PRIVATE_KEY)->empty());
  }
}

TEST_F(MultiNodeTest, WrongPinsSpreadOverTheNodesLockTheTokenForAll) {
  std::vector<UserSession> users;
  for (int i = 0; i < kNodes; ++i) {
    auto user = Session(i, /*login=*/false);
    ASSERT_TRUE(user.ok()) << user.error().message;
    users.push_back(std::move(*user));
  }
  constexpr int kMaxFailures = 10;  // signetd's default
  for (int attempt = 0; attempt < kMaxFailures - 1; ++attempt) {
    UserSession& user = users[attempt % kNodes];
    EXPECT_EQ(user.client->Login(user.session, CKU_USER, AsBytes("wrong-pin")).error().code,
              CKR_PIN_INCORRECT)
        << attempt;
  }
  EXPECT_EQ(users[0].client->Login(users[0].session, CKU_USER, AsBytes("wrong-pin")).error().code,
            CKR_PIN_LOCKED);
  for (UserSession& user : users) {
    auto right = user.client->Login(user.session, CKU_USER, AsBytes(kUserPin));
    ASSERT_FALSE(right.ok());
    EXPECT_EQ(right.error().code, CKR_PIN_LOCKED) << right.error().message;
  }
}

TEST_F(MultiNodeTest, PostgresqlRestartedUnderLoad) {
  std::vector<UserSession> users;
  std::vector<client::Handle> keys;
  for (int i = 0; i < kNodes; ++i) {
    auto user = Session(i);
    ASSERT_TRUE(user.ok()) << user.error().message;
    users.push_back(std::move(*user));
  }
  ASSERT_TRUE(GenerateKeyPair(users[0], "ec:p256", "steady", /*token=*/true).ok());
  const Bytes message = ToBytes("through the outage");
  for (auto& user : users) {
    auto found = FindByLabel(user, "steady", CKO_PRIVATE_KEY);
    ASSERT_TRUE(found.ok() && found->size() == 1);
    keys.push_back(found->front());
    ASSERT_TRUE(user.client->Sign(user.session, keys.back(), {.type = CKM_ECDSA_SHA256}, message)
                    .ok());  // warm
  }
  auto pubs = FindByLabel(users[0], "steady", CKO_PUBLIC_KEY);
  ASSERT_TRUE(pubs.ok() && pubs->size() == 1);
  auto pub = ReadPublicKey(users[0], pubs->front());
  ASSERT_TRUE(pub.ok());

  ASSERT_EQ(server_.Stop(), "");
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < kNodes; ++i) {
      auto sig =
          users[i].client->Sign(users[i].session, keys[i], {.type = CKM_ECDSA_SHA256}, message);
      ASSERT_TRUE(sig.ok()) << "node " << i << ": " << sig.error().message;
      EXPECT_TRUE(crypto::Verify(*pub, kEcdsaSha256, message, *sig).ok());
    }
  }
  auto refused = GenerateKeyPair(users[1], "ec:p256", "during", /*token=*/true);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, CKR_DEVICE_ERROR);
  EXPECT_NE(refused.error().message.find("database"), std::string::npos) << refused.error().message;

  ASSERT_EQ(server_.StartAgain(), "");
  ASSERT_TRUE(GenerateKeyPair(users[1], "ec:p256", "after", /*token=*/true).ok());
  auto after = Sign(users[2], "after", message);
  EXPECT_TRUE(after.ok()) << after.error().message;
  for (int i = 0; i < kNodes; ++i) {
    EXPECT_TRUE(
        users[i].client->Sign(users[i].session, keys[i], {.type = CKM_ECDSA_SHA256}, message).ok());
  }
}

// MultiNodePoolTest: every node keeps a pool of 8 P-256 keys per token, all
// of them in the one shared pool table.
class MultiNodePoolTest : public MultiNodeTest {
 protected:
  std::vector<std::string> NodeArgs() const override {
    return {"--pool", "ec:p256=8", "--pool-threads", "1"};
  }
};

TEST_F(MultiNodePoolTest, APooledKeyGoesToExactlyOneOf16ClientsOverThreeNodes) {
  // The nodes fill in the background; the protocol has no "full" event.
  auto watcher = Session(0, /*login=*/false);
  ASSERT_TRUE(watcher.ok());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    auto stats = watcher->client->GetStats();
    ASSERT_TRUE(stats.ok());
    ASSERT_FALSE(stats->pools.empty());
    if (stats->pools.front().size >= 8) break;
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the shared pool did not fill";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  constexpr int kClients = 16;
  std::vector<Bytes> points(kClients);
  std::vector<std::string> failures(kClients);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      auto user = Session(c % kNodes);
      if (!user.ok()) {
        failures[c] = user.error().message;
        return;
      }
      auto pair = GenerateKeyPair(*user, "ec:p256", "pooled-" + std::to_string(c), true);
      if (!pair.ok()) {
        failures[c] = pair.error().message;
        return;
      }
      const CK_ATTRIBUTE_TYPE point[] = {CKA_EC_POINT};
      auto value = user->client->GetAttributeValue(user->session, pair->public_key, point);
      if (!value.ok() || value->empty()) {
        failures[c] = "no point";
        return;
      }
      points[c] = (*value)[0].value;
    });
  }
  for (auto& t : clients) t.join();
  for (int c = 0; c < kClients; ++c) ASSERT_EQ(failures[c], "") << "client " << c;
  // Every client got its own key: no pooled key was handed out twice.
  std::set<Bytes> distinct(points.begin(), points.end());
  EXPECT_EQ(distinct.size(), std::size_t{kClients});
  // And the pool did serve them (taken summed over the nodes).
  std::uint64_t taken = 0;
  for (int i = 0; i < kNodes; ++i) {
    auto user = Session(i, /*login=*/false);
    ASSERT_TRUE(user.ok());
    auto stats = user->client->GetStats();
    ASSERT_TRUE(stats.ok());
    taken += stats->pools.front().taken;
  }
  EXPECT_GE(taken, 8u);
}

// MultiNodeMetricsTest: every node serves /metrics on a port of its own.
class MultiNodeMetricsTest : public MultiNodeTest {
 protected:
  std::vector<std::string> NodeArgs() const override { return {"--metrics-listen", "127.0.0.1:0"}; }

  // KeystoreMetric: the value of sample `name` in node `i`'s scrape; -1
  // when the page has none.
  double KeystoreMetric(int i, const std::string& name) {
    const std::string log = nodes_[i]->log();
    const std::size_t at = log.find("metrics_port=");
    if (at == std::string::npos) return -1;
    const std::string url =
        "http://127.0.0.1:" + std::to_string(std::stoi(log.substr(at + 13))) + "/metrics";
    ProgramResult page = RunProgram(
        {"/usr/bin/python3", "-c",
         "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())",
         url});
    std::istringstream lines(page.out);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind(name + " ", 0) == 0) return std::stod(line.substr(name.size() + 1));
    }
    return -1;
  }

  // AwaitListening: whether node `i` reports `listening` within 20 s (the
  // listener retries every second; keepalives find a dead peer in 9 s).
  bool AwaitListening(int i, double listening) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (KeystoreMetric(i, "signet_keystore_listening") != listening) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return true;
  }
};

TEST_F(MultiNodeMetricsTest, AScrapeShowsTheKeystoreConnectionAndItsStatements) {
  ASSERT_TRUE(AwaitListening(0, 1)) << nodes_[0]->log();
  const double before = KeystoreMetric(0, "signet_keystore_statements_total");
  ASSERT_GT(before, 0);
  auto user = Session(0);
  ASSERT_TRUE(user.ok()) << user.error().message;
  ASSERT_TRUE(GenerateKeyPair(*user, "ec:p256", "counted", /*token=*/true).ok());
  EXPECT_GT(KeystoreMetric(0, "signet_keystore_statements_total"), before);

  ASSERT_EQ(server_.Stop(), "");
  EXPECT_TRUE(AwaitListening(0, 0)) << "the scrape still says listening with PostgreSQL stopped";
  ASSERT_EQ(server_.StartAgain(), "");
  EXPECT_TRUE(AwaitListening(0, 1)) << nodes_[0]->log();
}

TEST(SignetInitKeystoreTest, MakesTheSchemaAndATokenANodeServes) {
  if (!PostgresInstalled()) GTEST_SKIP() << "PostgreSQL is not installed (scripts/deps.sh)";
  PostgresServer server;
  ASSERT_EQ(server.Start(), "");
  auto init = [&](const std::string& label) {
    return RunProgram({BinaryPath("signet"), "init", "--keystore", server.uri(), "--label", label,
                       "--so-pin", kSoPin, "--pin", kUserPin, "--kdf-n", "1024"});
  };
  ProgramResult made = init("from-cli");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_NE(made.out.find("initialised token 'from-cli' (serial "), std::string::npos) << made.out;
  EXPECT_NE(made.out.find("in the PostgreSQL keystore, database postgres on 127.0.0.1:"),
            std::string::npos)
      << made.out;
  ProgramResult again = init("from-cli");
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.err.find("already exists"), std::string::npos) << again.err;

  TempDir dir;
  Daemon node;
  ASSERT_EQ(node.Start(dir.path() + "/data", dir.path() + "/s.sock", {"--keystore", server.uri()}),
            "");
  auto client = client::Client::Connect({.address = dir.path() + "/s.sock"});
  ASSERT_TRUE(client.ok());
  auto info = (*client)->GetInfo();
  ASSERT_TRUE(info.ok());
  const client::SlotInfo* served = nullptr;
  for (const auto& slot : info->slots) {
    if (slot.token_present) served = &slot;
  }
  ASSERT_NE(served, nullptr);
  EXPECT_EQ(served->label.substr(0, 8), "from-cli");
  auto session = (*client)->OpenSession(served->slot_id);
  ASSERT_TRUE(session.ok());
  EXPECT_TRUE((*client)->Login(*session, CKU_USER, AsBytes(kUserPin)).ok());
  EXPECT_EQ(node.Terminate(), 0) << node.log();
}

}  // namespace
}  // namespace signet::e2e
