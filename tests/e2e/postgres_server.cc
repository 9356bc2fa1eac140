#include "postgres_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace signet::e2e {
namespace {

// kNobody: the user the server runs as when the tests run as root.
constexpr uid_t kNobody = 65534;

// ServerBinDir: the newest /usr/lib/postgresql/<version>/bin with initdb.
std::string ServerBinDir() {
  std::string best;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
    const std::string bin = entry.path().string() + "/bin";
    if (std::filesystem::exists(bin + "/initdb") && bin > best) best = bin;
  }
  return best;
}

// FreePort: a port the kernel just handed out on 127.0.0.1 (free now; the
// server binds it right after).
int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

// AsServerUser: argv run as `nobody` when this process is root.
std::vector<std::string> AsServerUser(std::vector<std::string> argv) {
  if (::geteuid() != 0) return argv;
  const std::string id = std::to_string(kNobody);
  argv.insert(argv.begin(),
              {"/usr/bin/setpriv", "--reuid=" + id, "--regid=" + id, "--clear-groups"});
  return argv;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

bool PostgresInstalled() { return !ServerBinDir().empty(); }

std::string PostgresServer::Start() {
  bin_ = ServerBinDir();
  if (bin_.empty()) return "no PostgreSQL server under /usr/lib/postgresql (scripts/deps.sh)";
  dir_ = std::make_unique<TempDir>();
  if (::geteuid() == 0 && ::chown(dir_->path().c_str(), kNobody, kNobody) != 0) {
    return "cannot hand " + dir_->path() + " to nobody";
  }
  ProgramResult init =
      RunProgram(AsServerUser({bin_ + "/initdb", "-D", dir_->path() + "/data", "-U", "signet",
                               "--auth=trust", "-E", "UTF8", "--no-sync"}));
  if (init.exit_code != 0) return "initdb failed: " + init.err;
  port_ = FreePort();
  if (port_ == 0) return "no free port";
  return StartAgain();
}

std::string PostgresServer::StartAgain() {
  std::string failed = PgCtl("start");
  if (!failed.empty()) return failed + ReadFile(dir_->path() + "/server.log");
  running_ = true;
  return "";
}

std::string PostgresServer::Stop() {
  if (!running_) return "";
  running_ = false;
  return PgCtl("stop");
}

std::string PostgresServer::PgCtl(const std::string& action) {
  std::vector<std::string> argv = {
      bin_ + "/pg_ctl", "-D", dir_->path() + "/data", "-w", "-l", dir_->path() + "/server.log"};
  if (action == "start") {
    argv.push_back("-o");
    argv.push_back("-p " + std::to_string(port_) + " -k " + dir_->path() +
                   " -c listen_addresses=127.0.0.1 -c fsync=off");
  } else {
    argv.insert(argv.end(), {"-m", "fast"});
  }
  argv.push_back(action);
  ProgramResult r = RunProgram(AsServerUser(argv));
  return r.exit_code == 0 ? "" : "pg_ctl " + action + " failed: " + r.out + r.err;
}

PostgresServer::~PostgresServer() {
  if (running_) Stop();
}

std::string PostgresServer::uri() const {
  return "postgresql://signet@127.0.0.1:" + std::to_string(port_) + "/postgres";
}

}  // namespace signet::e2e
