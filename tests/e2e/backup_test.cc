// Backup and restore (issue 14) against a real signetd: `signet backup`
// under a signing load of 8 clients, which sees no error; the backup,
// restored by `signet restore` into another data directory and served by a
// second signetd, signs with the same keys (verified by the openssl tool
// against the public keys exported before the backup); restoring over the
// original token needs --replace, and never while its daemon runs.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "key_helpers.h"

namespace signet::e2e {
namespace {

constexpr int kLoadClients = 8;

class BackupE2eTest : public DaemonTest {
 protected:
  ProgramResult SignetAt(const std::string& data, const std::vector<std::string>& args) {
    std::vector<std::string> argv = {BinaryPath("signet"), "--data", data};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProgram(argv, {{"SIGNET_SOCKET", ""}, {"SIGNET_PIN", kUserPin}});
  }
};

TEST_F(BackupE2eTest, ABackupUnderLoadRestoresIntoATokenThatSignsWithTheSameKeys) {
  for (const char* type : {"rsa:2048", "ec:p256"}) {
    std::string label = std::string("k-") + type;
    ProgramResult keygen = Signet({"keygen", "--type", type, "--label", label, "--pin", kUserPin});
    ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
    ProgramResult pubkey = Signet({"pubkey", "--label", label});
    ASSERT_EQ(pubkey.exit_code, 0) << pubkey.err;
    WriteTextFile(Path(label + ".pem"), pubkey.out);
  }

  // The load: 8 clients signing with the EC key until the backup is done.
  std::atomic<bool> stop{false};
  std::atomic<int> signatures{0};
  std::vector<std::string> errors(kLoadClients);
  std::vector<std::thread> load;
  for (int i = 0; i < kLoadClients; ++i) {
    load.emplace_back([&, i] {
      auto user = OpenUserSession();
      if (!user.ok()) return void(errors[i] = user.error().message);
      auto keys = FindByLabel(*user, "k-ec:p256", CKO_PRIVATE_KEY);
      if (!keys.ok() || keys->size() != 1) return void(errors[i] = "no key");
      while (!stop) {
        auto signature = user->client->Sign(user->session, keys->front(),
                                            client::Mechanism{CKM_ECDSA_SHA256}, ToBytes("load"));
        if (!signature.ok()) return void(errors[i] = signature.error().message);
        ++signatures;
      }
    });
  }
  while (signatures < 100) std::this_thread::yield();  // the load runs
  ProgramResult backup = Signet({"backup", "--out", Path("token.backup")});
  const int during = signatures.load();
  stop = true;
  for (auto& thread : load) thread.join();
  ASSERT_EQ(backup.exit_code, 0) << backup.err;
  EXPECT_NE(backup.out.find("integrity_check passes"), std::string::npos) << backup.out;
  for (const std::string& error : errors) EXPECT_EQ(error, "");
  EXPECT_GT(signatures.load(), during);  // signing went on after the backup

  // Restored elsewhere and served by a second daemon.
  const std::string restored = Path("restored");
  ProgramResult restore = SignetAt(restored, {"restore", "--in", Path("token.backup")});
  ASSERT_EQ(restore.exit_code, 0) << restore.err;
  Daemon second;
  ASSERT_EQ(second.Start(restored, Path("restored.sock")), "");
  WriteTextFile(Path("msg"), "signed by the restored token");
  for (const auto& [label, mech] : std::vector<std::pair<std::string, std::string>>{
           {"k-rsa:2048", "rsa-pkcs1-sha256"}, {"k-ec:p256", "ecdsa-sha256"}}) {
    ProgramResult sign = RunProgram({BinaryPath("signet"), "--socket", Path("restored.sock"),
                                     "--pin", kUserPin, "sign", "--label", label, "--mech", mech,
                                     "--in", Path("msg"), "--out", Path("sig")});
    ASSERT_EQ(sign.exit_code, 0) << sign.err;
    ProgramResult verify = OpenSsl({"dgst", "-sha256", "-verify", Path(label + ".pem"),
                                    "-signature", Path("sig"), Path("msg")});
    EXPECT_EQ(verify.exit_code, 0) << label << ": " << verify.out << verify.err;
  }
  EXPECT_EQ(second.Terminate(), 0);
}

TEST_F(BackupE2eTest, RestoringOverTheOriginalNeedsItsDaemonStoppedAndReplace) {
  ProgramResult backup = Signet({"backup", "--out", Path("token.backup")});
  ASSERT_EQ(backup.exit_code, 0) << backup.err;
  ProgramResult live = SignetAt(data_dir(), {"restore", "--in", Path("token.backup")});
  EXPECT_EQ(live.exit_code, 1);
  EXPECT_NE(live.err.find("stop signetd first"), std::string::npos) << live.err;

  ASSERT_EQ(daemon_.Terminate(), 0);
  ProgramResult twin = SignetAt(data_dir(), {"restore", "--in", Path("token.backup")});
  EXPECT_EQ(twin.exit_code, 1);
  EXPECT_NE(twin.err.find("give --replace"), std::string::npos) << twin.err;
  ProgramResult replaced =
      SignetAt(data_dir(), {"restore", "--in", Path("token.backup"), "--replace"});
  EXPECT_EQ(replaced.exit_code, 0) << replaced.err;
  StartDaemon();
  ProgramResult list = Signet({"list", "--pin", kUserPin});
  EXPECT_EQ(list.exit_code, 0) << list.err;
}

}  // namespace
}  // namespace signet::e2e
