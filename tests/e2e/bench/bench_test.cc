// `signet bench parallel` and `signet bench profile` end to end: the output
// is well-formed and its arithmetic right (sigs/sec = n / (t1 - t0) from
// the printed t0/t1), CSV and JSON parse, the profile has every phase row
// and its shares add up to 100%, and --via pkcs11 drives SoftHSMv2 and
// signet's own module, and --via cryptech drives signetd's Cryptech listener
// (whose signatures the openssl tool checks). No timing assertions: only
// consistency.
#include <gtest/gtest.h>
#include <time.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "../daemon_fixture.h"
#include "base/hex.h"
#include "bench/cryptech_connection.h"

namespace signet::e2e {
namespace {

constexpr const char* kSoftHsm = "/usr/lib/softhsm/libsofthsm2.so";

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// WallSeconds parses "YYYY-MM-DD HH:MM:SS.ffffff" (UTC) into seconds.
double WallSeconds(const std::string& text) {
  struct tm tm {};
  const char* rest = strptime(text.c_str(), "%Y-%m-%d %H:%M:%S", &tm);
  EXPECT_NE(rest, nullptr) << text;
  if (rest == nullptr) return 0;
  return static_cast<double>(timegm(&tm)) + std::stod(std::string("0") + rest);
}

// ParallelLine: the numbers of one seed-format line.
struct ParallelLine {
  std::string algo;
  double sigs_per_sec = 0;
  int n = 0;
  int c = 0;
  double t0 = 0, t1 = 0;
};

const std::regex kLine(
    R"(^(\S+) sigs/sec (\S+) secs/sig \d+:\d\d:\d\d\.\d{6} mean \d+:\d\d:\d\d\.\d{6} )"
    R"(\(n (\d+), c (\d+) t0 (\S+ \S+) t1 (\S+ \S+)\) p50 \d+:\d\d:\d\d\.\d{6} )"
    R"(p99 \d+:\d\d:\d\d\.\d{6}$)");

std::vector<ParallelLine> ParseParallel(const std::string& out) {
  std::vector<ParallelLine> lines;
  for (const std::string& line : Lines(out)) {
    std::smatch m;
    if (!std::regex_match(line, m, kLine)) continue;
    lines.push_back({m[1], std::stod(m[2]), std::stoi(m[3]), std::stoi(m[4]), WallSeconds(m[5]),
                     WallSeconds(m[6])});
  }
  return lines;
}

// ExpectRightArithmetic: sigs/sec equals n / (t1 - t0) within what the
// microsecond rounding of t0 and t1 allows.
void ExpectRightArithmetic(const ParallelLine& line) {
  const double elapsed = line.t1 - line.t0;
  ASSERT_GT(elapsed, 2e-6) << line.algo;
  const double expected = line.n / elapsed;
  const double slack = line.n / (elapsed - 2e-6) - line.n / (elapsed + 2e-6);
  EXPECT_NEAR(line.sigs_per_sec, expected, slack + 1e-6 * expected) << line.algo;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void ExpectReports(const std::string& csv_path, const std::string& json_path, std::size_t rows) {
  std::vector<std::string> csv = Lines(ReadFile(csv_path));
  ASSERT_EQ(csv.size(), rows + 1);
  EXPECT_EQ(csv[0].rfind("algorithm,backend,n,c,sigs/sec", 0), 0u) << csv[0];
  nlohmann::json json = nlohmann::json::parse(ReadFile(json_path));  // throws if malformed
  ASSERT_EQ(json["tables"].size(), 1u);
  const auto& table_rows = json["tables"][0]["rows"];
  ASSERT_EQ(table_rows.size(), rows);
  for (const auto& row : table_rows) {
    EXPECT_EQ(row["n"], 20);
    EXPECT_GT(row["sigs/sec"].get<double>(), 0);
  }
}

class BenchTest : public DaemonTest {};

TEST_F(BenchTest, ParallelAgainstGivenDaemonIsWellFormed) {
  ProgramResult r =
      Signet({"bench", "parallel", "--algo", "rsa2048", "-n", "20", "--clients", "1,2", "--csv",
              Path("p.csv"), "--json", Path("p.json"), "--pin", kUserPin});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<ParallelLine> lines = ParseParallel(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(lines[i].algo, "rsa_2048");
    EXPECT_EQ(lines[i].n, 20);
    EXPECT_EQ(lines[i].c, i + 1);
    ExpectRightArithmetic(lines[i]);
  }
  ExpectReports(Path("p.csv"), Path("p.json"), 2);
}

TEST_F(BenchTest, ParallelStartsItsOwnDaemonAndComparesWithRaw) {
  ProgramResult r =
      RunProgram({BinaryPath("signet"), "bench", "parallel", "--algo", "rsa2048", "-n", "20",
                  "--clients", "1,2", "--raw", "--csv", Path("o.csv"), "--json", Path("o.json")},
                 {{"SIGNET_SOCKET", ""}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<ParallelLine> lines = ParseParallel(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_EQ(lines[0].algo, "rsa_2048");
  EXPECT_EQ(lines[1].algo, "rsa_2048/raw");
  for (const auto& line : lines) ExpectRightArithmetic(line);
  EXPECT_NE(r.out.find("\n# ratio daemon/raw rsa_2048 c 2 sigs/sec "), std::string::npos) << r.out;
  ExpectReports(Path("o.csv"), Path("o.json"), 4);
}

// The operations besides signing through the client library: every one
// runs against the fixture's signetd (an error, such as a plaintext of the
// wrong length, fails the run), and the second run reuses the keys the
// first made.
TEST_F(BenchTest, OtherOperationsThroughTheDaemon) {
  const std::vector<std::string> ops = {"aes_gcm_1k",  "aes_gcm_16k",    "aes_cbc_1k",
                                        "aes_cbc_16k", "hmac_sha256_1k", "rsa_2048_oaep_dec",
                                        "ecdh_p256",   "x25519"};
  for (int run = 0; run < 2; ++run) {
    ProgramResult r = Signet({"bench", "parallel", "--algo",
                              "aes-gcm-1k,aes-gcm-16k,aes-cbc-1k,aes-cbc-16k,hmac-sha256-1k,"
                              "rsa2048-oaep-decrypt,ecdh-p256,x25519",
                              "-n", "8", "--clients", "2", "--pin", kUserPin});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::vector<ParallelLine> lines = ParseParallel(r.out);
    ASSERT_EQ(lines.size(), ops.size()) << r.out;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      EXPECT_EQ(lines[i].algo, ops[i]);
      ExpectRightArithmetic(lines[i]);
    }
  }
}

TEST_F(BenchTest, PipelineAndBatchVerifyEverySignature) {
  for (const char* flag : {"--pipeline", "--batch"}) {
    ProgramResult r = Signet({"bench", "parallel", "--algo", "ecp256,ed25519", "-n", "20",
                              "--clients", "2", flag, "4", "--pin", kUserPin});
    ASSERT_EQ(r.exit_code, 0) << flag << ": " << r.err;
    std::vector<ParallelLine> lines = ParseParallel(r.out);
    ASSERT_EQ(lines.size(), 2u) << r.out;
    for (const auto& line : lines) ExpectRightArithmetic(line);
  }
}

TEST_F(BenchTest, ParallelWithWrongPinFailsClearly) {
  ProgramResult r = Signet(
      {"bench", "parallel", "--algo", "ecp256", "-n", "5", "--clients", "1", "--pin", "wrong-pin"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("bench parallel:"), std::string::npos) << r.err;
}

TEST_F(BenchTest, ProfileHasEveryPhaseAndSharesAddUpTo100) {
  ProgramResult r = Signet({"bench", "profile", "-n", "20", "--clients", "2", "--pin", kUserPin});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ParseParallel(r.out).size(), 1u) << r.out;
  // execute_other is execute less its rows, so on a busy machine clock
  // noise can make its total (and share) slightly negative.
  // phase, within (empty or "execute"), calls, total s, % of whole, per call.
  const std::regex row(R"(^(\S+)(?: +execute)? +(\d+) +(-?\d+\.\d+) +(-?\d+\.\d+) +(-?\d+\.\d+)$)");
  std::map<std::string, double> share;
  std::map<std::string, long> calls;
  for (const std::string& line : Lines(r.out)) {
    std::smatch m;
    if (std::regex_match(line, m, row)) {
      share[m[1]] = std::stod(m[4]);
      calls[m[1]] = std::stol(m[2]);
    }
  }
  double sum = 0;
  for (const char* phase : {"decode", "queue_wait", "key_fetch_hit", "key_fetch_miss", "unwrap",
                            "sign", "verify", "encode", "execute_other", "outside_daemon"}) {
    ASSERT_TRUE(share.count(phase)) << phase << " missing in:\n" << r.out;
    sum += share[phase];
  }
  ASSERT_TRUE(share.count("execute") && share.count("whole")) << r.out;
  EXPECT_NEAR(sum, 100.0, 0.1) << r.out;
  EXPECT_NEAR(share["whole"], 100.0, 0.01);
  EXPECT_EQ(calls["sign"], 20) << r.out;  // one signature per request
  EXPECT_NE(r.out.find("counter cost per request"), std::string::npos) << r.out;
}

// --format callgraph: seed 001's layout, one entry per phase that ran, the
// client's request at the root and the signature under execute.
TEST_F(BenchTest, ProfileCallGraphHasTheSeedsLayout) {
  ProgramResult r = Signet({"bench", "profile", "-n", "20", "--clients", "2", "--format",
                            "callgraph", "--pin", kUserPin});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("index % time    self  children    called     name\n"), std::string::npos)
      << r.out;
  const std::regex primary(R"(^\[(\d+)\] +\d+\.\d +\d+\.\d\d +\d+\.\d\d +(\d+) +(\S+) \[\1\]$)");
  std::map<std::string, long> calls;
  for (const std::string& line : Lines(r.out)) {
    std::smatch m;
    if (std::regex_match(line, m, primary)) calls[m[3]] = std::stol(m[2]);
  }
  EXPECT_EQ(calls["sign_request"], 20) << r.out;
  EXPECT_EQ(calls["sign"], 20) << r.out;
  EXPECT_EQ(calls["execute"], 20) << r.out;
  // execute's entry names its caller: "20/20 ... sign_request [1]".
  EXPECT_TRUE(std::regex_search(
      r.out,
      std::regex(
          R"(\n +\d+\.\d\d +\d+\.\d\d +20/20 +sign_request \[1\]\n\[\d+\] +\d+\.\d +\d+\.\d\d +\d+\.\d\d +20 +execute)")))
      << r.out;
  EXPECT_EQ(Signet({"bench", "profile", "--format", "gprof", "--pin", kUserPin}).exit_code, 2);
}

// SoftHsmEnv: a private SoftHSMv2 configuration with one fresh token.
std::map<std::string, std::string> SoftHsmEnv(const std::string& dir) {
  WriteTextFile(dir + "/softhsm2.conf", "directories.tokendir = " + dir +
                                            "/tokens\nobjectstore.backend = file\n"
                                            "log.level = ERROR\n");
  std::filesystem::create_directories(dir + "/tokens");
  return {{"SOFTHSM2_CONF", dir + "/softhsm2.conf"}};
}

TEST(BenchPkcs11Test, SoftHsmThroughViaPkcs11) {
  if (!std::filesystem::exists(kSoftHsm)) GTEST_SKIP() << kSoftHsm << " not installed";
  TempDir dir;
  auto env = SoftHsmEnv(dir.path());
  ProgramResult init = RunProgram({"/usr/bin/softhsm2-util", "--init-token", "--free", "--label",
                                   "bench", "--so-pin", "1234", "--pin", "1234"},
                                  env);
  ASSERT_EQ(init.exit_code, 0) << init.err << init.out;
  ProgramResult r = RunProgram({BinaryPath("signet"), "bench", "parallel", "--via", "pkcs11",
                                "--module", kSoftHsm, "--token-label", "bench", "--pin", "1234",
                                "--algo", "rsa2048,ecp256", "-n", "10", "--clients", "2"},
                               env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<ParallelLine> lines = ParseParallel(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  for (const auto& line : lines) ExpectRightArithmetic(line);
}

TEST(BenchPkcs11Test, SignetModuleThroughViaPkcs11) {
  const std::string module = std::string(SIGNET_BINARY_DIR) + "/lib/libsignet-pkcs11.so";
  if (!std::filesystem::exists(module)) GTEST_SKIP() << module << " not built";
  ProgramResult r =
      RunProgram({BinaryPath("signet"), "bench", "parallel", "--via", "pkcs11", "--module", module,
                  "--algo", "ecp256", "-n", "10", "--clients", "2", "--raw"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<ParallelLine> lines = ParseParallel(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  for (const auto& line : lines) ExpectRightArithmetic(line);
  EXPECT_NE(r.out.find("ratio pkcs11/raw"), std::string::npos) << r.out;
}

// The operations besides signing (AES-GCM / CBC, HMAC, RSA OAEP
// decryption, ECDH, X25519) through signet's module and SoftHSMv2's, each
// line well formed; SoftHSMv2 has no X25519.
TEST(BenchPkcs11Test, OtherOperationsThroughSignetAndSoftHsm) {
  const std::string module = std::string(SIGNET_BINARY_DIR) + "/lib/libsignet-pkcs11.so";
  if (!std::filesystem::exists(module)) GTEST_SKIP() << module << " not built";
  const std::string ops = "aes-gcm-1k,aes-cbc-16k,hmac-sha256-1k,rsa2048-oaep-decrypt,ecdh-p256";
  ProgramResult signet =
      RunProgram({BinaryPath("signet"), "bench", "parallel", "--via", "pkcs11", "--module", module,
                  "--algo", ops + ",x25519", "-n", "8", "--clients", "2", "--raw"});
  ASSERT_EQ(signet.exit_code, 0) << signet.err;
  std::vector<ParallelLine> lines = ParseParallel(signet.out);
  ASSERT_EQ(lines.size(), 12u) << signet.out;  // module and raw, six operations
  for (const auto& line : lines) ExpectRightArithmetic(line);
  if (!std::filesystem::exists(kSoftHsm)) GTEST_SKIP() << kSoftHsm << " not installed";
  TempDir dir;
  auto env = SoftHsmEnv(dir.path());
  ASSERT_EQ(RunProgram({"/usr/bin/softhsm2-util", "--init-token", "--free", "--label", "bench",
                        "--so-pin", "1234", "--pin", "1234"},
                       env)
                .exit_code,
            0);
  ProgramResult softhsm = RunProgram(
      {BinaryPath("signet"), "bench", "parallel", "--via", "pkcs11", "--module", kSoftHsm,
       "--token-label", "bench", "--pin", "1234", "--algo", ops, "-n", "8", "--clients", "2"},
      env);
  ASSERT_EQ(softhsm.exit_code, 0) << softhsm.err;
  EXPECT_EQ(ParseParallel(softhsm.out).size(), 5u) << softhsm.out;
}

// BenchCryptechTest: the fixture's signetd with its Cryptech listener on the
// fixture's token (docs/CRYPTECH.md).
class BenchCryptechTest : public DaemonTest {
 public:
  std::vector<std::string> DaemonArgs() override {
    return {"--cryptech-socket", CryptechSocket(), "--cryptech-token", kTokenLabel};
  }
  std::string CryptechSocket() const { return Path("cryptech.sock"); }

  // Bench runs `signet bench parallel --via cryptech` with `args`, naming
  // no socket in the environment.
  ProgramResult Bench(const std::vector<std::string>& args,
                      std::map<std::string, std::string> env = {}) {
    std::vector<std::string> argv = {BinaryPath("signet"), "bench", "parallel", "--via",
                                     "cryptech"};
    argv.insert(argv.end(), args.begin(), args.end());
    env.emplace("SIGNET_CRYPTECH_SOCKET", "");
    env.emplace("CRYPTECH_RPC_CLIENT_SOCKET_NAME", "");
    env.emplace("SIGNET_SOCKET", "");
    return RunProgram(argv, env);
  }
};

TEST_F(BenchCryptechTest, SeedLinesThroughTheCryptechListener) {
  ProgramResult r =
      Bench({"--socket", CryptechSocket(), "--pin", kUserPin, "--algo", "rsa:1024,ec:p256", "-n",
             "20", "--clients", "1,2", "--csv", Path("c.csv"), "--json", Path("c.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<ParallelLine> lines = ParseParallel(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  const char* algos[] = {"rsa_1024", "rsa_1024", "ecdsa_p256", "ecdsa_p256"};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(lines[i].algo, algos[i]);
    EXPECT_EQ(lines[i].n, 20);
    EXPECT_EQ(lines[i].c, i % 2 + 1);
    ExpectRightArithmetic(lines[i]);
  }
  // Every client deleted its session key: a failed PKEY_DELETE is a warning.
  EXPECT_EQ(r.err.find("bench parallel: warning"), std::string::npos) << r.err;
  ExpectReports(Path("c.csv"), Path("c.json"), 4);
  EXPECT_NE(ReadFile(Path("c.csv")).find(",cryptech,20,2,"), std::string::npos);
}

TEST_F(BenchCryptechTest, SocketAndPinFromTheEnvironment) {
  ProgramResult r =
      Bench({"--algo", "rsa:1024", "-n", "6", "--clients", "3", "--no-verify"},
            {{"CRYPTECH_RPC_CLIENT_SOCKET_NAME", CryptechSocket()}, {"SIGNET_PIN", kUserPin}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(ParseParallel(r.out).size(), 1u) << r.out;
}

TEST_F(BenchCryptechTest, RefusalsNameWhatWasWrong) {
  ProgramResult ed25519 =
      Bench({"--socket", CryptechSocket(), "--pin", kUserPin, "--algo", "ed25519", "-n", "2"});
  EXPECT_EQ(ed25519.exit_code, 1);
  EXPECT_NE(ed25519.err.find("not ed25519"), std::string::npos) << ed25519.err;
  ProgramResult pipeline = Bench(
      {"--socket", CryptechSocket(), "--pin", kUserPin, "--pipeline", "2", "--algo", "rsa:1024"});
  EXPECT_EQ(pipeline.exit_code, 1);
  EXPECT_NE(pipeline.err.find("daemon options"), std::string::npos) << pipeline.err;
  ProgramResult nobody = Bench({"--socket", Path("nobody.sock"), "--pin", kUserPin});
  EXPECT_EQ(nobody.exit_code, 1);
  EXPECT_NE(nobody.err.find("cannot connect to the Cryptech socket"), std::string::npos)
      << nobody.err;
  // Last: a wrong PIN may throttle the logins after it (docs/SECURITY.md).
  ProgramResult wrong_pin =
      Bench({"--socket", CryptechSocket(), "--pin", "wrong-pin", "--algo", "rsa:1024"});
  EXPECT_EQ(wrong_pin.exit_code, 1);
  EXPECT_NE(wrong_pin.err.find("answered login (3) with status 24"), std::string::npos)
      << wrong_pin.err;
}

// What the bench signs, checked by the openssl tool: an RSA key openssl
// made, loaded through the listener as the bench loads its own, signs the
// bench's DigestInfo; openssl accepts the signature and refuses it altered.
TEST_F(BenchCryptechTest, OpensslAcceptsWhatTheListenerSigns) {
  ASSERT_EQ(OpenSsl({"genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out",
                     Path("key.pem")})
                .exit_code,
            0);
  ASSERT_EQ(OpenSsl({"pkcs8", "-topk8", "-nocrypt", "-in", Path("key.pem"), "-outform", "DER",
                     "-out", Path("key.p8")})
                .exit_code,
            0);
  ASSERT_EQ(OpenSsl({"pkey", "-in", Path("key.pem"), "-pubout", "-out", Path("pub.pem")}).exit_code,
            0);
  const std::vector<std::uint8_t> pkcs8 = ReadBinaryFile(Path("key.p8"));
  auto connection = bench::CryptechConnection::Connect(CryptechSocket());
  ASSERT_TRUE(connection.ok()) << connection.error().message;
  bench::CryptechConnection& hsm = **connection;
  Status login = hsm.Login(proto::hal::User::kNormal, AsBytes(kUserPin));
  ASSERT_TRUE(login.ok()) << login.error().message;
  auto key = hsm.PkeyLoad(0, pkcs8, proto::hal::kFlagDigitalSignature);
  ASSERT_TRUE(key.ok()) << key.error().message;
  // SHA-256("Hamsters'R'Us") (`openssl dgst -sha256`) in its DigestInfo.
  const std::string digest_hex = "e6be9e2479bcadc7228172e2c33adb8b3ffefb3b872376bd60fbe58f8d3cbf44";
  const Bytes input = FromHex("3031300d060960864801650304020105000420" + digest_hex).value();
  auto signature = hsm.PkeySign(key->pkey, input, 1024);
  ASSERT_TRUE(signature.ok()) << signature.error().message;
  ASSERT_EQ(signature->size(), 128u);
  const Bytes digest = FromHex(digest_hex).value();
  WriteTextFile(Path("digest.bin"), std::string(digest.begin(), digest.end()));
  auto verify = [&](const Bytes& sig) {
    WriteTextFile(Path("sig.bin"), std::string(sig.begin(), sig.end()));
    return OpenSsl({"pkeyutl", "-verify", "-pubin", "-inkey", Path("pub.pem"), "-pkeyopt",
                    "digest:sha256", "-in", Path("digest.bin"), "-sigfile", Path("sig.bin")});
  };
  ProgramResult good = verify(*signature);
  EXPECT_EQ(good.exit_code, 0) << good.out << good.err;
  Bytes altered = *signature;
  altered[17] ^= 0x01;
  EXPECT_NE(verify(altered).exit_code, 0);
  Status deleted = hsm.PkeyDelete(key->pkey);
  ASSERT_TRUE(deleted.ok()) << deleted.error().message;
  auto gone = hsm.PkeySign(key->pkey, input, 1024);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().message, "the Cryptech listener answered pkey_sign (23) with status 21");
}

TEST(BenchCryptechOwnDaemonTest, StartsSignetdWithItsListener) {
  ProgramResult r = RunProgram({BinaryPath("signet"), "bench", "parallel", "--via", "cryptech",
                                "--algo", "rsa:1024", "-n", "10", "--clients", "2", "--raw"},
                               {{"SIGNET_SOCKET", ""},
                                {"SIGNET_CRYPTECH_SOCKET", ""},
                                {"CRYPTECH_RPC_CLIENT_SOCKET_NAME", ""}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<ParallelLine> lines = ParseParallel(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0].algo, "rsa_1024");
  EXPECT_EQ(lines[1].algo, "rsa_1024/raw");
  EXPECT_NE(r.out.find("\n# ratio cryptech/raw rsa_1024 c 2 sigs/sec "), std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace signet::e2e
