// The CLI's argument helpers, in-process: mechanism names, what `sign`
// sends for small and large messages, secret-argument scrubbing, PIN
// sources, the daemon address and file arguments.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/cli_context.h"
#include "cli/file_io.h"
#include "cli/mechanism_names.h"
#include "cli/pin_input.h"
#include "cli/secret_arguments.h"
#include "cli/sign_input.h"
#include "crypto/digest.h"

namespace signet::cli {
namespace {

// ScopedEnv sets (or, with nullptr, unsets) an environment variable for one
// test and restores the old value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value == nullptr) {
      unsetenv(name);
    } else {
      setenv(name, value, 1);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::string AsString(const SecureBytes& bytes) { return std::string(bytes.begin(), bytes.end()); }

// ---------------------------------------------------------------- mechanisms

TEST(MechanismNames, EveryNameMapsToItsMechanism) {
  struct Row {
    const char* name;
    CK_MECHANISM_TYPE type;
    bool der;
  };
  const Row rows[] = {
      {"rsa-pkcs1-sha1", CKM_SHA1_RSA_PKCS, false},
      {"rsa-pkcs1-sha224", CKM_SHA224_RSA_PKCS, false},
      {"rsa-pkcs1-sha256", CKM_SHA256_RSA_PKCS, false},
      {"rsa-pkcs1-sha384", CKM_SHA384_RSA_PKCS, false},
      {"rsa-pkcs1-sha512", CKM_SHA512_RSA_PKCS, false},
      {"rsa-pss-sha1", CKM_SHA1_RSA_PKCS_PSS, false},
      {"rsa-pss-sha224", CKM_SHA224_RSA_PKCS_PSS, false},
      {"rsa-pss-sha256", CKM_SHA256_RSA_PKCS_PSS, false},
      {"rsa-pss-sha384", CKM_SHA384_RSA_PKCS_PSS, false},
      {"rsa-pss-sha512", CKM_SHA512_RSA_PKCS_PSS, false},
      {"ecdsa-sha1", CKM_ECDSA_SHA1, true},
      {"ecdsa-sha224", CKM_ECDSA_SHA224, true},
      {"ecdsa-sha256", CKM_ECDSA_SHA256, true},
      {"ecdsa-sha384", CKM_ECDSA_SHA384, true},
      {"ecdsa-sha512", CKM_ECDSA_SHA512, true},
      {"ed25519", CKM_EDDSA, false},
  };
  for (const Row& row : rows) {
    Result<const MechanismRow*> found = ParseMechanismName(row.name);
    ASSERT_TRUE(found.ok()) << row.name;
    EXPECT_EQ((*found)->cli_name, row.name);
    EXPECT_EQ((*found)->type, row.type) << row.name;
    EXPECT_EQ(WritesDerSignature(**found), row.der) << row.name;
    EXPECT_NE(MechanismNames().find(row.name), std::string::npos) << row.name;
  }
  const std::string names = MechanismNames();
  EXPECT_EQ(std::count(names.begin(), names.end(), ','), static_cast<long>(std::size(rows)) - 1);
}

TEST(MechanismNames, UnknownNameIsMechanismInvalidListingTheValidOnes) {
  for (const char* bad : {"rsa-md5", "", "RSA-PSS-SHA256", "ecdsa", "ed25519 "}) {
    Result<const MechanismRow*> found = ParseMechanismName(bad);
    ASSERT_FALSE(found.ok()) << bad;
    EXPECT_EQ(found.error().code, CKR_MECHANISM_INVALID);
    EXPECT_NE(found.error().message.find("'" + std::string(bad) + "'"), std::string::npos);
    EXPECT_NE(found.error().message.find(MechanismNames()), std::string::npos);
  }
}

// ---------------------------------------------------------------- sign input

const MechanismRow& Named(const char* name) { return **ParseMechanismName(name); }

TEST(SignInput, MessagesUpToTheInlineLimitTravelWhole) {
  for (std::size_t size : {std::size_t{0}, std::size_t{1}, kInlineLimit}) {
    client::Bytes message(size, 0x61);
    Result<SignInput> input = PrepareSignInput(Named("rsa-pss-sha256"), message);
    ASSERT_TRUE(input.ok()) << size;
    EXPECT_EQ(input->mechanism.type, CKM_SHA256_RSA_PKCS_PSS);
    EXPECT_FALSE(input->mechanism.pss.has_value());
    EXPECT_EQ(input->data, message);
  }
  Result<SignInput> ed = PrepareSignInput(Named("ed25519"), client::Bytes(kInlineLimit, 1));
  ASSERT_TRUE(ed.ok());
  EXPECT_EQ(ed->mechanism.type, CKM_EDDSA);
}

TEST(SignInput, LargeRsaPkcs1MessageBecomesDigestInfoForRawRsa) {
  client::Bytes message(kInlineLimit + 1, 0x5a);
  Result<SignInput> input = PrepareSignInput(Named("rsa-pkcs1-sha256"), message);
  ASSERT_TRUE(input.ok());
  EXPECT_EQ(input->mechanism.type, CKM_RSA_PKCS);
  // RFC 8017 9.2 note 1: the SHA-256 DigestInfo prefix, then the digest.
  client::Bytes expected = {0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
                            0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20};
  Result<Bytes> digest = crypto::Digest(crypto::DigestAlg::kSha256, message);
  ASSERT_TRUE(digest.ok());
  expected.insert(expected.end(), digest->begin(), digest->end());
  EXPECT_EQ(input->data, expected);
}

TEST(SignInput, LargeRsaPssMessageBecomesDigestWithMatchingParameters) {
  client::Bytes message(kInlineLimit + 100, 0x01);
  Result<SignInput> input = PrepareSignInput(Named("rsa-pss-sha384"), message);
  ASSERT_TRUE(input.ok());
  EXPECT_EQ(input->mechanism.type, CKM_RSA_PKCS_PSS);
  ASSERT_TRUE(input->mechanism.pss.has_value());
  EXPECT_EQ(input->mechanism.pss->hash_alg, CKM_SHA384);
  EXPECT_EQ(input->mechanism.pss->mgf, CKG_MGF1_SHA384);
  EXPECT_EQ(input->mechanism.pss->salt_len, 48u);
  EXPECT_EQ(input->data, *crypto::Digest(crypto::DigestAlg::kSha384, message));
}

TEST(SignInput, LargeEcdsaMessageBecomesDigestForRawEcdsa) {
  client::Bytes message(kInlineLimit + 1, 0x02);
  Result<SignInput> input = PrepareSignInput(Named("ecdsa-sha512"), message);
  ASSERT_TRUE(input.ok());
  EXPECT_EQ(input->mechanism.type, CKM_ECDSA);
  EXPECT_EQ(input->data, *crypto::Digest(crypto::DigestAlg::kSha512, message));
}

TEST(SignInput, LargeEd25519MessageIsRefused) {
  Result<SignInput> input = PrepareSignInput(Named("ed25519"), client::Bytes(kInlineLimit + 1, 3));
  ASSERT_FALSE(input.ok());
  EXPECT_EQ(input.error().code, CKR_DATA_LEN_RANGE);
  EXPECT_NE(input.error().message.find(std::to_string(kInlineLimit)), std::string::npos);
}

// ---------------------------------------------------------------- secret arguments

// Argv: a mutable argv like the kernel's, to see what scrubbing leaves.
struct Argv {
  explicit Argv(std::vector<std::string> args) : strings(std::move(args)) {
    for (std::string& s : strings) pointers.push_back(s.data());
    pointers.push_back(nullptr);
  }
  int argc() const { return static_cast<int>(strings.size()); }
  std::vector<std::string> strings;
  std::vector<char*> pointers;
};

TEST(SecretArguments, PinValuesAreOverwrittenInArgvButKeptInTheCopy) {
  Argv argv(
      {"signet", "list", "--pin", "1234", "--so-pin=5678", "--token", "t", "--new-pin", "abcd"});
  ScrubbedArguments scrubbed(argv.argc(), argv.pointers.data());
  EXPECT_EQ(argv.strings[3], "xxxx");
  EXPECT_EQ(argv.strings[4], "--so-pin=xxxx");
  EXPECT_EQ(argv.strings[6], "t");  // not a secret
  EXPECT_EQ(argv.strings[8], "xxxx");
  ASSERT_EQ(scrubbed.argc(), argv.argc());
  EXPECT_STREQ(scrubbed.argv()[3], "1234");
  EXPECT_STREQ(scrubbed.argv()[4], "--so-pin=5678");
  EXPECT_STREQ(scrubbed.argv()[8], "abcd");
  EXPECT_EQ(scrubbed.argv()[scrubbed.argc()], nullptr);
  EXPECT_EQ(scrubbed.secret_flags(), (std::vector<std::string>{"--pin", "--so-pin", "--new-pin"}));
}

TEST(SecretArguments, AfterDoubleDashAndWithoutAValueNothingIsTouched) {
  Argv argv({"signet", "sign", "--", "--pin", "1234"});
  ScrubbedArguments scrubbed(argv.argc(), argv.pointers.data());
  EXPECT_EQ(argv.strings[4], "1234");
  EXPECT_TRUE(scrubbed.secret_flags().empty());

  Argv trailing({"signet", "list", "--pin"});  // the value is missing: CLI11 will say so
  ScrubbedArguments scrubbed_trailing(trailing.argc(), trailing.pointers.data());
  EXPECT_EQ(scrubbed_trailing.secret_flags(), std::vector<std::string>{"--pin"});
  EXPECT_STREQ(scrubbed_trailing.argv()[2], "--pin");
}

TEST(SecretArguments, OnlyPinFlagsAreSecret) {
  for (const char* flag : {"--pin", "--so-pin", "--new-pin"}) EXPECT_TRUE(IsSecretFlag(flag));
  for (const char* flag : {"--pins", "-p", "--token", "pin", "--PIN", ""}) {
    EXPECT_FALSE(IsSecretFlag(flag)) << flag;
  }
}

// ---------------------------------------------------------------- PIN sources

TEST(ReadSecret, FlagWinsOverTheEnvironmentAndIsWiped) {
  ScopedEnv env("SIGNET_PIN", "from-env");
  std::optional<std::string> flag = std::string("from-flag");
  Result<SecureBytes> pin = ReadSecret({&flag, "--pin", "SIGNET_PIN", "User PIN: "});
  ASSERT_TRUE(pin.ok()) << pin.error().message;
  EXPECT_EQ(AsString(*pin), "from-flag");
  ASSERT_TRUE(flag.has_value());
  EXPECT_EQ(flag->find("from-flag"), std::string::npos) << "the flag's copy was not wiped";
}

TEST(ReadSecret, EnvironmentIsUsedWithoutAFlag) {
  ScopedEnv env("SIGNET_SO_PIN", "so-from-env");
  std::optional<std::string> flag;
  Result<SecureBytes> pin = ReadSecret({&flag, "--so-pin", "SIGNET_SO_PIN", "SO PIN: "});
  ASSERT_TRUE(pin.ok()) << pin.error().message;
  EXPECT_EQ(AsString(*pin), "so-from-env");
}

TEST(ReadSecret, EmptyFlagValueIsRefusedByName) {
  std::optional<std::string> flag = std::string();
  Result<SecureBytes> pin = ReadSecret({&flag, "--pin", "SIGNET_PIN", "User PIN: "});
  ASSERT_FALSE(pin.ok());
  EXPECT_EQ(pin.error().code, CKR_ARGUMENTS_BAD);
  EXPECT_EQ(pin.error().message, "User PIN is empty");
}

// Without flag, environment or terminal: the error names every source. Run
// in a child that has left its controlling terminal (setsid), so the test
// does not depend on how it was started.
TEST(ReadSecret, NoSourceAndNoTerminalNamesTheSources) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(pipe_fds[0]);
    setsid();
    unsetenv("SIGNET_PIN");
    std::optional<std::string> flag;
    Result<SecureBytes> pin = ReadSecret({&flag, "--pin", "SIGNET_PIN", "User PIN: "});
    std::string report =
        pin.ok() ? "ok" : std::to_string(pin.error().code) + ":" + pin.error().message;
    (void)!write(pipe_fds[1], report.data(), report.size());
    _exit(0);
  }
  close(pipe_fds[1]);
  std::string report;
  char buffer[256];
  ssize_t n;
  while ((n = read(pipe_fds[0], buffer, sizeof buffer)) > 0) report.append(buffer, n);
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_EQ(report, std::to_string(CKR_ARGUMENTS_BAD) +
                        ":User PIN: not given: use --pin or SIGNET_PIN, or run on a terminal");
}

// ---------------------------------------------------------------- daemon address

TEST(DaemonAddress, SocketFlagThenEnvironmentThenDataDirectory) {
  ScopedEnv socket_env("SIGNET_SOCKET", "/env/signetd.sock");
  ScopedEnv data_env("SIGNET_DATA", "/env-data");
  GlobalOptions options;
  EXPECT_EQ(*ResolveDaemonAddress(options), "/env/signetd.sock");
  options.socket = "tcp://hsm:7443";
  EXPECT_EQ(*ResolveDaemonAddress(options), "tcp://hsm:7443");
  options.socket.clear();
  unsetenv("SIGNET_SOCKET");
  EXPECT_EQ(*ResolveDaemonAddress(options), "/env-data/signetd.sock");
  options.data_dir = "/flag-data";
  EXPECT_EQ(*ResolveDaemonAddress(options), "/flag-data/signetd.sock");
  EXPECT_EQ(ResolveDataDir(options), "/flag-data");
}

// Issue 14: with nothing set the CLI, like the PKCS#11 module, talks to the
// installed service.
TEST(DaemonAddress, NoneGivenIsTheServiceSocket) {
  ScopedEnv socket_env("SIGNET_SOCKET", nullptr);
  ScopedEnv data_env("SIGNET_DATA", nullptr);
  Result<std::string> address = ResolveDaemonAddress(GlobalOptions{});
  ASSERT_TRUE(address.ok());
  EXPECT_EQ(*address, "/run/signet/signetd.sock");
  EXPECT_TRUE(ResolveDataDir(GlobalOptions{}).empty());
}

// ---------------------------------------------------------------- files

// ---------------------------------------------------------------- --token

// Slots as GetInfo gives them: labels and serials padded with blanks, an
// empty slot, two tokens sharing a label (an older daemon allowed it), a
// token labelled with another token's slot id.
std::vector<client::SlotInfo> TestSlots() {
  auto slot = [](CK_SLOT_ID id, bool present, const std::string& label, const std::string& serial) {
    client::SlotInfo info;
    info.slot_id = id;
    info.token_present = present;
    info.label = label + std::string(32 - label.size(), ' ');
    info.serial = serial + std::string(16 - serial.size(), ' ');
    return info;
  };
  return {slot(0, false, "", ""), slot(1, true, "alpha", "aaaa000000000001"),
          slot(2, true, "twin", "bbbb000000000002"), slot(5, true, "twin", "cccc000000000005"),
          slot(7, true, "1", "dddd000000000007")};
}

TEST(ChooseToken, EmptyIsTheFirstToken) {
  EXPECT_EQ(*ChooseToken(TestSlots(), ""), 1u);
  Result<CK_SLOT_ID> none = ChooseToken({}, "");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, CKR_TOKEN_NOT_PRESENT);
}

TEST(ChooseToken, ByLabelSerialOrSlotIdWithOrWithoutPrefix) {
  const auto slots = TestSlots();
  EXPECT_EQ(*ChooseToken(slots, "alpha"), 1u);
  EXPECT_EQ(*ChooseToken(slots, "label:alpha"), 1u);
  EXPECT_EQ(*ChooseToken(slots, "cccc000000000005"), 5u);
  EXPECT_EQ(*ChooseToken(slots, "serial:cccc000000000005"), 5u);
  EXPECT_EQ(*ChooseToken(slots, "5"), 5u);
  EXPECT_EQ(*ChooseToken(slots, "slot:5"), 5u);
  // A bare value is a label first: "1" is the token labelled 1 (slot 7);
  // slot:1 is slot 1.
  EXPECT_EQ(*ChooseToken(slots, "1"), 7u);
  EXPECT_EQ(*ChooseToken(slots, "slot:1"), 1u);
}

TEST(ChooseToken, NoMatchAndEmptySlotsAreTokenNotPresent) {
  const auto slots = TestSlots();
  for (const char* selector : {"beta", "slot:0", "slot:9", "serial:alpha", "label:5", "0"}) {
    Result<CK_SLOT_ID> chosen = ChooseToken(slots, selector);
    ASSERT_FALSE(chosen.ok()) << selector;
    EXPECT_EQ(chosen.error().code, CKR_TOKEN_NOT_PRESENT) << selector;
  }
  Result<CK_SLOT_ID> word = ChooseToken(slots, "slot:first");
  ASSERT_FALSE(word.ok());
  EXPECT_EQ(word.error().code, CKR_ARGUMENTS_BAD);
}

TEST(ChooseToken, AnAmbiguousLabelNamesEveryCandidate) {
  for (const char* selector : {"twin", "label:twin"}) {
    Result<CK_SLOT_ID> chosen = ChooseToken(TestSlots(), selector);
    ASSERT_FALSE(chosen.ok()) << selector;
    EXPECT_EQ(chosen.error().code, CKR_ARGUMENTS_BAD);
    EXPECT_NE(chosen.error().message.find("2 tokens are labelled 'twin': slot 2 (serial "
                                          "bbbb000000000002), slot 5 (serial cccc000000000005)"),
              std::string::npos)
        << chosen.error().message;
  }
}

TEST(FileArguments, MissingFileNamesThePathAndTheReason) {
  Result<client::Bytes> data = ReadFile("/nonexistent/signet/message");
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().code, CKR_ARGUMENTS_BAD);
  EXPECT_EQ(data.error().message,
            "cannot read /nonexistent/signet/message: No such file or directory");
  Status written = WriteFile("/nonexistent/signet/out", client::Bytes{1});
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message.find("cannot write /nonexistent/signet/out"),
            std::string::npos);
}

TEST(FileArguments, WriteThenReadRoundTrips) {
  std::string pattern = (std::filesystem::temp_directory_path() / "signet-cli-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  std::string path = pattern + "/file";
  client::Bytes data = {0, 1, 2, 0xff, '\n'};
  ASSERT_TRUE(WriteFile(path, data).ok());
  Result<client::Bytes> back = ReadFile(path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, data);
  std::filesystem::remove_all(pattern);
}

}  // namespace
}  // namespace signet::cli
