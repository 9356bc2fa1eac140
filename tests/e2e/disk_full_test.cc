// signetd with its data directory on a small tmpfs that the test fills to
// the last byte: key generation must fail with a clear PKCS#11 error
// (CKR_DEVICE_MEMORY for a full disk, or CKR_DEVICE_ERROR), the daemon must
// live on, leave no half pair, and keep signing with the keys it has; once
// space is freed, key generation works again and everything survives a
// restart.
//
// Mounting needs root (CI runs as root); elsewhere the test skips with a
// message.
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "key_helpers.h"

namespace signet::e2e {
namespace {

constexpr int kMaxAttempts = 64;  // key generations tried on the full disk

class DiskFullTest : public DaemonTest {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs (CI runs as root)";
    std::string data = Path("data");
    ASSERT_EQ(mkdir(data.c_str(), 0700), 0) << std::strerror(errno);
    if (mount("signet-disk-full", data.c_str(), "tmpfs", MS_NOSUID | MS_NODEV,
              "size=4m,mode=0700") != 0) {
      GTEST_SKIP() << "cannot mount a tmpfs: " << std::strerror(errno);
    }
    mounted_ = true;
    DaemonTest::SetUp();
  }

  void TearDown() override {
    DaemonTest::TearDown();
    if (mounted_) umount2(Path("data").c_str(), MNT_DETACH);
  }

  // Fill writes `path` until the file system has no byte left; returns
  // the bytes written.
  std::size_t Fill(const std::string& path) {
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    EXPECT_GE(fd, 0) << std::strerror(errno);
    if (fd < 0) return 0;
    std::vector<char> chunk(64 * 1024, 'x');
    std::size_t total = 0;
    for (std::size_t size = chunk.size(); size > 0; size /= 2) {
      for (;;) {
        ssize_t n = write(fd, chunk.data(), size);
        if (n <= 0) break;
        total += static_cast<std::size_t>(n);
      }
    }
    EXPECT_EQ(errno, ENOSPC);
    close(fd);
    return total;
  }

  // SignsAndVerifies: the pair labelled `label` signs, and the signature
  // checks out against its public key outside the daemon.
  void SignsAndVerifies(UserSession& user, const std::string& label) {
    SCOPED_TRACE(label);
    auto priv = FindByLabel(user, label, CKO_PRIVATE_KEY);
    auto pub = FindByLabel(user, label, CKO_PUBLIC_KEY);
    ASSERT_TRUE(priv.ok() && pub.ok());
    ASSERT_EQ(priv->size(), 1u);
    ASSERT_EQ(pub->size(), 1u);
    client::Bytes message = ToBytes("signed on a full disk");
    auto signature = user.client->Sign(user.session, priv->front(),
                                       client::Mechanism{CKM_ECDSA_SHA256}, message);
    ASSERT_TRUE(signature.ok()) << signature.error().message;
    auto public_key = ReadPublicKey(user, pub->front());
    ASSERT_TRUE(public_key.ok()) << public_key.error().message;
    crypto::SignParams params{crypto::SignScheme::kEcdsa, crypto::DigestAlg::kSha256};
    params.ecdsa_format = crypto::EcdsaFormat::kRaw;
    EXPECT_TRUE(crypto::Verify(*public_key, params, message, *signature).ok());
  }

  // HalvesOf: {private, public} objects labelled `label`.
  std::pair<std::size_t, std::size_t> HalvesOf(UserSession& user, const std::string& label) {
    auto priv = FindByLabel(user, label, CKO_PRIVATE_KEY);
    auto pub = FindByLabel(user, label, CKO_PUBLIC_KEY);
    EXPECT_TRUE(priv.ok() && pub.ok());
    if (!priv.ok() || !pub.ok()) return {0, 0};
    return {priv->size(), pub->size()};
  }

  bool mounted_ = false;
};

TEST_F(DiskFullTest, KeygenFailsCleanlyWhenFullAndWorksAfterSpaceIsFreed) {
  auto user = OpenUserSession();
  ASSERT_TRUE(user.ok()) << user.error().message;
  ASSERT_TRUE(GenerateKeyPair(*user, "ec:p256", "before", true).ok());

  const std::string filler = Path("data/filler");
  ASSERT_GT(Fill(filler), 0u);

  // SQLite may still fit a transaction or two into pages it already has;
  // the disk is full when a generation fails.
  std::vector<std::string> made;
  std::string failed_label;
  for (int i = 0; i < kMaxAttempts && failed_label.empty(); ++i) {
    std::string label = "full-" + std::to_string(i);
    auto pair = GenerateKeyPair(*user, "ec:p256", label, true);
    if (pair.ok()) {
      made.push_back(label);
      continue;
    }
    failed_label = label;
    EXPECT_TRUE(pair.error().code == CKR_DEVICE_MEMORY || pair.error().code == CKR_DEVICE_ERROR)
        << "rv " << pair.error().code << ": " << pair.error().message;
    EXPECT_FALSE(pair.error().message.empty());
    std::printf("disk full after %zu more key pair(s): %s\n", made.size(),
                pair.error().message.c_str());
  }
  ASSERT_FALSE(failed_label.empty()) << kMaxAttempts << " key pairs fit on a full disk";
  ASSERT_TRUE(daemon_.running()) << daemon_.log();

  // No half pair: the failed generation left both halves or neither.
  auto [privates, publics] = HalvesOf(*user, failed_label);
  EXPECT_EQ(privates, publics) << "half pair '" << failed_label << "' on a full disk";

  // Keys already on the token still sign, on this connection and a new one.
  SignsAndVerifies(*user, "before");
  {
    auto fresh = OpenUserSession();
    ASSERT_TRUE(fresh.ok()) << fresh.error().message;
    SignsAndVerifies(*fresh, "before");
  }

  // Space again: key generation works at once.
  ASSERT_EQ(unlink(filler.c_str()), 0);
  ASSERT_TRUE(GenerateKeyPair(*user, "ec:p256", "after", true).ok());
  SignsAndVerifies(*user, "after");

  // And everything acknowledged survives a restart.
  user->client.reset();
  ASSERT_EQ(daemon_.Terminate(), 0) << daemon_.log();
  StartDaemon();
  auto again = OpenUserSession();
  ASSERT_TRUE(again.ok()) << again.error().message;
  for (const std::string& label : made) SignsAndVerifies(*again, label);
  SignsAndVerifies(*again, "before");
  SignsAndVerifies(*again, "after");
  auto [privates_after, publics_after] = HalvesOf(*again, failed_label);
  EXPECT_EQ(privates_after, publics_after) << "half pair '" << failed_label << "' after restart";
}

}  // namespace
}  // namespace signet::e2e
