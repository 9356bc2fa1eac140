#include "daemon_fixture.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "base/secure_bytes.h"

namespace signet::e2e {
namespace {

// kTestKdfN: scrypt N for the test token (the default costs ~100 ms per PIN
// check; tests log in hundreds of times).
constexpr const char* kTestKdfN = "1024";

}  // namespace

std::string OpenSslPath() {
  const char* path_env = std::getenv("PATH");
  std::stringstream dirs(path_env != nullptr ? path_env : "/usr/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = dir + "/openssl";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "/usr/bin/openssl";
}

void WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::vector<std::uint8_t> ReadBinaryFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void DaemonTest::SetUp() {
  data_dir_ = Path("data");
  socket_ = Path("s.sock");
  ProgramResult init = RunProgram({BinaryPath("signet"), "init", "--data", data_dir_, "--label",
                                   kTokenLabel, "--so-pin", kSoPin, "--pin", kUserPin,
                                   "--kdf-n", kTestKdfN});
  ASSERT_EQ(init.exit_code, 0) << init.err;
  StartDaemon(DaemonArgs());
}

void DaemonTest::TearDown() {
  if (daemon_.running()) {
    int status = daemon_.Terminate();
    EXPECT_EQ(status, 0) << "signetd log:\n" << daemon_.log();
  }
}

void DaemonTest::StartDaemon(const std::vector<std::string>& extra) {
  std::string failure = daemon_.Start(data_dir_, socket_, extra);
  ASSERT_EQ(failure, "");
}

ProgramResult DaemonTest::Signet(std::vector<std::string> args,
                                 const std::map<std::string, std::string>& env) {
  std::vector<std::string> argv = {BinaryPath("signet")};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--socket", socket_, "--data", data_dir_});
  return RunProgram(argv, env);
}

ProgramResult DaemonTest::OpenSsl(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {OpenSslPath()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProgram(argv);
}

void DaemonTest::MakeCertificate(const std::string& name, const std::string& issuer,
                                 const std::string& common_name, const std::string& extensions) {
  std::string key = Path(name + ".key"), pem = Path(name + ".pem"), ext = Path(name + ".ext");
  WriteTextFile(ext, extensions + "\n");
  ProgramResult made =
      OpenSsl({"genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  if (issuer.empty()) {
    made = OpenSsl({"req", "-x509", "-new", "-key", key, "-out", pem, "-days", "2", "-subj",
                    "/CN=" + common_name, "-addext", extensions.substr(0, extensions.find('\n'))});
  } else {
    std::string csr = Path(name + ".csr");
    made = OpenSsl({"req", "-new", "-key", key, "-out", csr, "-subj", "/CN=" + common_name});
    ASSERT_EQ(made.exit_code, 0) << made.err;
    made = OpenSsl({"x509", "-req", "-in", csr, "-CA", Path(issuer + ".pem"), "-CAkey",
                    Path(issuer + ".key"), "-CAcreateserial", "-out", pem, "-days", "2",
                    "-extfile", ext});
  }
  ASSERT_EQ(made.exit_code, 0) << made.err;
}

std::vector<std::string> DaemonTest::TlsTestPki() {
  MakeCertificate("ca", "", "signet-test-ca", "basicConstraints=critical,CA:TRUE");
  MakeCertificate("server", "ca", "localhost",
                  "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth");
  MakeCertificate("client", "ca", "signet-test-client", "extendedKeyUsage=clientAuth");
  MakeCertificate("other-ca", "", "someone-else", "basicConstraints=critical,CA:TRUE");
  MakeCertificate("intruder", "other-ca", "intruder", "extendedKeyUsage=clientAuth");
  return {"--listen",   "127.0.0.1:0",      "--tls-cert",      Path("server.pem"),
          "--tls-key",  Path("server.key"), "--tls-client-ca", Path("ca.pem")};
}

client::ConnectOptions DaemonTest::TlsClientOptions(const std::string& cert) {
  client::ConnectOptions options;
  options.address = "tcp://127.0.0.1:" + std::to_string(TcpPort());
  options.tls_ca_file = Path("ca.pem");
  options.tls_server_name = "localhost";
  options.tls_cert_file = Path(cert + ".pem");
  options.tls_key_file = Path(cert + ".key");
  return options;
}

int DaemonTest::TcpPort() {
  const std::string log = daemon_.log();
  const auto at = log.find("tcp_port=");
  EXPECT_NE(at, std::string::npos) << log;
  return at == std::string::npos ? 0 : std::atoi(log.c_str() + at + 9);
}

std::vector<std::string> DaemonTest::LogLines(const std::vector<std::string>& parts,
                                              const std::string& start) {
  std::vector<std::string> found;
  daemon_.WaitForLog(
      [&](const std::string& log) {
        found.clear();
        std::istringstream lines(log);
        std::string line;
        while (std::getline(lines, line)) {
          bool all = line.starts_with(start);
          for (const std::string& part : parts) all = all && line.find(part) != std::string::npos;
          if (all) found.push_back(line);
        }
        return !found.empty();
      },
      std::chrono::seconds(5));
  return found;
}

std::unique_ptr<client::Client> DaemonTest::Connect() {
  auto connected = client::Client::Connect({.address = socket_});
  EXPECT_TRUE(connected.ok()) << connected.error().message;
  return connected.ok() ? std::move(*connected) : nullptr;
}

Result<UserSession> DaemonTest::OpenUserSession(bool shared_memory) {
  UserSession user;
  SIGNET_ASSIGN_OR_RETURN(
      user.client, client::Client::Connect({.address = socket_, .shared_memory = shared_memory}));
  SIGNET_ASSIGN_OR_RETURN(client::ServerInfo info, user.client->GetInfo());
  bool found = false;
  for (const client::SlotInfo& slot : info.slots) {
    std::string label = slot.label;
    while (!label.empty() && label.back() == ' ') label.pop_back();  // PKCS#11 padding
    if (slot.token_present && label == kTokenLabel) {
      user.slot = slot.slot_id;
      found = true;
      break;
    }
  }
  if (!found) return MakeError(CKR_TOKEN_NOT_PRESENT, "test token not served");
  SIGNET_ASSIGN_OR_RETURN(user.session, user.client->OpenSession(user.slot));
  SIGNET_TRY(user.client->Login(user.session, CKU_USER, AsBytes(kUserPin)));
  return user;
}

}  // namespace signet::e2e
