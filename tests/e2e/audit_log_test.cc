// The daemon's audit log (daemon/audit.h) as an operator reads it: a failed
// and a successful login, a key pair made, a secret key imported and one
// destroyed each leave one line naming the operation, the token, the key
// label, the result and the peer's pid; PINs and key values never appear,
// and a label cannot forge a line.
//
// With `--audit-log FILE` (daemon/audit_log.h, docs/SECURITY.md "Audit
// log"): the records leave stderr for a hash chain that `signet audit
// verify` accepts as written and rejects at the right line once a copy is
// edited, shortened, reordered or cut; rotated files (SIGHUP, size, a
// restart) verify across their boundaries; a record is on disk when its
// reply arrives (SIGKILL right after); SIGTERM ends the file with an end
// record; a log that cannot be created keeps signetd from starting.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "key_helpers.h"

namespace signet::e2e {
namespace {

using client::BoolAttribute;
using client::BytesAttribute;
using client::StringAttribute;
using client::UlongAttribute;

class AuditLogTest : public DaemonTest {
 protected:
  // AuditLines: the log's audit lines holding every one of `parts`.
  std::vector<std::string> AuditLines(const std::vector<std::string>& parts) {
    return LogLines(parts, "signetd: audit ");
  }

  std::string Peer() const { return "peer=unix(pid=" + std::to_string(getpid()) + " "; }
};

TEST_F(AuditLogTest, SecurityEventsLeaveOneLineEachWithoutSecrets) {
  auto client = Connect();
  auto info = client->GetInfo();
  ASSERT_TRUE(info.ok());
  CK_SLOT_ID slot = info->slots.front().slot_id;
  auto session = client->OpenSession(slot);
  ASSERT_TRUE(session.ok());
  const std::string slot_field = "slot=" + std::to_string(slot) + " ";

  const std::string wrong_pin = "wrong-pin-4711";
  auto refused = client->Login(*session, CKU_USER, ToBytes(wrong_pin));
  ASSERT_EQ(refused.error().code, CKR_PIN_INCORRECT);
  EXPECT_EQ(
      AuditLines({"op=login user=user " + slot_field, "result=CKR_PIN_INCORRECT", Peer()}).size(),
      1u);

  ASSERT_TRUE(client->Login(*session, CKU_USER, ToBytes(kUserPin)).ok());
  EXPECT_EQ(AuditLines({"op=login user=user " + slot_field, "result=CKR_OK", Peer()}).size(), 1u);

  UserSession user{std::move(client), *session, slot};
  auto pair = GenerateKeyPair(user, "ec:p256", "audited key", /*token=*/true);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  EXPECT_EQ(AuditLines({"op=generate_key_pair " + slot_field, "mechanism=CKM_EC_KEY_PAIR_GEN",
                        "private_label=\"audited key\"", "result=CKR_OK", Peer()})
                .size(),
            1u);

  // An imported AES key: its value must not reach the log; its label, with
  // a newline that tries to start a forged line, is escaped.
  const std::string secret = "SECRETVALUE-0123";  // 16 bytes: AES-128
  auto aes = user.client->CreateObject(
      user.session,
      {UlongAttribute(CKA_CLASS, CKO_SECRET_KEY), UlongAttribute(CKA_KEY_TYPE, CKK_AES),
       BoolAttribute(CKA_TOKEN, false), BoolAttribute(CKA_ENCRYPT, true),
       StringAttribute(CKA_LABEL, "imported\nsignetd: audit op=forged"),
       BytesAttribute(CKA_VALUE, ToBytes(secret))});
  ASSERT_TRUE(aes.ok()) << aes.error().message;
  EXPECT_EQ(AuditLines({"op=create_object " + slot_field,
                        "label=\"imported\\x0asignetd: audit op=forged\"", "result=CKR_OK"})
                .size(),
            1u);

  ASSERT_TRUE(user.client->DestroyObject(user.session, *aes).ok());
  EXPECT_EQ(AuditLines({"op=destroy_object " + slot_field, "result=CKR_OK", Peer()}).size(), 1u);

  // Signatures are counted, not logged one by one.
  auto signature = user.client->Sign(user.session, pair->private_key,
                                     client::Mechanism{CKM_ECDSA_SHA256}, ToBytes("msg"));
  ASSERT_TRUE(signature.ok());

  const std::string log = daemon_.log();
  EXPECT_EQ(log.find(wrong_pin), std::string::npos);
  EXPECT_EQ(log.find(kUserPin), std::string::npos);
  EXPECT_EQ(log.find(secret), std::string::npos);
  EXPECT_EQ(log.find("\nsignetd: audit op=forged"), std::string::npos);
  EXPECT_EQ(log.find("op=sign"), std::string::npos);
}

// ReadLines: a file's lines without their newlines (a partial last line too).
std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// WriteLines writes `lines`, each with its newline.
void WriteLines(const std::string& path, const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  WriteTextFile(path, text);
}

class ChainedAuditLogTest : public DaemonTest {
 protected:
  std::vector<std::string> DaemonArgs() override { return {"--audit-log", LogPath()}; }

  std::string LogPath() const { return Path("audit.log"); }

  // Verify runs `signet audit verify files...`.
  ProgramResult Verify(const std::vector<std::string>& files) {
    std::vector<std::string> args = {"audit", "verify"};
    args.insert(args.end(), files.begin(), files.end());
    return Signet(args);
  }

  // ExpectBrokenAt: verification of `files` fails naming `file`:`line`.
  void ExpectBrokenAt(const std::vector<std::string>& files, const std::string& file,
                      std::size_t line, const std::string& why) {
    ProgramResult result = Verify(files);
    EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
    EXPECT_NE(result.err.find(file + ":" + std::to_string(line) + ": "), std::string::npos)
        << "expected " << file << ":" << line << " (" << why << "), got: " << result.err;
    EXPECT_NE(result.err.find(why), std::string::npos) << result.err;
  }

  // AuditFiles: the rotated files (oldest first) and then the log itself.
  std::vector<std::string> AuditFiles() const {
    std::vector<std::string> rotated;
    for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
      std::string name = entry.path().filename().string();
      if (name.rfind("audit.log.", 0) == 0) rotated.push_back(entry.path().string());
    }
    std::sort(rotated.begin(), rotated.end());
    rotated.push_back(LogPath());
    return rotated;
  }

  // AuditedWork: a failed and a good login, a key pair, an AES key
  // imported and destroyed, a logout: six records.
  void AuditedWork(const std::string& label) {
    auto client = Connect();
    auto info = client->GetInfo();
    ASSERT_TRUE(info.ok());
    CK_SLOT_ID slot = info->slots.front().slot_id;
    auto session = client->OpenSession(slot);
    ASSERT_TRUE(session.ok());
    ASSERT_EQ(client->Login(*session, CKU_USER, ToBytes("wrong-pin-4711")).error().code,
              CKR_PIN_INCORRECT);
    ASSERT_TRUE(client->Login(*session, CKU_USER, ToBytes(kUserPin)).ok());
    UserSession user{std::move(client), *session, slot};
    ASSERT_TRUE(GenerateKeyPair(user, "ec:p256", label, /*token=*/false).ok());
    auto aes = user.client->CreateObject(
        user.session,
        {client::UlongAttribute(CKA_CLASS, CKO_SECRET_KEY),
         client::UlongAttribute(CKA_KEY_TYPE, CKK_AES), client::BoolAttribute(CKA_TOKEN, false),
         client::StringAttribute(CKA_LABEL, label + "-aes"),
         client::BytesAttribute(CKA_VALUE, ToBytes("SECRETVALUE-0123"))});
    ASSERT_TRUE(aes.ok()) << aes.error().message;
    ASSERT_TRUE(user.client->DestroyObject(user.session, *aes).ok());
    ASSERT_TRUE(user.client->Logout(user.session).ok());
  }
};

TEST_F(ChainedAuditLogTest, RecordsLeaveStderrAndVerifyAndEachTamperingIsFoundAtItsLine) {
  AuditedWork("chained");
  // Each record is in the file when its reply has arrived.
  std::vector<std::string> lines = ReadLines(LogPath());
  ASSERT_EQ(lines.size(), 7u);  // the header and six records
  auto record = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(record["op"], "login");
  EXPECT_EQ(record["user"], "user");
  EXPECT_EQ(record["result"], "CKR_PIN_INCORRECT");
  EXPECT_EQ(
      record["peer"].get<std::string>().rfind("unix(pid=" + std::to_string(getpid()) + " ", 0), 0u)
      << record["peer"];
  EXPECT_EQ(nlohmann::json::parse(lines[3])["private_label"], "chained");
  std::string log_text;
  for (const std::string& line : lines) log_text += line + "\n";
  EXPECT_EQ(log_text.find("wrong-pin-4711"), std::string::npos);
  EXPECT_EQ(log_text.find(kUserPin), std::string::npos);
  EXPECT_EQ(log_text.find("SECRETVALUE"), std::string::npos);
  EXPECT_EQ(daemon_.log().find("signetd: audit "), std::string::npos) << daemon_.log();

  ProgramResult verified = Verify({LogPath()});
  EXPECT_EQ(verified.exit_code, 0) << verified.err;
  EXPECT_NE(verified.out.find("7 records, chain intact from "), std::string::npos) << verified.out;
  EXPECT_NE(verified.out.find("open: no end record (daemon running or killed)"), std::string::npos)
      << verified.out;

  // Copies, each changed one way.
  std::vector<std::string> edited = lines;
  std::size_t digit = edited[3].find("\"time\":\"") + 8;
  edited[3][digit] = edited[3][digit] == '1' ? '2' : '1';
  WriteLines(Path("edited.log"), edited);
  ExpectBrokenAt({Path("edited.log")}, Path("edited.log"), 4, "line 4 was changed");

  std::vector<std::string> deleted = lines;
  deleted.erase(deleted.begin() + 4);
  WriteLines(Path("deleted.log"), deleted);
  ExpectBrokenAt({Path("deleted.log")}, Path("deleted.log"), 5, "missing");

  std::vector<std::string> swapped = lines;
  std::swap(swapped[2], swapped[3]);
  WriteLines(Path("swapped.log"), swapped);
  ExpectBrokenAt({Path("swapped.log")}, Path("swapped.log"), 3, "out of order");

  std::ostringstream whole;
  for (const std::string& line : lines) whole << line << "\n";
  std::string cut = whole.str();
  cut.resize(cut.size() - lines.back().size() / 2);
  WriteTextFile(Path("cut.log"), cut);
  ExpectBrokenAt({Path("cut.log")}, Path("cut.log"), 7, "truncated");

  // SIGTERM closes the file with an end record.
  ASSERT_EQ(daemon_.Terminate(), 0) << daemon_.log();
  lines = ReadLines(LogPath());
  ASSERT_EQ(lines.size(), 8u);
  EXPECT_EQ(nlohmann::json::parse(lines.back())["event"], "audit_log_end");
  EXPECT_EQ(nlohmann::json::parse(lines.back())["reason"], "shutdown");
  verified = Verify({LogPath()});
  EXPECT_EQ(verified.exit_code, 0) << verified.err;
  EXPECT_EQ(verified.out.find("open:"), std::string::npos) << verified.out;
}

TEST_F(ChainedAuditLogTest, RotatedFilesVerifyAcrossEachBoundaryAndACutOneIsFound) {
  AuditedWork("before-hup");
  // SIGHUP: the rotation runs on a worker; its log line says it is done.
  ASSERT_EQ(kill(daemon_.pid(), SIGHUP), 0);
  ASSERT_TRUE(daemon_.WaitForLog(
      [](const std::string& log) { return log.find("audit log rotated") != std::string::npos; },
      std::chrono::seconds(10)))
      << daemon_.log();
  AuditedWork("after-hup");
  // By size, after a restart (which sets the previous file aside too).
  ASSERT_EQ(daemon_.Terminate(), 0);
  StartDaemon({"--audit-log", LogPath(), "--audit-log-max-bytes", "1500"});
  AuditedWork("by-size");
  AuditedWork("by-size-2");

  std::vector<std::string> files = AuditFiles();
  ASSERT_GE(files.size(), 5u);  // SIGHUP, the restart, and at least two by size
  ProgramResult verified = Verify(files);
  EXPECT_EQ(verified.exit_code, 0) << verified.err;
  EXPECT_NE(verified.out.find("records, chain intact from "), std::string::npos) << verified.out;
  // A later header names the file before it.
  auto header = nlohmann::json::parse(ReadLines(files[1])[0]);
  EXPECT_EQ(header["previous_file"], std::filesystem::path(files[0]).filename().string());

  // The last two lines (its end record and the record before) cut off the
  // first rotated file: found at the first line that is gone.
  std::vector<std::string> first = ReadLines(files[0]);
  ASSERT_GE(first.size(), 4u);
  EXPECT_EQ(nlohmann::json::parse(first.back())["reason"], "sighup");
  std::vector<std::string> copies;
  for (const std::string& file : files) {
    copies.push_back(Path("copy-" + std::filesystem::path(file).filename().string()));
    std::filesystem::copy_file(file, copies.back());
  }
  WriteLines(copies[0], std::vector<std::string>(first.begin(), first.end() - 2));
  ExpectBrokenAt(copies, copies[0], first.size() - 1, "missing");
}

TEST_F(ChainedAuditLogTest, ARecordIsOnDiskWhenItsReplyArrives) {
  auto client = Connect();
  auto info = client->GetInfo();
  ASSERT_TRUE(info.ok());
  auto session = client->OpenSession(info->slots.front().slot_id);
  ASSERT_TRUE(session.ok());
  ASSERT_EQ(client->Login(*session, CKU_USER, ToBytes("wrong-pin-4711")).error().code,
            CKR_PIN_INCORRECT);
  daemon_.Kill();  // SIGKILL the moment the reply is in
  std::vector<std::string> lines = ReadLines(LogPath());
  ASSERT_EQ(lines.size(), 2u);
  auto record = nlohmann::json::parse(lines[1]);
  EXPECT_EQ(record["op"], "login");
  EXPECT_EQ(record["result"], "CKR_PIN_INCORRECT");

  // A key generation through the CLI, after a restart that continues the chain.
  StartDaemon(DaemonArgs());
  ProgramResult keygen =
      Signet({"keygen", "--type", "ec:p256", "--label", "killed"}, {{"SIGNET_PIN", kUserPin}});
  ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  daemon_.Kill();
  lines = ReadLines(LogPath());
  bool recorded = false;
  for (const std::string& line : lines) {
    record = nlohmann::json::parse(line);
    recorded = recorded || (record["op"] == "generate_key_pair" &&
                            record["private_label"] == "killed" && record["result"] == "CKR_OK");
  }
  EXPECT_TRUE(recorded) << "no generate_key_pair record in the log";
  ProgramResult verified = Verify(AuditFiles());
  EXPECT_EQ(verified.exit_code, 0) << verified.err;
  EXPECT_NE(verified.out.find("no end record; "), std::string::npos) << verified.out;
}

TEST_F(ChainedAuditLogTest, RefusesToStartWhenTheLogCannotBeCreated) {
  ASSERT_EQ(daemon_.Terminate(), 0);
  std::string failure =
      daemon_.Start(data_dir(), socket_path(), {"--audit-log", Path("no-such-dir/audit.log")});
  EXPECT_NE(failure.find("cannot open the audit log, refusing to start"), std::string::npos)
      << failure;
  EXPECT_FALSE(daemon_.running());
}

}  // namespace
}  // namespace signet::e2e
