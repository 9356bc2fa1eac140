#include "pkcs11/config.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace signet::pkcs11 {
namespace {

TEST(ModuleConfig, ParsesKeysCommentsAndBlanks) {
  ModuleConfig config;
  ASSERT_TRUE(ParseConfigText("# signet\n\n  socket =  /run/s.sock  # daemon\ntls_ca=ca.pem\n",
                              config).ok());
  EXPECT_EQ(config.socket, "/run/s.sock");
  EXPECT_EQ(config.tls_ca, "ca.pem");
}

TEST(ModuleConfig, RejectsUnknownKeyAndMissingEquals) {
  ModuleConfig config;
  Status unknown = ParseConfigText("sockett = x\n", config);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, CKR_ARGUMENTS_BAD);
  EXPECT_NE(unknown.error().message.find("line 1"), std::string::npos);
  EXPECT_FALSE(ParseConfigText("socket /x\n", config).ok());
}

class ModuleConfigEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv("SIGNET_SOCKET");
    unsetenv("SIGNET_CONF");
  }
  void TearDown() override { SetUp(); }
};

TEST_F(ModuleConfigEnv, EnvironmentSocketWinsOverFile) {
  char dir_template[] = "/tmp/signet-p11conf-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string path = std::string(dir_template) + "/pkcs11.conf";
  std::ofstream(path) << "socket = /from/file\n";
  setenv("SIGNET_CONF", path.c_str(), 1);
  Result<ModuleConfig> from_file = LoadModuleConfig();
  ASSERT_TRUE(from_file.ok());
  EXPECT_EQ(from_file->socket, "/from/file");
  setenv("SIGNET_SOCKET", "/from/env", 1);
  Result<ModuleConfig> from_env = LoadModuleConfig();
  ASSERT_TRUE(from_env.ok());
  EXPECT_EQ(from_env->socket, "/from/env");
  std::remove(path.c_str());
  rmdir(dir_template);
}

// Issue 14: with nothing configured the module talks to the installed
// service. An empty SIGNET_CONF file stands for "no settings" without
// depending on whether this machine has /etc/signet/pkcs11.conf.
TEST_F(ModuleConfigEnv, NothingConfiguredMeansTheServiceSocket) {
  EXPECT_STREQ(kDefaultSocketPath, "/run/signet/signetd.sock");
  char dir_template[] = "/tmp/signet-p11conf-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string path = std::string(dir_template) + "/pkcs11.conf";
  std::ofstream(path) << "# every line a comment, as the installed sample\n# socket = /x\n";
  setenv("SIGNET_CONF", path.c_str(), 1);
  Result<ModuleConfig> config = LoadModuleConfig();
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(config->socket, kDefaultSocketPath);
  std::ofstream(path) << "socket =\n";
  Result<ModuleConfig> empty = LoadModuleConfig();
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, CKR_DEVICE_ERROR);
  EXPECT_NE(empty.error().message.find("empty signetd address"), std::string::npos);
  std::remove(path.c_str());
  rmdir(dir_template);
}

TEST_F(ModuleConfigEnv, MissingFileIsDeviceError) {
  setenv("SIGNET_CONF", "/nonexistent/signet.conf", 1);
  Result<ModuleConfig> config = LoadModuleConfig();
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.error().code, CKR_DEVICE_ERROR);
}

TEST_F(ModuleConfigEnv, TimeoutMustBeSeconds) {
  setenv("SIGNET_SOCKET", "/x.sock", 1);
  Result<ModuleConfig> fine = LoadModuleConfig();
  ASSERT_TRUE(fine.ok());
  EXPECT_EQ(fine->timeout, "120");
  char dir_template[] = "/tmp/signet-p11conf-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string path = std::string(dir_template) + "/pkcs11.conf";
  std::ofstream(path) << "timeout = soon\n";
  setenv("SIGNET_CONF", path.c_str(), 1);
  Result<ModuleConfig> bad = LoadModuleConfig();
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, CKR_DEVICE_ERROR);
  std::remove(path.c_str());
  rmdir(dir_template);
}

}  // namespace
}  // namespace signet::pkcs11
