// The signet CLI as people and scripts expect a command-line tool to behave
// (issue 14, "A CLI that fits habits"): --version on both programs from the
// one version source, exit status 2 for bad usage and 1 for an operation
// that failed with the CK_RV name in the message; `signet tokens`, --token
// by label, serial or slot id; `list` with CKA_ID, type and size, usage and
// protection; --json on list, tokens, stats and info, parsed as JSON here.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "daemon_fixture.h"
#include "signet/version.hpp"

namespace signet::e2e {
namespace {

class CliHabitsTest : public DaemonTest {};

// The daemon's GetInfo and the programs' --version say the same version.
TEST_F(CliHabitsTest, BothProgramsReportTheProjectVersion) {
  ProgramResult signet = RunProgram({BinaryPath("signet"), "--version"});
  EXPECT_EQ(signet.exit_code, 0) << signet.err;
  EXPECT_EQ(signet.out, std::string("signet ") + kVersionString + "\n");
  ProgramResult signetd = RunProgram({BinaryPath("signetd"), "--version"});
  EXPECT_EQ(signetd.exit_code, 0) << signetd.err;
  EXPECT_EQ(signetd.out, std::string("signetd ") + kVersionString + "\n");
  auto client = Connect();
  Result<client::ServerInfo> info = client->GetInfo();
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->server_version, kVersionString);
}

TEST_F(CliHabitsTest, BadUsageExitsTwoAndAFailedOperationOneWithItsCkrName) {
  ProgramResult typo = Signet({"lsit"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("unknown command 'lsit'"), std::string::npos) << typo.err;
  ProgramResult missing = Signet({"keygen", "--label", "k"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--type"), std::string::npos) << missing.err;
  ProgramResult signetd = RunProgram({BinaryPath("signetd"), "--bogus"});
  EXPECT_EQ(signetd.exit_code, 2) << signetd.err;

  ProgramResult wrong_pin = Signet({"list", "--pin", "not-the-pin"});
  EXPECT_EQ(wrong_pin.exit_code, 1);
  EXPECT_NE(wrong_pin.err.find("signet list: CKR_PIN_INCORRECT"), std::string::npos)
      << wrong_pin.err;
  ProgramResult no_key = Signet({"pubkey", "--label", "no-such-key"});
  EXPECT_EQ(no_key.exit_code, 1);
  EXPECT_NE(no_key.err.find("CKR_OBJECT_HANDLE_INVALID"), std::string::npos) << no_key.err;
}

using nlohmann::json;

class CliJsonTest : public DaemonTest {
 protected:
  // SignetJson runs the CLI and parses its stdout (failing the test when it
  // exits non-zero or does not print one JSON document).
  json SignetJson(const std::vector<std::string>& args) {
    ProgramResult run = Signet(args);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    json parsed = json::parse(run.out, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(parsed.is_discarded()) << run.out;
    return parsed;
  }

  // AddToken creates a second token through the daemon and returns its serial.
  std::string AddToken(const std::string& label) {
    // Only --socket: with --data, init writes the token file offline.
    ProgramResult init = RunProgram({BinaryPath("signet"), "init", "--socket", socket_path(),
                                     "--label", label, "--so-pin", kSoPin, "--pin", kUserPin});
    EXPECT_EQ(init.exit_code, 0) << init.err;
    const json listed = SignetJson({"tokens", "--json"});
    for (const json& token : listed["tokens"]) {
      if (token["label"] == label) return token["serial"];
    }
    ADD_FAILURE() << "no token " << label;
    return "";
  }
};

TEST_F(CliJsonTest, TokensListsSlotLabelSerialFlagsAndKeys) {
  ProgramResult keygen =
      Signet({"keygen", "--type", "ec:p256", "--label", "first-key", "--pin", kUserPin});
  ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  const std::string second = AddToken("second");
  const json tokens = SignetJson({"tokens", "--json"})["tokens"];
  ASSERT_EQ(tokens.size(), 2u) << tokens.dump();
  EXPECT_EQ(tokens[0]["label"], kTokenLabel);
  EXPECT_EQ(tokens[0]["public_keys"], 1);
  EXPECT_EQ(tokens[1]["label"], "second");
  EXPECT_EQ(tokens[1]["serial"], second);
  EXPECT_EQ(tokens[1]["public_keys"], 0);
  EXPECT_NE(tokens[0]["slot"], tokens[1]["slot"]);
  for (const json& token : tokens) {
    EXPECT_EQ(token["serial"].get<std::string>().size(), 16u);
    const auto& flags = token["flags"];
    EXPECT_NE(std::find(flags.begin(), flags.end(), "token-initialized"), flags.end());
    EXPECT_NE(std::find(flags.begin(), flags.end(), "login-required"), flags.end());
  }
  ProgramResult text = Signet({"tokens"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(second), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("token-initialized"), std::string::npos) << text.out;
}

// The CLI reaches each token by label, serial and slot id, and a token
// that is not there is CKR_TOKEN_NOT_PRESENT with exit status 1.
TEST_F(CliJsonTest, TokenIsChosenByLabelSerialOrSlotId) {
  const std::string serial = AddToken("second");
  std::string slot;
  const json tokens = SignetJson({"tokens", "--json"});
  for (const json& token : tokens["tokens"]) {
    if (token["serial"] == serial) slot = std::to_string(token["slot"].get<int>());
  }
  ASSERT_FALSE(slot.empty());
  ProgramResult keygen = Signet({"keygen", "--type", "ed25519", "--label", "on-second", "--token",
                                 "serial:" + serial, "--pin", kUserPin});
  ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  for (const std::string& token : std::vector<std::string>{"second", "label:second", serial,
                                                           "serial:" + serial, "slot:" + slot}) {
    SCOPED_TRACE(token);
    const json listed = SignetJson({"list", "--json", "--token", token, "--pin", kUserPin});
    EXPECT_EQ(std::to_string(listed["slot"].get<int>()), slot);
    ASSERT_EQ(listed["keys"].size(), 2u) << listed.dump();
    EXPECT_EQ(listed["keys"][0]["label"], "on-second");
  }
  EXPECT_EQ(SignetJson({"list", "--json", "--pin", kUserPin})["keys"].size(), 0u);
  ProgramResult missing = Signet({"list", "--token", "no-such-token", "--pin", kUserPin});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("CKR_TOKEN_NOT_PRESENT"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("no-such-token"), std::string::npos) << missing.err;
}

TEST_F(CliJsonTest, ListShowsIdTypeSizeUsageAndProtection) {
  ProgramResult keygen =
      Signet({"keygen", "--type", "rsa:2048", "--label", "k1", "--pin", kUserPin});
  ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  const json keys = SignetJson({"list", "--json", "--pin", kUserPin})["keys"];
  ASSERT_EQ(keys.size(), 2u) << keys.dump();
  const json& first = keys[0]["class"] == "private" ? keys[0] : keys[1];
  const json& second = keys[0]["class"] == "private" ? keys[1] : keys[0];
  EXPECT_EQ(first["class"], "private");
  EXPECT_EQ(first["id"], "6b31");  // CKA_ID: the label's bytes
  EXPECT_EQ(first["type"], "rsa:2048");
  EXPECT_EQ(first["bits"], 2048);
  EXPECT_EQ(first["usage"], json::array({"sign"}));
  EXPECT_EQ(first["sensitive"], true);
  EXPECT_EQ(first["extractable"], false);
  EXPECT_EQ(first["never_extractable"], true);
  EXPECT_EQ(second["class"], "public");
  EXPECT_EQ(second["usage"], json::array({"verify"}));
  EXPECT_FALSE(second.contains("sensitive")) << second.dump();

  ProgramResult text = Signet({"list", "--pin", kUserPin});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("private  rsa:2048      6b31             sign"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("sensitive,non-extractable  k1\n"), std::string::npos) << text.out;
}

TEST_F(CliJsonTest, ListNamesEachKeyTypeWithItsSize) {
  const std::vector<std::pair<std::string, int>> types = {
      {"rsa:3072", 3072}, {"ec:p384", 384}, {"ed25519", 256}, {"ed448", 456}, {"x25519", 256}};
  for (const auto& [type, bits] : types) {
    ProgramResult keygen = Signet({"keygen", "--type", type, "--label", type, "--pin", kUserPin});
    ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  }
  const json keys = SignetJson({"list", "--json", "--pin", kUserPin})["keys"];
  ASSERT_EQ(keys.size(), 2 * types.size()) << keys.dump();
  for (const json& key : keys) {
    const std::string label = key["label"];
    EXPECT_EQ(key["type"], label);
    for (const auto& [type, bits] : types) {
      if (type == label) {
        EXPECT_EQ(key["bits"], bits) << label;
      }
    }
    // X25519 agrees on secrets: its private half derives, and neither signs.
    const bool agreement = label == "x25519";
    const bool is_private = key["class"] == "private";
    const json usage = agreement ? (is_private ? json::array({"derive"}) : json::array())
                                 : json::array({is_private ? "sign" : "verify"});
    EXPECT_EQ(key["usage"], usage) << label << " " << key["class"];
  }
}

// A label is the client's text: JSON carries it exactly (a newline stays a
// newline, escaped by JSON), and bytes that are not UTF-8 do not break the
// document.
TEST_F(CliJsonTest, JsonCarriesAnyLabel) {
  const std::string label = "two\nlines \"quoted\" \xff";
  ProgramResult keygen =
      Signet({"keygen", "--type", "ec:p256", "--label", label, "--pin", kUserPin});
  ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  const json keys = SignetJson({"list", "--json", "--pin", kUserPin})["keys"];
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0]["label"], "two\nlines \"quoted\" \xef\xbf\xbd");  // U+FFFD
}

TEST_F(CliJsonTest, StatsAndInfoAsJson) {
  const json stats = SignetJson({"stats", "--json"});
  EXPECT_GT(stats["workers"].get<int>(), 0);
  EXPECT_GT(stats["queue"]["capacity"].get<int>(), 0);
  EXPECT_TRUE(stats["key_pools"].is_array());
  EXPECT_TRUE(stats["phases"].is_array());

  const json info = SignetJson({"info", "--json"});
  EXPECT_EQ(info["server_version"], kVersionString);
  EXPECT_EQ(info["cli_version"], kVersionString);
  bool sha256_rsa = false;
  for (const json& mechanism : info["mechanisms"]) {
    if (mechanism["name"] == "CKM_SHA256_RSA_PKCS") {
      sha256_rsa = true;
      EXPECT_EQ(mechanism["flags"], json::array({"sign", "verify"}));
      EXPECT_EQ(mechanism["min_key_size"], 1024);
    }
  }
  EXPECT_TRUE(sha256_rsa) << info.dump();
  ASSERT_FALSE(info["slots"].empty());
  EXPECT_EQ(info["slots"][0]["label"], kTokenLabel);
}

}  // namespace
}  // namespace signet::e2e
