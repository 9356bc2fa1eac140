// Dispatch with an AuditLog (daemon/audit_log.h): an audited request's
// record goes to the file, not stderr, before the reply exists; when it
// cannot be written the reply is CKR_DEVICE_ERROR, the record goes to
// stderr with the error, and requests that are not audited are unaffected.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "daemon/audit_log.h"
#include "daemon/dispatch.h"
#include "daemon/dispatch_fixture_test_util.h"

namespace signet::daemon {
namespace {

std::vector<std::string> ReadLines(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

class DispatchAuditLogTest : public DispatchFixture {
 protected:
  void SetUp() override {
    DispatchFixture::SetUp();
    auto log = AuditLog::Open({.path = dir_ / "audit.log"});
    ASSERT_TRUE(log.ok()) << log.error().message;
    audit_log_ = std::move(*log);
    view_.audit_log = audit_log_.get();
  }

  Ran Login(CK_SESSION_HANDLE s, std::string_view pin) {
    return Run(RequestBody::LoginRequest, [&](auto& fbb) {
      return wire::CreateLoginRequest(fbb, s, CKU_USER, Bytes(fbb, pin));
    });
  }

  std::unique_ptr<AuditLog> audit_log_;
};

TEST_F(DispatchAuditLogTest, TheRecordGoesToTheFileNotToStderr) {
  Ran ran = Login(Session(*owner_), "wrong-pin-5678");
  EXPECT_EQ(ran.rv(), CKR_PIN_INCORRECT);
  EXPECT_EQ(ran.log, "");
  std::vector<std::string> lines = ReadLines(dir_ / "audit.log");
  ASSERT_EQ(lines.size(), 2u);
  auto record = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(record["op"], "login");
  EXPECT_EQ(record["slot"], 0);
  EXPECT_EQ(record["result"], "CKR_PIN_INCORRECT");
  EXPECT_EQ(lines[1].find("wrong-pin"), std::string::npos);
}

TEST_F(DispatchAuditLogTest, ARecordThatCannotBeWrittenTurnsTheReplyIntoDeviceError) {
  CK_SESSION_HANDLE s = Session(*owner_);
  // The file may not grow: the next line fails as on a full disk.
  struct sigaction ignore {
  }, saved{};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(sigaction(SIGXFSZ, &ignore, &saved), 0);
  struct rlimit saved_limit {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved_limit), 0);
  struct rlimit limit = saved_limit;
  limit.rlim_cur = std::filesystem::file_size(dir_ / "audit.log");
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limit), 0);
  Ran login = Login(s, core::kUserPin);
  Ran random = Run(RequestBody::GenerateRandomRequest,
                   [&](auto& fbb) { return wire::CreateGenerateRandomRequest(fbb, s, 16); });
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &saved_limit), 0);
  ASSERT_EQ(sigaction(SIGXFSZ, &saved, nullptr), 0);

  EXPECT_EQ(login.rv(), CKR_DEVICE_ERROR);
  EXPECT_NE(login.message().find("audit log"), std::string::npos) << login.message();
  EXPECT_NE(login.log.find("audit log write failed"), std::string::npos) << login.log;
  EXPECT_NE(login.log.find("the record: audit op=login user=user slot=0 result=CKR_OK"),
            std::string::npos)
      << login.log;
  // The login itself happened (the reply says so too); only its record failed.
  EXPECT_EQ(hsm_->GetSessionInfo(*owner_, s)->state, CKS_RW_USER_FUNCTIONS);
  EXPECT_EQ(random.rv(), CKR_OK) << random.message();
  EXPECT_EQ(ReadLines(dir_ / "audit.log").size(), 1u);

  // Once the file can grow again, records continue the chain.
  Ran logout =
      Run(RequestBody::LogoutRequest, [&](auto& fbb) { return wire::CreateLogoutRequest(fbb, s); });
  EXPECT_EQ(logout.rv(), CKR_OK);
  std::vector<std::string> lines = ReadLines(dir_ / "audit.log");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(lines[1])["seq"], 1);
}

}  // namespace
}  // namespace signet::daemon
