#include "client/stream.h"

#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <thread>

#include "client/socket_stream.h"

namespace signet::client {
namespace {

TEST(ParseEndpoint, PlainPathIsAUnixSocket) {
  auto endpoint = ParseEndpoint("/run/signet/signetd.sock");
  ASSERT_TRUE(endpoint.ok());
  EXPECT_EQ(endpoint->kind, Endpoint::Kind::kUnix);
  EXPECT_EQ(endpoint->path, "/run/signet/signetd.sock");
}

TEST(ParseEndpoint, UnixPrefixIsStripped) {
  auto endpoint = ParseEndpoint("unix:relative.sock");
  ASSERT_TRUE(endpoint.ok());
  EXPECT_EQ(endpoint->kind, Endpoint::Kind::kUnix);
  EXPECT_EQ(endpoint->path, "relative.sock");
}

TEST(ParseEndpoint, TcpHostAndPort) {
  auto endpoint = ParseEndpoint("tcp://hsm.example:7443");
  ASSERT_TRUE(endpoint.ok());
  EXPECT_EQ(endpoint->kind, Endpoint::Kind::kTcp);
  EXPECT_EQ(endpoint->host, "hsm.example");
  EXPECT_EQ(endpoint->port, "7443");
}

TEST(ParseEndpoint, TcpBracketedIpv6) {
  auto endpoint = ParseEndpoint("tcp://[::1]:7443");
  ASSERT_TRUE(endpoint.ok());
  EXPECT_EQ(endpoint->host, "::1");
  EXPECT_EQ(endpoint->port, "7443");
}

TEST(ParseEndpoint, RejectsMalformedAddresses) {
  for (const char* bad : {"", "tcp://", "tcp://host", "tcp://:80", "tcp://host:", "tcp://[::1]",
                          "tcp://[::1]80", "http://host:80", "unix:"}) {
    auto endpoint = ParseEndpoint(bad);
    EXPECT_FALSE(endpoint.ok()) << bad;
    if (!endpoint.ok()) {
      EXPECT_EQ(endpoint.error().code, CKR_ARGUMENTS_BAD) << bad;
    }
  }
}

TEST(ConnectStream, MissingSocketNamesThePath) {
  auto stream = ConnectStream(*ParseEndpoint("/nonexistent/signetd.sock"), {},
                              std::chrono::milliseconds(0));
  ASSERT_FALSE(stream.ok());
  EXPECT_EQ(stream.error().code, CKR_DEVICE_ERROR);
  EXPECT_NE(stream.error().message.find("/nonexistent/signetd.sock"), std::string::npos);
}

// A peer that answers while we still write (as a daemon answering pipelined
// requests does) must not deadlock a large Write: SocketStream keeps
// draining inbound bytes while the socket is full.
TEST(SocketStream, LargeWriteWhilePeerEchoesDoesNotDeadlock) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  constexpr std::size_t kSize = 8 << 20;  // far beyond both socket buffers
  std::thread echo([peer = fds[1]] {
    std::vector<std::uint8_t> buffer(65536);
    ssize_t n;
    while ((n = read(peer, buffer.data(), buffer.size())) > 0) {
      for (ssize_t done = 0; done < n;) {
        ssize_t w = write(peer, buffer.data() + done, static_cast<std::size_t>(n - done));
        if (w <= 0) return;
        done += w;
      }
    }
    close(peer);
  });
  SocketStream stream(fds[0], std::chrono::milliseconds(0));
  std::vector<std::uint8_t> data(kSize);
  for (std::size_t i = 0; i < kSize; ++i) data[i] = static_cast<std::uint8_t>(i * 31 + 7);
  ASSERT_TRUE(stream.Write(data).ok());
  stream.ShutdownWrite();

  std::vector<std::uint8_t> echoed;
  std::vector<std::uint8_t> buffer(65536);
  for (;;) {
    auto n = stream.Read(buffer);
    if (!n.ok()) {
      EXPECT_EQ(n.error().code, CKR_DEVICE_REMOVED);  // clean end of stream
      break;
    }
    echoed.insert(echoed.end(), buffer.begin(), buffer.begin() + *n);
  }
  echo.join();
  EXPECT_EQ(echoed, data);
}

}  // namespace
}  // namespace signet::client
