// AuditLog, the chained writer, on its own: the header and its random
// start, each line's seq and prev, rotation (by call, by size, after the
// file was moved away, at start over an old file), a failed write that
// leaves file and chain as they were, and concurrent appends.
#include "daemon/audit_log.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <regex>
#include <thread>
#include <vector>

#include "base/audit_format.h"
#include "base/hex.h"
#include "crypto/crypto_test_util.h"
#include "crypto/digest.h"

namespace signet::daemon {
namespace {

namespace fmt = audit_format;
using Json = nlohmann::ordered_json;

std::string Sha256Hex(std::string_view line) {
  auto digest = crypto::Digest(DigestAlg::kSha256, AsBytes(line));
  return digest.ok() ? ToHex(*digest) : "";
}

std::string ReadText(const std::string& path) {
  Bytes bytes = crypto::testing::ReadFile(path);
  return std::string(bytes.begin(), bytes.end());
}

// Lines: the file's lines without their newlines; each must end in one.
std::vector<std::string> Lines(const std::string& path) {
  std::string text = ReadText(path);
  EXPECT_TRUE(text.empty() || text.back() == '\n') << path;
  std::vector<std::string> lines;
  for (std::size_t at = 0, end; (end = text.find('\n', at)) != std::string::npos; at = end + 1) {
    lines.push_back(text.substr(at, end - at));
  }
  return lines;
}

// ExpectChained checks seq and prev of every line of one file and returns
// its last line's hash.
std::string ExpectChained(const std::vector<std::string>& lines) {
  EXPECT_FALSE(lines.empty());
  if (lines.empty()) return "";
  Json header = Json::parse(lines[0]);
  EXPECT_EQ(header[fmt::kEvent], fmt::kStartEvent);
  EXPECT_EQ(header[fmt::kPrev], header[fmt::kStart]);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    Json line = Json::parse(lines[i]);
    EXPECT_EQ(line[fmt::kSeq], i) << lines[i];
    if (i > 0) {
      EXPECT_EQ(line[fmt::kPrev], Sha256Hex(lines[i - 1])) << "line " << i + 1;
    }
  }
  return Sha256Hex(lines.back());
}

Json Record(const std::string& op) { return Json{{"op", op}, {"result", "CKR_OK"}}; }

// RotatedFiles: the files set aside next to `base` (base.<time>...), sorted.
std::vector<std::string> RotatedFiles(const std::string& base) {
  std::vector<std::string> found;
  std::filesystem::path p(base);
  for (const auto& entry : std::filesystem::directory_iterator(p.parent_path())) {
    std::string name = entry.path().filename().string();
    if (name.rfind(p.filename().string() + ".", 0) == 0) found.push_back(entry.path().string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

TEST(AuditLog, HeaderStartsTheChainAndEachLineHashesTheOneBefore) {
  crypto::testing::TempDir dir;
  const std::string path = dir.File("audit.log");
  auto log = AuditLog::Open({.path = path});
  ASSERT_TRUE(log.ok()) << log.error().message;
  ASSERT_TRUE((*log)->Append(Record("login")).ok());
  // On disk when Append returns, before any close.
  std::vector<std::string> lines = Lines(path);
  ASSERT_EQ(lines.size(), 2u);
  ASSERT_TRUE((*log)->Append(Record("logout")).ok());
  ASSERT_TRUE((*log)->Close(fmt::kReasonShutdown).ok());
  ASSERT_TRUE((*log)->Close(fmt::kReasonShutdown).ok());  // idempotent
  EXPECT_FALSE((*log)->Append(Record("late")).ok());

  lines = Lines(path);
  ASSERT_EQ(lines.size(), 4u);
  ExpectChained(lines);
  Json header = Json::parse(lines[0]);
  EXPECT_TRUE(std::regex_match(header[fmt::kStart].get<std::string>(), std::regex("[0-9a-f]{64}")));
  EXPECT_TRUE(header[fmt::kPreviousFile].is_null());
  EXPECT_TRUE(header[fmt::kPreviousLastHash].is_null());
  Json login = Json::parse(lines[1]);
  EXPECT_EQ(login["op"], "login");
  EXPECT_TRUE(std::regex_match(login[fmt::kTime].get<std::string>(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)")))
      << login[fmt::kTime];
  // seq, time and prev lead, the record's fields follow in their order.
  EXPECT_EQ(lines[1].rfind(R"({"seq":1,"time":")", 0), 0u) << lines[1];
  Json end = Json::parse(lines[3]);
  EXPECT_EQ(end[fmt::kEvent], fmt::kEndEvent);
  EXPECT_EQ(end[fmt::kReason], fmt::kReasonShutdown);
}

TEST(AuditLog, TwoLogsStartFromDifferentRandomStarts) {
  crypto::testing::TempDir dir;
  auto a = AuditLog::Open({.path = dir.File("a.log")});
  auto b = AuditLog::Open({.path = dir.File("b.log")});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(Json::parse(Lines(dir.File("a.log"))[0])[fmt::kStart],
            Json::parse(Lines(dir.File("b.log"))[0])[fmt::kStart]);
}

TEST(AuditLog, RotateClosesTheFileSetsItAsideAndTheNewHeaderNamesItsLastHash) {
  crypto::testing::TempDir dir;
  const std::string path = dir.File("audit.log");
  auto log = AuditLog::Open({.path = path});
  ASSERT_TRUE(log.ok());
  ASSERT_TRUE((*log)->Append(Record("login")).ok());
  ASSERT_TRUE((*log)->Rotate(fmt::kReasonSighup).ok());
  ASSERT_TRUE((*log)->Append(Record("logout")).ok());

  std::vector<std::string> rotated = RotatedFiles(path);
  ASSERT_EQ(rotated.size(), 1u);
  EXPECT_TRUE(std::regex_match(std::filesystem::path(rotated[0]).filename().string(),
                               std::regex(R"(audit\.log\.\d{8}T\d{6}\.\d{6}Z)")))
      << rotated[0];
  std::vector<std::string> old_lines = Lines(rotated[0]);
  ASSERT_EQ(old_lines.size(), 3u);
  std::string old_last = ExpectChained(old_lines);
  Json end = Json::parse(old_lines.back());
  EXPECT_EQ(end[fmt::kEvent], fmt::kEndEvent);
  EXPECT_EQ(end[fmt::kReason], fmt::kReasonSighup);

  std::vector<std::string> lines = Lines(path);
  ASSERT_EQ(lines.size(), 2u);
  ExpectChained(lines);
  Json header = Json::parse(lines[0]);
  EXPECT_EQ(header[fmt::kPreviousFile], std::filesystem::path(rotated[0]).filename().string());
  EXPECT_EQ(header[fmt::kPreviousLastHash], old_last);
  EXPECT_EQ(Json::parse(lines[1])["op"], "logout");
}

TEST(AuditLog, RotatesBySizeAndEveryFileLinksToTheOneBefore) {
  crypto::testing::TempDir dir;
  const std::string path = dir.File("audit.log");
  // Two records fit, the third passes the bound (a header is ~250 bytes).
  auto log = AuditLog::Open({.path = path, .max_bytes = 500});
  ASSERT_TRUE(log.ok());
  for (int i = 0; i < 9; ++i) ASSERT_TRUE((*log)->Append(Record("op" + std::to_string(i))).ok());
  std::vector<std::string> files = RotatedFiles(path);
  ASSERT_GE(files.size(), 2u);
  files.push_back(path);
  std::string previous_last;
  int records = 0;
  for (const std::string& file : files) {
    std::vector<std::string> lines = Lines(file);
    std::string last = ExpectChained(lines);
    Json header = Json::parse(lines[0]);
    if (previous_last.empty()) {
      EXPECT_TRUE(header[fmt::kPreviousLastHash].is_null());
    } else {
      EXPECT_EQ(header[fmt::kPreviousLastHash], previous_last) << file;
    }
    for (const std::string& line : lines) records += Json::parse(line).contains("op") ? 1 : 0;
    if (file != path) {
      EXPECT_EQ(Json::parse(lines.back())[fmt::kReason], fmt::kReasonSize);
    }
    previous_last = last;
  }
  EXPECT_EQ(records, 9);
}

TEST(AuditLog, AFileMovedAwayBeforeRotateIsClosedWhereItIsAndFILEStartsAgain) {
  crypto::testing::TempDir dir;
  const std::string path = dir.File("audit.log");
  auto log = AuditLog::Open({.path = path});
  ASSERT_TRUE(log.ok());
  // logrotate's habit: move the file, then signal the daemon.
  std::filesystem::rename(path, dir.File("moved.log"));
  ASSERT_TRUE((*log)->Append(Record("login")).ok());  // still into the moved file
  ASSERT_TRUE((*log)->Rotate(fmt::kReasonSighup).ok());
  EXPECT_TRUE(RotatedFiles(path).empty());
  std::vector<std::string> moved = Lines(dir.File("moved.log"));
  ASSERT_EQ(moved.size(), 3u);
  std::string moved_last = ExpectChained(moved);
  Json header = Json::parse(Lines(path)[0]);
  EXPECT_TRUE(header[fmt::kPreviousFile].is_null());
  EXPECT_EQ(header[fmt::kPreviousLastHash], moved_last);
}

TEST(AuditLog, AFileFoundAtOpenIsSetAsideAndContinuedFromItsLastCompleteLine) {
  crypto::testing::TempDir dir;
  const std::string path = dir.File("audit.log");
  crypto::testing::WriteFile(path, std::string_view("first\nsecond\npartial"));
  auto log = AuditLog::Open({.path = path});
  ASSERT_TRUE(log.ok()) << log.error().message;
  std::vector<std::string> rotated = RotatedFiles(path);
  ASSERT_EQ(rotated.size(), 1u);
  EXPECT_EQ(ReadText(rotated[0]), "first\nsecond\npartial");  // untouched
  Json header = Json::parse(Lines(path)[0]);
  EXPECT_EQ(header[fmt::kPreviousFile], std::filesystem::path(rotated[0]).filename().string());
  EXPECT_EQ(header[fmt::kPreviousLastHash], Sha256Hex("second"));
}

TEST(AuditLog, AnEmptyFileFoundAtOpenIsUsed) {
  crypto::testing::TempDir dir;
  const std::string path = dir.File("audit.log");
  crypto::testing::WriteFile(path, std::string_view());
  auto log = AuditLog::Open({.path = path});
  ASSERT_TRUE(log.ok());
  EXPECT_TRUE(RotatedFiles(path).empty());
  EXPECT_EQ(Lines(path).size(), 1u);
}

TEST(AuditLog, OpenFailsWhenTheFileCannotBeCreated) {
  crypto::testing::TempDir dir;
  auto log = AuditLog::Open({.path = dir.File("no-such-dir/audit.log")});
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.error().message.find("no-such-dir/audit.log"), std::string::npos)
      << log.error().message;
}

TEST(AuditLog, AFailedWriteIsAnErrorAndLeavesFileAndChainAsTheyWere) {
  crypto::testing::TempDir dir;
  const std::string path = dir.File("audit.log");
  auto log = AuditLog::Open({.path = path});
  ASSERT_TRUE(log.ok());
  ASSERT_TRUE((*log)->Append(Record("login")).ok());
  const std::string before = ReadText(path);
  // A file size limit just past the current size: the next line is cut
  // short by the kernel (EFBIG), as on a full disk.
  struct sigaction ignore {
  }, saved{};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(sigaction(SIGXFSZ, &ignore, &saved), 0);
  struct rlimit limit {
  }, saved_limit{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved_limit), 0);
  limit = saved_limit;
  limit.rlim_cur = before.size() + 10;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limit), 0);
  Status failed = (*log)->Append(Record("generate_key_pair"));
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &saved_limit), 0);
  ASSERT_EQ(sigaction(SIGXFSZ, &saved, nullptr), 0);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, CKR_DEVICE_ERROR);
  EXPECT_NE(failed.error().message.find(path), std::string::npos) << failed.error().message;
  EXPECT_EQ(ReadText(path), before);

  ASSERT_TRUE((*log)->Append(Record("logout")).ok());
  std::vector<std::string> lines = Lines(path);
  ASSERT_EQ(lines.size(), 3u);
  ExpectChained(lines);
  EXPECT_EQ(Json::parse(lines[2])["op"], "logout");
}

TEST(AuditLog, SyslogAloneNeedsNoFile) {
  // Lines go to syslog(3) only (dropped when no syslog daemon listens, as
  // in a container); rotation has no file to act on.
  auto log = AuditLog::Open({.syslog = true});
  ASSERT_TRUE(log.ok()) << log.error().message;
  EXPECT_TRUE((*log)->Append(Record("login")).ok());
  EXPECT_TRUE((*log)->Rotate(fmt::kReasonSighup).ok());
  EXPECT_TRUE((*log)->Close(fmt::kReasonShutdown).ok());
  EXPECT_FALSE((*log)->Append(Record("late")).ok());
}

TEST(AuditLog, ConcurrentAppendsFormOneChain) {
  crypto::testing::TempDir dir;
  const std::string path = dir.File("audit.log");
  auto log = AuditLog::Open({.path = path});
  ASSERT_TRUE(log.ok());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&log, t] {
      for (int i = 0; i < 25; ++i) {
        EXPECT_TRUE((*log)->Append(Record(std::to_string(t) + "-" + std::to_string(i))).ok());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::vector<std::string> lines = Lines(path);
  EXPECT_EQ(lines.size(), 101u);
  ExpectChained(lines);
}

}  // namespace
}  // namespace signet::daemon
