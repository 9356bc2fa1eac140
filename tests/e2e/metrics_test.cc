// The metrics and health endpoint against a real signetd started
// with --metrics-listen: a scrape parsed by Prometheus's own parser
// (python3-prometheus-client) holds every family docs/DESIGN.md "Metrics"
// lists; counters move by exactly the operations the test performed;
// /readyz answers 503 while a token file is gone and 200 once it is back,
// and `signet health` exits 1 and 0 accordingly; the endpoint serves
// nothing else. Also `signet stats --profile`, the same counters read
// per interval through the daemon's own protocol.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <thread>

#include "base/rv_names.h"
#include "daemon_fixture.h"
#include "key_helpers.h"

namespace signet::e2e {
namespace {

// kParse: fetches the URL in argv[1] and prints each family as
// "F<TAB>name<TAB>type" and each sample as
// "S<TAB>name<TAB>label=value,...(sorted)<TAB>value", with Prometheus's
// own text parser.
constexpr const char* kParse = R"(
import sys, urllib.request
from prometheus_client.parser import text_string_to_metric_families
text = urllib.request.urlopen(sys.argv[1], timeout=10).read().decode()
for family in text_string_to_metric_families(text):
    print("F\t%s\t%s" % (family.name, family.type))
    for s in family.samples:
        labels = ",".join("%s=%s" % kv for kv in sorted(s.labels.items()))
        print("S\t%s\t%s\t%r" % (s.name, labels, s.value))
)";

// Scrape: families (name -> type) and samples ("name{labels}" -> value).
struct Scrape {
  std::map<std::string, std::string> families;
  std::map<std::string, double> samples;
  double Value(const std::string& key) const {
    auto it = samples.find(key);
    return it == samples.end() ? 0 : it->second;
  }
};

// HttpResult: the status code and body of a raw GET.
struct HttpResult {
  int status = 0;
  std::string body;
};

class MetricsTest : public DaemonTest {
 protected:
  std::vector<std::string> DaemonArgs() override {
    return {"--metrics-listen", "127.0.0.1:0", "--pool", "ec:p256=1"};
  }

  int MetricsPort() {
    auto lines = LogLines({"metrics_port="});
    if (lines.empty()) {
      ADD_FAILURE() << "no metrics_port in the log:\n" << daemon_.log();
      return 0;
    }
    const std::string& line = lines.front();
    return std::stoi(line.substr(line.find("metrics_port=") + 13));
  }

  std::string Url(const std::string& path) {
    return "http://127.0.0.1:" + std::to_string(MetricsPort()) + path;
  }

  Scrape ScrapeMetrics() {
    ProgramResult r = RunProgram({"/usr/bin/python3", "-c", kParse, Url("/metrics")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    Scrape scrape;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      std::vector<std::string> f;
      std::istringstream fields(line);
      for (std::string field; std::getline(fields, field, '\t');) f.push_back(field);
      if (f.size() == 3 && f[0] == "F") scrape.families[f[1]] = f[2];
      if (f.size() == 4 && f[0] == "S") scrape.samples[f[1] + "{" + f[2] + "}"] = std::stod(f[3]);
    }
    return scrape;
  }

  // Get sends `request` (a whole HTTP request head) and returns the reply.
  HttpResult Raw(const std::string& request) {
    HttpResult result;
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(MetricsPort()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd);
      ADD_FAILURE() << "cannot connect to the metrics port";
      return result;
    }
    (void)!::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    std::string reply;
    char buffer[4096];
    for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) reply.append(buffer, n);
    ::close(fd);
    if (reply.size() >= 12) result.status = std::stoi(reply.substr(9, 3));
    if (auto body = reply.find("\r\n\r\n"); body != std::string::npos) {
      result.body = reply.substr(body + 4);
    }
    return result;
  }

  HttpResult Get(const std::string& path) {
    return Raw("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  }

  std::filesystem::path TokenFile() {
    for (const auto& entry : std::filesystem::directory_iterator(data_dir())) {
      if (entry.path().extension() == ".token") return entry.path();
    }
    ADD_FAILURE() << "no token file in " << data_dir();
    return {};
  }
};

TEST_F(MetricsTest, EveryFamilyIsThereAndParsesWithPrometheusOwnParser) {
  Scrape scrape = ScrapeMetrics();
  // The parser names counters without their _total suffix.
  const std::map<std::string, std::string> expected = {
      {"signet_requests", "counter"},
      {"signet_request_duration_seconds", "histogram"},
      {"signet_queue_depth", "gauge"},
      {"signet_queue_wait_seconds", "summary"},
      {"signet_queue_rejected", "counter"},
      {"signet_workers", "gauge"},
      {"signet_worker_busy_seconds", "counter"},
      {"signet_key_cache_hits", "counter"},
      {"signet_key_cache_misses", "counter"},
      {"signet_key_cache_evictions", "counter"},
      {"signet_key_pool_keys", "gauge"},
      {"signet_key_pool_target", "gauge"},
      {"signet_key_pool_taken", "counter"},
      {"signet_key_pool_misses", "counter"},
      {"signet_logins", "counter"},
      {"signet_login_failures", "counter"},
      {"signet_login_lockouts", "counter"},
      {"signet_connections_open", "gauge"},
      {"signet_connections_accepted", "counter"},
      {"process_resident_memory_bytes", "gauge"},
      {"process_open_fds", "gauge"},
      {"process_start_time_seconds", "gauge"},
      {"signet_ready", "gauge"},
  };
  for (const auto& [name, type] : expected) {
    auto it = scrape.families.find(name);
    ASSERT_NE(it, scrape.families.end()) << name;
    EXPECT_EQ(it->second, type) << name;
  }
  EXPECT_EQ(scrape.Value("signet_key_pool_target{type=ec:p256}"), 1);
  EXPECT_GT(scrape.Value("process_resident_memory_bytes{}"), 0);
  EXPECT_GT(scrape.Value("process_open_fds{}"), 0);
  EXPECT_GT(scrape.Value("process_start_time_seconds{}"), 1.7e9);
  EXPECT_EQ(scrape.Value("signet_ready{}"), 1);
}

TEST_F(MetricsTest, CountersMoveByExactlyTheOperationsPerformed) {
  auto user = OpenUserSession();
  ASSERT_TRUE(user.ok()) << user.error().message;
  auto pair = GenerateKeyPair(*user, "ec:p256", "metrics", /*token=*/false);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  auto info = user->client->GetInfo();
  ASSERT_TRUE(info.ok());
  const std::string serial = info->slots.front().serial;

  Scrape before = ScrapeMetrics();
  constexpr int kSignatures = 7;
  const client::Bytes digest(32, 0x5a);
  for (int i = 0; i < kSignatures; ++i) {
    auto signature =
        user->client->Sign(user->session, pair->private_key, client::Mechanism{CKM_ECDSA}, digest);
    ASSERT_TRUE(signature.ok()) << signature.error().message;
  }
  // One signature with a handle that does not exist: counted under the
  // CK_RV the client got.
  auto refused = user->client->Sign(user->session, 0x7777777, client::Mechanism{CKM_ECDSA}, digest);
  ASSERT_FALSE(refused.ok());
  const std::string refused_rv(RvName(refused.error().code));
  // One failed login on a second connection.
  auto other = Connect();
  auto session = other->OpenSession(user->slot);
  ASSERT_TRUE(session.ok());
  Status wrong = other->Login(*session, CKU_USER, ToBytes("wrong-pin"));
  EXPECT_EQ(wrong.error().code, static_cast<CK_RV>(CKR_PIN_INCORRECT));
  Scrape after = ScrapeMetrics();

  auto delta = [&](const std::string& key) { return after.Value(key) - before.Value(key); };
  const std::string sign = "mechanism=CKM_ECDSA,op=sign";
  EXPECT_EQ(delta("signet_requests_total{" + sign + ",rv=CKR_OK}"), kSignatures);
  EXPECT_EQ(delta("signet_requests_total{" + sign + ",rv=" + refused_rv + "}"), 1) << refused_rv;
  EXPECT_EQ(delta("signet_request_duration_seconds_count{" + sign + "}"), kSignatures + 1);
  EXPECT_EQ(delta("signet_request_duration_seconds_bucket{le=+Inf," + sign + "}"), kSignatures + 1);
  EXPECT_EQ(delta("signet_requests_total{mechanism=none,op=login,rv=CKR_PIN_INCORRECT}"), 1);
  EXPECT_EQ(delta("signet_login_failures_total{token=" + serial + ",user=user}"), 1);
  EXPECT_EQ(delta("signet_logins_total{token=" + serial + ",user=user}"), 0);
  EXPECT_EQ(delta("signet_connections_accepted_total{transport=unix}"), 1);
  EXPECT_EQ(after.Value("signet_connections_open{transport=unix}"), 2);
  EXPECT_EQ(after.Value("signet_connections_accepted_total{transport=tls}"), 0);
  // The key pair came from the pool (filled with nobody logged in).
  EXPECT_GE(after.Value("signet_key_pool_taken_total{type=ec:p256}") +
                after.Value("signet_key_pool_misses_total{type=ec:p256}"),
            1);
}

TEST_F(MetricsTest, ReadyzFollowsTheKeystoreAndSignetHealthExitsAccordingly) {
  EXPECT_EQ(Get("/healthz").status, 200);
  EXPECT_EQ(Get("/readyz").status, 200);
  ProgramResult healthy = Signet({"health", "--url", Url("")});
  EXPECT_EQ(healthy.exit_code, 0) << healthy.err;

  // The token file goes away (a rename: CI runs as root, so a mode bit
  // would deny nothing).
  const std::filesystem::path file = TokenFile();
  const std::filesystem::path moved = file.string() + ".away";
  std::filesystem::rename(file, moved);
  HttpResult down = Get("/readyz");
  EXPECT_EQ(down.status, 503);
  EXPECT_NE(down.body.find("not ready: token file " + file.string()), std::string::npos)
      << down.body;
  ProgramResult unhealthy = Signet({"health", "--url", Url("")});
  EXPECT_EQ(unhealthy.exit_code, 1);
  EXPECT_NE(unhealthy.err.find("not ready: token file"), std::string::npos) << unhealthy.err;

  // A directory in its place is no better.
  std::filesystem::create_directory(file);
  EXPECT_EQ(Get("/readyz").status, 503);
  std::filesystem::remove(file);

  std::filesystem::rename(moved, file);
  EXPECT_EQ(Get("/readyz").status, 200);
  ProgramResult back = Signet({"health", "--url", Url("/readyz")});
  EXPECT_EQ(back.exit_code, 0) << back.err;
}

TEST_F(MetricsTest, SignetHealthFailsWhenNothingAnswers) {
  // A port that was just free: bind one, learn it, close it.
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  ::close(fd);
  ProgramResult r =
      Signet({"health", "--url", "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port))});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot connect"), std::string::npos) << r.err;
}

TEST_F(MetricsTest, TheEndpointServesNothingElse) {
  EXPECT_EQ(Get("/").status, 404);
  EXPECT_EQ(Get("/metrics/../etc/passwd").status, 404);
  EXPECT_EQ(Raw("POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n").status, 405);
  EXPECT_EQ(Raw("GET /metrics HTTP/1.1\r\nX: " + std::string(9000, 'a') + "\r\n\r\n").status, 431);
  EXPECT_EQ(Raw("garbage\r\n\r\n").status, 400);
  // HEAD: the status line and headers, no body.
  HttpResult head = Raw("HEAD /healthz HTTP/1.0\r\n\r\n");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.body, "");
}

// `signet stats --profile`: the counters' movement per interval from a
// live daemon under load (here one client signing in a loop).
TEST_F(MetricsTest, StatsProfileShowsWhatTheCountersMoveByPerInterval) {
  auto user = OpenUserSession();
  ASSERT_TRUE(user.ok()) << user.error().message;
  auto pair = GenerateKeyPair(*user, "ec:p256", "profile", /*token=*/false);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  std::atomic<bool> stop{false};
  std::thread load([&] {
    const client::Bytes digest(32, 0x11);
    while (!stop) {
      if (!user->client
               ->Sign(user->session, pair->private_key, client::Mechanism{CKM_ECDSA}, digest)
               .ok()) {
        return;
      }
    }
  });
  ProgramResult r = Signet({"stats", "--profile", "--interval", "200ms", "--count", "3", "--json"});
  stop = true;
  load.join();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  int count = 0;
  int busy = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    EXPECT_NE(line.find("\"name\":\"sign\""), std::string::npos) << line;
    if (line.find("\"requests_per_s\":0.0,") == std::string::npos) ++busy;
  }
  EXPECT_EQ(count, 3) << r.out;
  EXPECT_GT(busy, 0) << r.out;
  ProgramResult text = Signet({"stats", "--profile", "--interval", "50ms", "--count", "1"});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("requests/s"), std::string::npos) << text.out;
  EXPECT_EQ(Signet({"stats", "--profile", "--interval", "soon"}).exit_code, 1);
}

// IdleConnection: a connected socket that sends nothing, with a receive
// bound of 20 s so a test cannot hang on it.
int IdleConnection(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval bound{20, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  return fd;
}

// ClosedByPeer: the peer closed `fd` (recv sees end-of-file), within the
// socket's receive bound.
bool ClosedByPeer(int fd) {
  char byte;
  return ::recv(fd, &byte, 1, 0) == 0;
}

TEST_F(MetricsTest, SilentClientsAreCappedAndCutOffByTheDeadline) {
  const int port = MetricsPort();
  std::vector<int> idle;
  for (int i = 0; i < 16; ++i) idle.push_back(IdleConnection(port));
  // The 17th is over the cap: closed at accept, without a reply.
  int over = IdleConnection(port);
  EXPECT_TRUE(ClosedByPeer(over));
  ::close(over);
  // The silent ones are closed when their 5 s are up; then it answers again.
  for (int fd : idle) {
    EXPECT_TRUE(ClosedByPeer(fd));
    ::close(fd);
  }
  EXPECT_EQ(Get("/healthz").status, 200);
}

TEST_F(MetricsTest, MetricsFlagsThatCannotWorkAreUsageErrors) {
  daemon_.Terminate();
  const std::string signetd = BinaryPath("signetd");
  const std::string sock = Path("other.sock");
  // TLS without a certificate, and TLS without an endpoint.
  EXPECT_EQ(RunProgram({signetd, "--data", data_dir(), "--socket", sock, "--metrics-listen",
                        "127.0.0.1:0", "--metrics-tls"})
                .exit_code,
            2);
  EXPECT_EQ(
      RunProgram({signetd, "--data", data_dir(), "--socket", sock, "--metrics-tls"}).exit_code, 2);
  // An address that is not one.
  ProgramResult bad = RunProgram(
      {signetd, "--data", data_dir(), "--socket", sock, "--metrics-listen", "nowhere:80"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("--metrics-listen host must be an IP address"), std::string::npos)
      << bad.err;
}

// MetricsTlsTest: the endpoint behind --metrics-tls, with the TCP
// listener's certificate (TlsTestPki's server, signed by its ca).
class MetricsTlsTest : public MetricsTest {
 protected:
  std::vector<std::string> DaemonArgs() override {
    std::vector<std::string> args = TlsTestPki();
    for (const char* extra : {"--metrics-listen", "127.0.0.1:0", "--metrics-tls"}) {
      args.push_back(extra);
    }
    return args;
  }
};

TEST_F(MetricsTlsTest, TheEndpointSpeaksTlsWithTheListenersCertificate) {
  const std::string url = "https://127.0.0.1:" + std::to_string(MetricsPort()) + "/readyz";
  ProgramResult tls =
      RunProgram({"/usr/bin/python3", "-c",
                  "import ssl, sys, urllib.request\n"
                  "ctx = ssl.create_default_context(cafile=sys.argv[2])\n"
                  "r = urllib.request.urlopen(sys.argv[1], context=ctx, timeout=10)\n"
                  "print(r.status, r.read().decode().strip())\n",
                  url, Path("ca.pem")});
  EXPECT_EQ(tls.exit_code, 0) << tls.err;
  EXPECT_EQ(tls.out, "200 ready\n");
  // Plain HTTP gets no answer (the bytes are not a TLS handshake).
  EXPECT_EQ(Get("/readyz").status, 0);
}

}  // namespace
}  // namespace signet::e2e
