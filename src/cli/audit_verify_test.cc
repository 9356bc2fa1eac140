// VerifyAuditLog on logs built here line by line: an intact chain, and each
// way a log can be broken - a line edited, deleted, moved, cut inside, cut
// off the end of a closed file, a file missing between two - reported at
// the line where it happened. (tests/e2e/audit_log_test.cc does the same
// to logs the real daemon wrote.)
#include "cli/audit_verify.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/audit_format.h"
#include "base/hex.h"
#include "base/secure_bytes.h"
#include "crypto/digest.h"

namespace signet::cli {
namespace {

namespace fmt = audit_format;
using Json = nlohmann::ordered_json;

std::string Sha256Hex(std::string_view line) {
  return ToHex(*crypto::Digest(DigestAlg::kSha256, AsBytes(line)));
}

// LogFile builds one file of a chained log the way signetd writes it.
class LogFile {
 public:
  explicit LogFile(std::optional<std::string> previous_last_hash = std::nullopt, char start = 'a') {
    prev_ = std::string(fmt::kHashHexLength, start);
    Add({{fmt::kEvent, fmt::kStartEvent},
         {fmt::kStart, prev_},
         {fmt::kPreviousFile, nullptr},
         {fmt::kPreviousLastHash, previous_last_hash ? Json(*previous_last_hash) : Json(nullptr)}});
  }
  LogFile& Add(const Json& fields) {
    Json line = {{fmt::kSeq, lines_.size()},
                 {fmt::kTime, "2026-12-02T15:00:00.000000Z"},
                 {fmt::kPrev, prev_}};
    line.update(fields);
    lines_.push_back(line.dump());
    prev_ = Sha256Hex(lines_.back());
    return *this;
  }
  LogFile& Records(int n) {
    for (int i = 0; i < n; ++i) Add({{"op", "login"}, {"n", i}});
    return *this;
  }
  LogFile& End() { return Add({{fmt::kEvent, fmt::kEndEvent}, {fmt::kReason, "sighup"}}); }
  std::string last_hash() const { return prev_; }
  std::vector<std::string>& lines() { return lines_; }
  AuditLogFile File(const std::string& name) const {
    std::string bytes;
    for (const std::string& line : lines_) bytes += line + "\n";
    return {name, bytes};
  }

 private:
  std::vector<std::string> lines_;
  std::string prev_;
};

// Broken: where and why verification stopped, as "file:line".
std::string BrokenAt(const AuditVerification& v) {
  return v.broken ? v.broken->file + ":" + std::to_string(v.broken->line) : "intact";
}

TEST(VerifyAuditLog, AnIntactClosedFileVerifies) {
  LogFile log;
  log.Records(5).End();
  AuditVerification v = VerifyAuditLog({log.File("a.log")});
  EXPECT_EQ(BrokenAt(v), "intact") << v.broken->reason;
  EXPECT_EQ(v.records, 7u);
  EXPECT_EQ(v.start, std::string(64, 'a'));
  EXPECT_EQ(v.last_hash, log.last_hash());
  EXPECT_TRUE(v.notes.empty());
}

TEST(VerifyAuditLog, AnOpenLastFileIsANoteNotABreak) {
  LogFile log;
  log.Records(2);
  AuditVerification v = VerifyAuditLog({log.File("a.log")});
  EXPECT_EQ(BrokenAt(v), "intact");
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_NE(v.notes[0].find("a.log: open: no end record (daemon running or killed)"),
            std::string::npos)
      << v.notes[0];
}

TEST(VerifyAuditLog, AnEditedLineIsTheOneWhoseHashTheNextLineNoLongerRecords) {
  LogFile log;
  log.Records(5).End();
  std::string& line4 = log.lines()[3];
  line4.replace(line4.find("login"), 5, "logon");
  AuditVerification v = VerifyAuditLog({log.File("a.log")});
  EXPECT_EQ(BrokenAt(v), "a.log:4");
  EXPECT_NE(v.broken->reason.find("line 4 was changed"), std::string::npos) << v.broken->reason;
}

TEST(VerifyAuditLog, AnEditedPrevIsReportedOnItsOwnLine) {
  LogFile log;
  log.Records(5).End();
  std::string& line4 = log.lines()[3];
  line4[line4.find("\"prev\":\"") + 8] ^= 1;
  AuditVerification v = VerifyAuditLog({log.File("a.log")});
  EXPECT_EQ(BrokenAt(v), "a.log:4") << v.broken->reason;
}

TEST(VerifyAuditLog, AnEditedHeaderIsLineOne) {
  LogFile log;
  log.Records(2);
  std::string& header = log.lines()[0];
  header.replace(header.find("null"), 4, "\"x.log\"");
  AuditVerification v = VerifyAuditLog({log.File("a.log")});
  EXPECT_EQ(BrokenAt(v), "a.log:1") << v.broken->reason;
}

TEST(VerifyAuditLog, ALineThatIsNoLongerJsonIsReportedThere) {
  LogFile log;
  log.Records(3);
  log.lines()[2].pop_back();
  AuditVerification v = VerifyAuditLog({log.File("a.log")});
  EXPECT_EQ(BrokenAt(v), "a.log:3") << v.broken->reason;
}

// A hostile line nests a value 200,000 deep: verify reports the break at
// that line (its hash no longer chains) instead of overflowing its stack.
TEST(VerifyAuditLog, ADeeplyNestedValueIsABreakNotACrash) {
  LogFile log;
  log.Records(3);
  std::string& line = log.lines()[2];
  line.pop_back();  // the closing brace
  line += ",\"x\":" + std::string(200000, '[') + std::string(200000, ']') + "}";
  AuditVerification v = VerifyAuditLog({log.File("a.log")});
  EXPECT_EQ(BrokenAt(v), "a.log:3") << v.broken->reason;
}

TEST(VerifyAuditLog, ADeletedLineIsASeqGapWhereItWas) {
  LogFile log;
  log.Records(5).End();
  log.lines().erase(log.lines().begin() + 3);
  AuditVerification v = VerifyAuditLog({log.File("a.log")});
  EXPECT_EQ(BrokenAt(v), "a.log:4");
  EXPECT_NE(v.broken->reason.find("missing"), std::string::npos) << v.broken->reason;
}

TEST(VerifyAuditLog, SwappedLinesAreOutOfOrderAtTheFirst) {
  LogFile log;
  log.Records(5).End();
  std::swap(log.lines()[3], log.lines()[4]);
  AuditVerification v = VerifyAuditLog({log.File("a.log")});
  EXPECT_EQ(BrokenAt(v), "a.log:4");
  EXPECT_NE(v.broken->reason.find("out of order"), std::string::npos) << v.broken->reason;
}

TEST(VerifyAuditLog, AFileCutInsideALineIsTruncatedAtThatLine) {
  LogFile log;
  log.Records(5);
  AuditLogFile file = log.File("a.log");
  file.bytes.resize(file.bytes.size() - 20);
  AuditVerification v = VerifyAuditLog({file});
  EXPECT_EQ(BrokenAt(v), "a.log:6");
  EXPECT_NE(v.broken->reason.find("truncated"), std::string::npos) << v.broken->reason;
}

TEST(VerifyAuditLog, AHeaderWithoutItsFieldsIsABreakNotACrash) {
  std::string prev(64, 'a');
  std::string bare = R"({"seq":0,"time":"t","prev":")" + prev + R"(","event":"audit_log_start"})";
  AuditVerification v = VerifyAuditLog({{"a.log", bare + "\n"}});
  EXPECT_EQ(BrokenAt(v), "a.log:1");
  // A second file whose header lacks previous_last_hash starts a new log.
  LogFile first;
  first.Records(1).End();
  std::string no_link = R"({"seq":0,"time":"t","prev":")" + prev +
                        R"(","event":"audit_log_start","start":")" + prev + R"("})";
  v = VerifyAuditLog({first.File("a.log.1"), {"a.log", no_link + "\n"}});
  EXPECT_EQ(BrokenAt(v), "a.log:1");
}

TEST(VerifyAuditLog, AnEmptyFileHasNoHeader) {
  AuditVerification v = VerifyAuditLog({{"a.log", ""}});
  EXPECT_EQ(BrokenAt(v), "a.log:1");
}

TEST(VerifyAuditLog, ALineAfterTheEndRecordIsABreak) {
  LogFile log;
  log.Records(1).End().Records(1);
  AuditVerification v = VerifyAuditLog({log.File("a.log")});
  EXPECT_EQ(BrokenAt(v), "a.log:4") << v.broken->reason;
}

TEST(VerifyAuditLog, RotatedFilesVerifyAcrossTheBoundary) {
  LogFile first;
  first.Records(3).End();
  LogFile second(first.last_hash(), 'b');
  second.Records(2);
  AuditVerification v = VerifyAuditLog({first.File("a.log.1"), second.File("a.log")});
  EXPECT_EQ(BrokenAt(v), "intact") << v.broken->reason;
  EXPECT_EQ(v.records, 8u);
  EXPECT_EQ(v.start, std::string(64, 'a'));
  EXPECT_EQ(v.last_hash, second.last_hash());
}

TEST(VerifyAuditLog, LinesCutOffTheEndOfAClosedFileAreMissingFromTheFirstCutLine) {
  LogFile first;
  first.Records(4).End();  // 6 lines
  LogFile second(first.last_hash(), 'b');
  second.Records(1);
  first.lines().resize(4);  // lines 5 and 6 cut
  AuditVerification v = VerifyAuditLog({first.File("a.log.1"), second.File("a.log")});
  EXPECT_EQ(BrokenAt(v), "a.log.1:5");
  EXPECT_NE(v.broken->reason.find("missing"), std::string::npos) << v.broken->reason;
}

TEST(VerifyAuditLog, AFileMissingBetweenTwoBreaksAtTheLaterHeader) {
  LogFile first;
  first.Records(1).End();
  LogFile second(first.last_hash(), 'b');
  second.Records(1).End();
  LogFile third(second.last_hash(), 'c');
  third.Records(1);
  AuditVerification v = VerifyAuditLog({first.File("a.log.1"), third.File("a.log")});
  EXPECT_EQ(BrokenAt(v), "a.log:1");
  // In the wrong order, too.
  v = VerifyAuditLog({second.File("a.log.2"), first.File("a.log.1")});
  EXPECT_EQ(BrokenAt(v), "a.log.1:1");
}

TEST(VerifyAuditLog, AFileLeftOpenByAKilledDaemonAndContinuedIsANote) {
  LogFile first;
  first.Records(2);  // no end record: killed
  LogFile second(first.last_hash(), 'b');
  second.Records(1);
  AuditVerification v = VerifyAuditLog({first.File("a.log.1"), second.File("a.log")});
  EXPECT_EQ(BrokenAt(v), "intact") << v.broken->reason;
  ASSERT_EQ(v.notes.size(), 2u);
  EXPECT_NE(v.notes[0].find("a.log.1: no end record"), std::string::npos) << v.notes[0];
}

TEST(VerifyAuditLog, ANewLogIsNoContinuation) {
  LogFile first;
  first.Records(1).End();
  LogFile second(std::nullopt, 'b');
  AuditVerification v = VerifyAuditLog({first.File("a.log.1"), second.File("a.log")});
  EXPECT_EQ(BrokenAt(v), "a.log:1");
}

TEST(VerifyAuditLog, AFirstFileThatContinuesAnotherSaysSo) {
  LogFile second(std::string(64, 'f'), 'b');
  second.Records(1).End();
  AuditVerification v = VerifyAuditLog({second.File("a.log")});
  EXPECT_EQ(BrokenAt(v), "intact");
  ASSERT_EQ(v.notes.size(), 1u);
  EXPECT_NE(v.notes[0].find(std::string(64, 'f')), std::string::npos) << v.notes[0];
}

}  // namespace
}  // namespace signet::cli
