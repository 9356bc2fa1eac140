// Process-level keystore tests: a token written by one process is used by
// another, PIN lockout survives process restarts, and a writer killed with
// SIGKILL mid-stream leaves every committed key intact.
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "base/hex.h"
#include "crypto/digest.h"
#include "crypto/sign.h"
#include "keystore/attribute_codec.h"
#include "keystore/keystore_child_protocol.h"
#include "keystore/keystore_test_util.h"

namespace signet::keystore {
namespace {

using testing::Pin;
using testing::TempDir;

const char* ChildPath() { return SIGNET_BINARY_DIR "/tests/keystore_child"; }

TokenOptions ChildCompatibleOptions() {
  TokenOptions options = testing::FastOptions(kChildMaxPinFailures);
  options.kdf.n = kChildScryptN;
  return options;
}

// Spawn runs `args` (argv[0] = program path) with stdout sent to `stdout_fd`
// when not -1; returns the pid.
pid_t Spawn(std::vector<std::string> args, int stdout_fd = -1) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    if (stdout_fd >= 0) ::dup2(stdout_fd, STDOUT_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

// Run spawns and waits; returns the exit status (or -signal).
int RunChild(std::vector<std::string> args) {
  pid_t pid = Spawn(std::move(args));
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

void WriteFile(const std::filesystem::path& file, ByteView bytes) {
  std::ofstream out(file, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

TEST(KeystoreProcess, NewProcessLogsInAndSignsWithStoredKey) {
  TempDir dir;
  auto file = dir.path() / "t.token";
  ObjectHandle handle = 0;
  Bytes spki;
  {
    auto token = Token::Create(file, "proc", Pin("so-pin"), Pin("1234"), ChildCompatibleOptions());
    ASSERT_TRUE(token.ok()) << token.error().message;
    ASSERT_TRUE((*token)->Login(UserType::kUser, Pin("1234")).ok());
    auto key = crypto::PrivateKey::Generate({crypto::KeyType::kRsa, 2048});
    ASSERT_TRUE(key.ok());
    auto der = key->ToPkcs8Der();
    ASSERT_TRUE(der.ok());
    auto pub = key->Public();
    ASSERT_TRUE(pub.ok());
    auto pem = pub->ToPem();
    ASSERT_TRUE(pem.ok());
    std::ofstream(dir.path() / "pub.pem") << *pem;
    spki = *pub->ToDer();
    AttributeMap attributes{{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)},
                            {CKA_KEY_TYPE, UlongBytes(CKK_RSA)},
                            {CKA_PUBLIC_KEY_INFO, spki}};
    auto stored = (*token)->CreateObject(attributes, &*der);
    ASSERT_TRUE(stored.ok());
    handle = *stored;
  }  // the Token object is destroyed; only the file remains

  Bytes message{'s', 'i', 'g', 'n', 'e', 't'};
  WriteFile(dir.path() / "msg", message);
  auto sig_file = dir.path() / "sig";
  ASSERT_EQ(RunChild({ChildPath(), "sign", file.string(), "1234", std::to_string(handle),
                      (dir.path() / "msg").string(), sig_file.string()}),
            0);

  Bytes signature = testing::ReadFileBytes(sig_file);
  auto pub = crypto::PublicKey::FromDer(spki);
  ASSERT_TRUE(pub.ok());
  EXPECT_TRUE(crypto::Verify(*pub, crypto::SignParams{}, message, signature).ok());
  std::string openssl = "openssl dgst -sha256 -verify " + (dir.path() / "pub.pem").string() +
                        " -signature " + sig_file.string() + " " + (dir.path() / "msg").string() +
                        " >/dev/null";
  EXPECT_EQ(std::system(openssl.c_str()), 0) << "openssl rejected the signature";

  // The wrong PIN in a new process fails with a clear error.
  EXPECT_EQ(RunChild({ChildPath(), "sign", file.string(), "9999", std::to_string(handle),
                      (dir.path() / "msg").string(), sig_file.string()}),
            kExitPinIncorrect);
}

TEST(KeystoreProcess, LockoutSurvivesProcessRestarts) {
  TempDir dir;
  auto file = dir.path() / "t.token";
  ASSERT_TRUE(
      Token::Create(file, "lock", Pin("so-pin"), Pin("1234"), ChildCompatibleOptions()).ok());
  EXPECT_EQ(RunChild({ChildPath(), "login", file.string(), "bad"}), kExitPinIncorrect);
  EXPECT_EQ(RunChild({ChildPath(), "login", file.string(), "1234"}), 0);  // resets
  for (int i = 1; i < kChildMaxPinFailures; ++i) {
    EXPECT_EQ(RunChild({ChildPath(), "login", file.string(), "bad"}), kExitPinIncorrect);
  }
  EXPECT_EQ(RunChild({ChildPath(), "login", file.string(), "bad"}), kExitPinLocked);
  EXPECT_EQ(RunChild({ChildPath(), "login", file.string(), "1234"}), kExitPinLocked);

  auto token = Token::Open(file, ChildCompatibleOptions());
  ASSERT_TRUE(token.ok());
  ASSERT_TRUE((*token)->Login(UserType::kSo, Pin("so-pin")).ok());
  ASSERT_TRUE((*token)->InitUserPin(Pin("5678")).ok());
  token->reset();
  EXPECT_EQ(RunChild({ChildPath(), "login", file.string(), "5678"}), 0);
}

// IntegrityCheck runs SQLite's full integrity check on `file`.
std::string IntegrityCheck(const std::filesystem::path& file) {
  sqlite3* db = nullptr;
  if (sqlite3_open(file.c_str(), &db) != SQLITE_OK) return "cannot open";
  std::string result;
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &stmt, nullptr);
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    result += reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return result;
}

TEST(KeystoreProcess, SigkillMidStreamKeepsEveryCommittedKey) {
  TempDir dir;
  auto file = dir.path() / "t.token";
  ASSERT_TRUE(
      Token::Create(file, "kill", Pin("so-pin"), Pin("1234"), ChildCompatibleOptions()).ok());

  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t pid = Spawn({ChildPath(), "stream", file.string(), "1234"}, fds[1]);
  ::close(fds[1]);
  FILE* from_child = ::fdopen(fds[0], "r");
  ASSERT_NE(from_child, nullptr);

  constexpr int kReportsBeforeKill = 40;
  std::map<ObjectHandle, std::string> reported;
  char line[256];
  while (static_cast<int>(reported.size()) < kReportsBeforeKill &&
         std::fgets(line, sizeof line, from_child) != nullptr) {
    long long handle = 0;
    char hash[65] = {};
    ASSERT_EQ(std::sscanf(line, "%lld %64s", &handle, hash), 2) << line;
    reported[handle] = hash;
  }
  // The child is still writing: kill it in the middle of the stream.
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::fclose(from_child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child ended on its own: " << status;
  ASSERT_EQ(static_cast<int>(reported.size()), kReportsBeforeKill);

  EXPECT_EQ(IntegrityCheck(file), "ok");
  auto token = Token::Open(file, ChildCompatibleOptions());
  ASSERT_TRUE(token.ok()) << token.error().message;
  ASSERT_TRUE((*token)->Login(UserType::kUser, Pin("1234")).ok());
  for (const auto& [handle, hash] : reported) {
    auto key = (*token)->FetchKey(handle);
    ASSERT_TRUE(key.ok()) << "handle " << handle << ": " << key.error().message;
    auto digest = crypto::Digest(crypto::DigestAlg::kSha256, (*key)->value);
    ASSERT_TRUE(digest.ok());
    EXPECT_EQ(ToHex(*digest), hash) << "handle " << handle;
  }
  auto objects = (*token)->ListObjects();
  ASSERT_TRUE(objects.ok());
  EXPECT_GE(objects->size(), reported.size());
}

}  // namespace
}  // namespace signet::keystore
