// Who may connect to signetd (issue 10): on the Unix socket the daemon's
// own uid, root and an optional --allow-group, checked with the peer's
// credentials (SO_PEERCRED) whatever the socket file's mode; over TCP the
// daemon refuses to listen without --tls-client-ca unless told
// --insecure-no-client-auth. The uid tests need root (to act as another
// user); they skip otherwise.
#include <gtest/gtest.h>
#include <grp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "key_helpers.h"
#include "raw_connection.h"

namespace signet::e2e {
namespace {

constexpr uid_t kNobody = 65534;
constexpr gid_t kTestGroup = 4242;

// GetInfoAs forks a child that takes `uid`/`gid` (no supplementary groups),
// connects to `socket` and sends GetInfo. Returns the reply's rv, -1 when
// the connection was closed without a reply, -2 when the child could not
// connect at all. Only async-signal-safe calls run in the child.
long GetInfoAs(const std::string& socket, uid_t uid, gid_t gid) {
  const std::vector<std::uint8_t> request = GetInfoFrame(9);
  int result_pipe[2];
  if (::pipe(result_pipe) != 0) return -3;
  pid_t child = ::fork();
  if (child == 0) {
    ::close(result_pipe[0]);
    long rv = -2;
    if (::setgroups(0, nullptr) == 0 && ::setgid(gid) == 0 && ::setuid(uid) == 0) {
      int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      std::size_t n = std::min(socket.size(), sizeof addr.sun_path - 1);
      std::memcpy(addr.sun_path, socket.data(), n);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
        rv = -1;
        std::size_t sent = 0;
        while (sent < request.size()) {
          ssize_t k = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
          if (k <= 0) break;
          sent += static_cast<std::size_t>(k);
        }
        // Read the whole reply (GetInfo is a few KiB) until EOF or enough.
        static std::uint8_t reply[65536];
        std::size_t got = 0;
        pollfd p{fd, POLLIN, 0};
        while (got < sizeof reply && ::poll(&p, 1, 20000) == 1) {
          ssize_t k = ::recv(fd, reply + got, sizeof reply - got, 0);
          if (k <= 0) break;
          got += static_cast<std::size_t>(k);
          if (got >= 4) {
            std::size_t length = (std::size_t{reply[0]} << 24) | (std::size_t{reply[1]} << 16) |
                                 (std::size_t{reply[2]} << 8) | reply[3];
            if (got >= 4 + length) break;
          }
        }
        if (got >= 4) {
          [[maybe_unused]] ssize_t written = ::write(result_pipe[1], reply, got);
        }
      }
    }
    ::_exit(rv == -2 ? 2 : 0);
  }
  ::close(result_pipe[1]);
  std::vector<std::uint8_t> bytes;
  std::uint8_t buf[4096];
  ssize_t k;
  while ((k = ::read(result_pipe[0], buf, sizeof buf)) > 0) bytes.insert(bytes.end(), buf, buf + k);
  ::close(result_pipe[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 2) return -2;
  if (bytes.size() < 4) return -1;
  std::vector<std::uint8_t> payload(bytes.begin() + 4, bytes.end());
  const wire::Response* response = ParseResponse(payload);
  return response == nullptr ? -1 : static_cast<long>(response->rv());
}

class PeerAccessTest : public DaemonTest {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to connect as another uid";
    DaemonTest::SetUp();
    // Let other users reach the socket file, so only the daemon's own
    // check stands between them and the HSM.
    ASSERT_EQ(::chmod(dir_.path().c_str(), 0711), 0);
  }
};

// Before: any local user who could reach the socket was served. Now a
// peer uid that is neither the daemon's nor root is refused at accept,
// even when the socket file's mode would let it in.
TEST_F(PeerAccessTest, OtherUidIsRefusedEvenThroughAnOpenSocketFile) {
  ASSERT_EQ(::chmod(socket_path().c_str(), 0666), 0);
  EXPECT_EQ(GetInfoAs(socket_path(), 0, 0), static_cast<long>(CKR_OK));
  long rv = GetInfoAs(socket_path(), kNobody, kNobody);
  EXPECT_NE(rv, static_cast<long>(CKR_OK));
  EXPECT_TRUE(LogEventually(daemon_, "refused peer")) << daemon_.log();
}

// --allow-group lets that group's members in (socket 0660, that group).
TEST_F(PeerAccessTest, AllowedGroupMayConnect) {
  ASSERT_EQ(daemon_.Terminate(), 0);
  StartDaemon({"--allow-group", std::to_string(kTestGroup)});
  struct stat st {};
  ASSERT_EQ(::stat(socket_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0660u);
  EXPECT_EQ(st.st_gid, kTestGroup);
  EXPECT_EQ(GetInfoAs(socket_path(), kNobody, kTestGroup), static_cast<long>(CKR_OK));
  ASSERT_EQ(::chmod(socket_path().c_str(), 0666), 0);
  EXPECT_NE(GetInfoAs(socket_path(), kNobody, kNobody), static_cast<long>(CKR_OK));
}

class TcpAuthTest : public DaemonTest {};

// TCP without a client CA means anyone who reaches the port may connect:
// signetd now refuses to start so unless told --insecure-no-client-auth.
TEST_F(TcpAuthTest, TcpWithoutClientCaNeedsExplicitInsecureFlag) {
  TlsTestPki();
  ASSERT_EQ(daemon_.Terminate(), 0);
  std::vector<std::string> tcp = {"--listen", "127.0.0.1:0", "--tls-cert", Path("server.pem"),
                                  "--tls-key", Path("server.key")};
  // Start reports a daemon that exits before its ready line, with its log.
  std::string refused = daemon_.Start(data_dir(), socket_path(), tcp);
  EXPECT_NE(refused, "") << "signetd listened on TCP without client authentication";
  EXPECT_NE(refused.find("--insecure-no-client-auth"), std::string::npos) << refused;
  if (daemon_.running()) {
    ASSERT_EQ(daemon_.Terminate(), 0);
  }
  tcp.push_back("--insecure-no-client-auth");
  StartDaemon(tcp);
  EXPECT_GT(TcpPort(), 0);
}


// A TLS client presenting the --admin-cert certificate is an administrator;
// another certificate from the same CA is not.
TEST_F(TcpAuthTest, AdminCertificateMakesTheTlsPeerAnAdministrator) {
  std::vector<std::string> args = TlsTestPki();
  MakeCertificate("other-client", "ca", "other-client", "extendedKeyUsage=clientAuth");
  ASSERT_EQ(daemon_.Terminate(), 0);
  args.insert(args.end(), {"--admin-cert", Path("client.pem")});
  StartDaemon(args);
  auto connect_as = [&](const std::string& name) {
    client::ConnectOptions options = TlsClientOptions(name);
    auto client = client::Client::Connect(options);
    EXPECT_TRUE(client.ok()) << client.error().message;
    if (client.ok()) {
      EXPECT_TRUE((*client)->GetInfo().ok());
    }
  };
  connect_as("other-client");
  EXPECT_TRUE(LogEventually(daemon_, "admin=no")) << daemon_.log();
  EXPECT_EQ(daemon_.log().find("admin=yes"), std::string::npos) << daemon_.log();
  connect_as("client");
  EXPECT_TRUE(LogEventually(daemon_, "admin=yes")) << daemon_.log();
}

}  // namespace
}  // namespace signet::e2e
