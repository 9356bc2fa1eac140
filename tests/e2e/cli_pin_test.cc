// PIN management with the signet CLI against a real signetd: the user
// changes their PIN; a PIN locked by wrong guesses is reset by the SO with
// init-pin; the SO changes the SO PIN; new PINs typed at a prompt are asked
// twice and never echoed. Each step is checked by what the old and new
// PINs can still do.
#include <gtest/gtest.h>

#include "daemon_fixture.h"

namespace signet::e2e {
namespace {

class CliPinTest : public DaemonTest {
 protected:
  // No failed-login throttle: SoResetsALockedUserPin locks the PIN with ten
  // quick guesses (access_test.cc pins the throttle itself).
  std::vector<std::string> DaemonArgs() override { return {"--login-delay-base-ms", "0"}; }
  // ListWith: `signet list` logged in with `pin`; its exit code and stderr.
  ProgramResult ListWith(const std::string& pin) { return Signet({"list", "--pin", pin}); }
};

TEST_F(CliPinTest, UserChangesTheirPin) {
  ProgramResult changed = Signet({"set-pin", "--pin", kUserPin, "--new-pin", "fresh-user-pin"});
  ASSERT_EQ(changed.exit_code, 0) << changed.err;
  EXPECT_NE(changed.out.find("user PIN changed"), std::string::npos);
  ProgramResult old_pin = ListWith(kUserPin);
  EXPECT_EQ(old_pin.exit_code, 1);
  EXPECT_NE(old_pin.err.find("CKR_PIN_INCORRECT"), std::string::npos) << old_pin.err;
  EXPECT_EQ(ListWith("fresh-user-pin").exit_code, 0);

  ProgramResult wrong = Signet({"set-pin", "--pin", "not-the-pin", "--new-pin", "whatever-pin"});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.err.find("CKR_PIN_INCORRECT"), std::string::npos) << wrong.err;
  EXPECT_EQ(ListWith("fresh-user-pin").exit_code, 0);  // unchanged by the failed attempt
}

TEST_F(CliPinTest, SoResetsALockedUserPin) {
  ProgramResult last;
  for (int attempt = 0; attempt < 10; ++attempt) last = ListWith("a-wrong-guess");
  EXPECT_NE(last.err.find("CKR_PIN_LOCKED"), std::string::npos) << last.err;
  ProgramResult locked = ListWith(kUserPin);
  EXPECT_EQ(locked.exit_code, 1);
  EXPECT_NE(locked.err.find("CKR_PIN_LOCKED"), std::string::npos) << locked.err;

  ProgramResult not_so = Signet({"init-pin", "--so-pin", kUserPin, "--new-pin", "reset-pin"});
  EXPECT_EQ(not_so.exit_code, 1);
  EXPECT_NE(not_so.err.find("CKR_PIN_INCORRECT"), std::string::npos) << not_so.err;

  ProgramResult reset = Signet({"init-pin", "--so-pin", kSoPin, "--new-pin", "reset-user-pin"});
  ASSERT_EQ(reset.exit_code, 0) << reset.err;
  EXPECT_EQ(ListWith("reset-user-pin").exit_code, 0);
  EXPECT_EQ(ListWith(kUserPin).exit_code, 1);
}

TEST_F(CliPinTest, SoChangesTheSoPin) {
  ProgramResult changed =
      Signet({"set-pin", "--so", "--so-pin", kSoPin, "--new-pin", "fresh-so-pin"});
  ASSERT_EQ(changed.exit_code, 0) << changed.err;
  EXPECT_NE(changed.out.find("SO PIN changed"), std::string::npos);
  EXPECT_EQ(Signet({"init-pin", "--so-pin", kSoPin, "--new-pin", "any-user-pin"}).exit_code, 1);
  EXPECT_EQ(Signet({"init-pin", "--so-pin", "fresh-so-pin", "--new-pin", "any-user-pin"}).exit_code,
            0);
  EXPECT_EQ(ListWith("any-user-pin").exit_code, 0);
}

TEST_F(CliPinTest, NewPinIsPromptedTwiceWithoutEcho) {
  const std::vector<std::string> argv = {BinaryPath("signet"), "set-pin", "--socket",
                                         socket_path()};
  ProgramResult mismatch = RunWithTerminal(argv, {{"SIGNET_PIN", ""}},
                                           {{"Current user PIN: ", kUserPin},
                                            {"New user PIN: ", "typed-pin-1"},
                                            {"Repeat New user PIN: ", "typed-pin-2"}});
  EXPECT_EQ(mismatch.exit_code, 1);
  EXPECT_NE(mismatch.out.find("the two entries differ"), std::string::npos) << mismatch.out;
  EXPECT_EQ(ListWith(kUserPin).exit_code, 0);  // nothing changed

  ProgramResult typed = RunWithTerminal(argv, {{"SIGNET_PIN", ""}},
                                        {{"Current user PIN: ", kUserPin},
                                         {"New user PIN: ", "typed-pin-1"},
                                         {"Repeat New user PIN: ", "typed-pin-1"}});
  EXPECT_EQ(typed.exit_code, 0) << typed.out;
  EXPECT_EQ(typed.out.find("typed-pin-1"), std::string::npos) << "echoed: " << typed.out;
  EXPECT_EQ(typed.out.find(kUserPin), std::string::npos) << "echoed: " << typed.out;
  EXPECT_EQ(ListWith("typed-pin-1").exit_code, 0);
}

}  // namespace
}  // namespace signet::e2e
