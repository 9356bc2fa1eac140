// ClaimSocketPath against real Unix sockets and lock files in a temp dir:
// a held path is never displaced, a stale socket is, a file that is not a
// socket is left alone, and the claim is released with its holder.
#include "daemon/socket_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace signet::daemon {
namespace {

class SocketFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "signet-socket-file-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = dir_ / "signetd.sock";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // BindAndClose leaves a socket file nobody accepts on, as a crashed
  // daemon does.
  void BindAndClose() {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strcpy(address.sun_path, path_.c_str());
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    ::close(fd);
  }

  std::filesystem::path dir_;
  std::filesystem::path path_;
};

TEST_F(SocketFileTest, AFreePathIsClaimed) { EXPECT_TRUE(ClaimSocketPath(path_).ok()); }

TEST_F(SocketFileTest, AHeldPathIsRefusedAndItsSocketKept) {
  auto first = ClaimSocketPath(path_);
  ASSERT_TRUE(first.ok());
  BindAndClose();  // the first daemon's socket
  auto second = ClaimSocketPath(path_);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, CKR_FUNCTION_FAILED);
  EXPECT_NE(second.error().message.find("in use by another running daemon"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(path_));
}

TEST_F(SocketFileTest, AStaleSocketIsReplaced) {
  BindAndClose();
  auto claim = ClaimSocketPath(path_);
  ASSERT_TRUE(claim.ok()) << claim.error().message;
  EXPECT_FALSE(std::filesystem::exists(path_));
}

TEST_F(SocketFileTest, AFileThatIsNotASocketIsLeftAlone) {
  std::ofstream(path_) << "precious";
  auto claim = ClaimSocketPath(path_);
  ASSERT_FALSE(claim.ok());
  EXPECT_NE(claim.error().message.find("not a socket"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(path_));
}

TEST_F(SocketFileTest, TheClaimEndsWithItsHolder) {
  {
    auto first = ClaimSocketPath(path_);
    ASSERT_TRUE(first.ok());
    BindAndClose();
    (*first)->RemoveSocket();
    EXPECT_FALSE(std::filesystem::exists(path_));
  }
  EXPECT_TRUE(ClaimSocketPath(path_).ok());
}

}  // namespace
}  // namespace signet::daemon
