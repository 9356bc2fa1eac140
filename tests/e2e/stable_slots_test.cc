// Stable slot identity and unique labels (issue 14) against a real
// signetd: a token keeps its slot id across restarts while tokens are
// added and removed in between, a removed token's id is never handed to a
// new one, and a duplicate label is refused with a message naming the token
// that has it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "daemon_fixture.h"

namespace signet::e2e {
namespace {

class StableSlotsTest : public DaemonTest {
 protected:
  // SlotsByLabel: label -> slot id of every token the daemon serves, and
  // the free slot's id under "".
  std::map<std::string, CK_SLOT_ID> SlotsByLabel() {
    std::map<std::string, CK_SLOT_ID> out;
    auto info = Connect()->GetInfo();
    EXPECT_TRUE(info.ok());
    if (!info.ok()) return out;
    for (const client::SlotInfo& slot : info->slots) {
      out[slot.token_present ? slot.label : ""] = slot.slot_id;
    }
    return out;
  }

  void Init(const std::string& label) {
    ProgramResult made = Signet({"init", "--label", label, "--so-pin", kSoPin, "--pin", kUserPin});
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }

  void Restart() {
    ASSERT_EQ(daemon_.Terminate(), 0);
    StartDaemon();
  }

  // RemoveToken deletes the token file with `serial` (the daemon stopped).
  void RemoveToken(const std::string& serial) {
    ASSERT_EQ(daemon_.Terminate(), 0);
    ASSERT_TRUE(std::filesystem::remove(data_dir() + "/" + serial + ".token"));
    StartDaemon();
  }

  std::string SerialOf(const std::string& label) {
    auto info = Connect()->GetInfo();
    if (info.ok()) {
      for (const client::SlotInfo& slot : info->slots) {
        if (slot.token_present && slot.label == label) return slot.serial;
      }
    }
    ADD_FAILURE() << "no token " << label;
    return "";
  }
};

TEST_F(StableSlotsTest, ATokenKeepsItsSlotAcrossRestartsWhileOthersComeAndGo) {
  Init("second");
  Init("third");
  const std::map<std::string, CK_SLOT_ID> before = SlotsByLabel();
  ASSERT_EQ(before.size(), 4u);  // three tokens and the free slot

  Restart();  // 1: nothing changed
  EXPECT_EQ(SlotsByLabel(), before);

  // The token whose serial sorts first (the daemon opens files in serial
  // order, so numbering by position would shift every other) disappears.
  std::vector<std::string> labels = {kTokenLabel, "second", "third"};
  std::sort(labels.begin(), labels.end(),
            [&](const std::string& a, const std::string& b) { return SerialOf(a) < SerialOf(b); });
  const std::string removed = labels.front();
  labels.erase(labels.begin());
  RemoveToken(SerialOf(removed));  // restart 2
  std::map<std::string, CK_SLOT_ID> after = SlotsByLabel();
  for (const std::string& label : labels) EXPECT_EQ(after.at(label), before.at(label)) << label;
  EXPECT_FALSE(after.contains(removed));

  // A new token never gets the removed token's id.
  Init("fourth");
  Restart();  // 3
  after = SlotsByLabel();
  for (const std::string& label : labels) EXPECT_EQ(after.at(label), before.at(label)) << label;
  EXPECT_NE(after.at("fourth"), before.at(removed));
  EXPECT_GT(after.at("fourth"), before.at("third"));

  // Each token is still the one it was, and the CLI reaches it by its
  // label, its serial and its slot id: a key made through the label is
  // found through the other two.
  labels.push_back("fourth");
  for (const std::string& label : labels) {
    const std::string key = "key-of-" + label;
    ProgramResult keygen = Signet(
        {"keygen", "--token", label, "--type", "ec:p256", "--label", key, "--pin", kUserPin});
    EXPECT_EQ(keygen.exit_code, 0) << label << ": " << keygen.err;
    for (const std::string& selector :
         {"serial:" + SerialOf(label), "slot:" + std::to_string(after.at(label)),
          SerialOf(label)}) {
      ProgramResult pubkey = Signet({"pubkey", "--token", selector, "--label", key});
      EXPECT_EQ(pubkey.exit_code, 0) << selector << ": " << pubkey.err;
    }
  }
}

TEST_F(StableSlotsTest, ADuplicateLabelIsRefused) {
  ProgramResult twin =
      Signet({"init", "--label", kTokenLabel, "--so-pin", kSoPin, "--pin", kUserPin});
  EXPECT_NE(twin.exit_code, 0);
  EXPECT_NE(twin.err.find(std::string("a token labelled '") + kTokenLabel + "' already exists"),
            std::string::npos)
      << twin.err;
  EXPECT_EQ(SlotsByLabel().size(), 2u);  // the token and the free slot: nothing made
}

TEST_F(StableSlotsTest, ADuplicateLabelIsRefusedWithoutADaemonToo) {
  ASSERT_EQ(daemon_.Terminate(), 0);
  ProgramResult twin = RunProgram({BinaryPath("signet"), "--data", data_dir(), "init", "--label",
                                   kTokenLabel, "--so-pin", kSoPin, "--pin", kUserPin});
  EXPECT_NE(twin.exit_code, 0);
  EXPECT_NE(twin.err.find("already exists"), std::string::npos) << twin.err;
  StartDaemon();  // TearDown expects one
}

}  // namespace
}  // namespace signet::e2e
