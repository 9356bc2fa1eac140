// CryptechConnection against canned replies on a socketpair: the server end
// is written before the call (the socket buffers it) and read after it, so
// no thread plays the server. Pins SLIP both ways, replies read in bulk
// (several frames in one read), frames for other opcodes skipped, and the
// errors a user sees naming the opcode.
#include "bench/cryptech_connection.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/hex.h"

namespace signet::bench {
namespace {

using namespace std::chrono_literals;

class CryptechConnectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int fds[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    connection_ = CryptechConnection::Adopt(fds[0], 2s);
    server_ = fds[1];
  }
  void TearDown() override {
    if (server_ >= 0) close(server_);
  }

  // ServerWrites puts `hex` (raw bytes on the wire, frames included) where
  // the client reads.
  void ServerWrites(std::string_view hex) {
    std::optional<Bytes> bytes = FromHex(hex);
    ASSERT_TRUE(bytes.has_value()) << hex;
    ASSERT_EQ(write(server_, bytes->data(), bytes->size()), static_cast<ssize_t>(bytes->size()));
  }

  // ServerRead returns what the client has sent so far, as hex.
  std::string ServerRead() {
    std::uint8_t buffer[4096];
    const ssize_t n = recv(server_, buffer, sizeof buffer, MSG_DONTWAIT);
    return n > 0 ? ToHex(ByteView(buffer, static_cast<std::size_t>(n))) : "";
  }

  std::unique_ptr<CryptechConnection> connection_;
  int server_ = -1;
};

TEST_F(CryptechConnectionTest, SignFramesTheRequestAndSkipsOtherReplies) {
  // Two frames in one read: a stray reply to pkey_delete, then pkey_sign's,
  // whose signature holds both bytes SLIP escapes (C0 -> DB DC, DB -> DB DD).
  ServerWrites(
      "c0"
      "00000012"
      "00000000"
      "00000000"
      "c0"
      "c0"
      "00000017"
      "00000000"
      "00000000"
      "00000004"
      "dbdcdbdd0102"
      "c0");
  Result<Bytes> signature = connection_->PkeySign(0xc0, Bytes{0xdb, 0x01}, 1024);
  ASSERT_TRUE(signature.ok()) << signature.error().message;
  EXPECT_EQ(ToHex(*signature), "c0db0102");
  EXPECT_EQ(ServerRead(),
            "c0"
            "00000017"
            "00000000"
            "000000dbdc"  // pkey handle 0xc0, escaped
            "00000000"
            "00000002"
            "dbdd010000"  // input DB 01, escaped, padded
            "00000400"
            "c0");
}

TEST_F(CryptechConnectionTest, LoadReadsHandleAndName) {
  ServerWrites(
      "c0"
      "0000000d"
      "12345678"
      "00000000"
      "00000009"
      "00000010"
      "00112233445566778899aabbccddeeff"
      "c0");
  Result<cryptech::LoadedKey> key = connection_->PkeyLoad(0, Bytes{0x30, 0x00}, 1);
  ASSERT_TRUE(key.ok()) << key.error().message;
  EXPECT_EQ(key->pkey, 9u);
  EXPECT_EQ(ToHex(key->uuid), "00112233445566778899aabbccddeeff");
}

TEST_F(CryptechConnectionTest, AStatusNamesTheOpcode) {
  ServerWrites(
      "c0"
      "00000003"
      "00000000"
      "00000018"
      "c0");
  Status login = connection_->Login(proto::hal::User::kNormal, AsBytes("wrong-pin"));
  ASSERT_FALSE(login.ok());
  EXPECT_EQ(login.error().code, CKR_PIN_INCORRECT);
  EXPECT_EQ(login.error().message, "the Cryptech listener answered login (3) with status 24");

  ServerWrites(
      "c0"
      "00000012"
      "00000000"
      "00000015"
      "c0");
  Status deleted = connection_->PkeyDelete(5);
  ASSERT_FALSE(deleted.ok());
  EXPECT_EQ(deleted.error().message,
            "the Cryptech listener answered pkey_delete (18) with status 21");
}

TEST_F(CryptechConnectionTest, ShortRepliesClosedConnectionsAndSilenceAreErrors) {
  ServerWrites(
      "c0"
      "00000017"
      "00000000"
      "c0");
  Result<Bytes> cut = connection_->PkeySign(1, Bytes{1}, 1024);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().message, "the Cryptech listener's reply to pkey_sign (23) is cut short");

  ServerWrites(
      "c0"
      "00000017"
      "00000000"
      "00000000"
      "c0");  // HAL_OK but no signature
  Result<Bytes> empty = connection_->PkeySign(1, Bytes{1}, 1024);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message, "the Cryptech listener's reply to pkey_sign (23) is malformed");

  int quiet_fds[2];  // a server that never answers
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, quiet_fds), 0);
  auto quiet = CryptechConnection::Adopt(quiet_fds[0], 50ms);
  Result<Bytes> silence = quiet->PkeySign(1, Bytes{1}, 1024);
  close(quiet_fds[1]);
  ASSERT_FALSE(silence.ok());
  EXPECT_EQ(silence.error().message, "no reply to pkey_sign (23) in time");

  close(server_);
  server_ = -1;
  Result<Bytes> closed = connection_->PkeySign(1, Bytes{1}, 1024);
  ASSERT_FALSE(closed.ok());
  EXPECT_EQ(closed.error().code, CKR_DEVICE_REMOVED);
  EXPECT_EQ(closed.error().message,
            "the Cryptech listener closed the connection during pkey_sign (23)");
}

TEST(CryptechConnect, AMissingSocketIsNamed) {
  auto connection = CryptechConnection::Connect("/nonexistent/cryptech.sock");
  ASSERT_FALSE(connection.ok());
  EXPECT_EQ(connection.error().message,
            "cannot connect to the Cryptech socket /nonexistent/cryptech.sock: "
            "No such file or directory");
}

}  // namespace
}  // namespace signet::bench
