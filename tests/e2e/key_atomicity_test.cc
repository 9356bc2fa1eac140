// Issue 10 defects 13 and 8 with the real CLI and daemon: concurrent
// `signet keygen --label x` make exactly one key pair (the label check and
// the creation are one step in the daemon); import and delete move both
// halves together.
#include <algorithm>
#include <sstream>
#include <thread>

#include "daemon_fixture.h"

namespace signet::e2e {
namespace {

class KeyAtomicityTest : public DaemonTest {
 protected:
  ProgramResult SignetWithPin(std::vector<std::string> args) {
    args.insert(args.end(), {"--pin", kUserPin});
    return Signet(std::move(args));
  }

  // ObjectsLabelled counts the lines of `signet list` whose label is `label`.
  int ObjectsLabelled(const std::string& label) {
    ProgramResult list = SignetWithPin({"list"});
    EXPECT_EQ(list.exit_code, 0) << list.err;
    std::istringstream lines(list.out);
    std::string line;
    int count = 0;
    while (std::getline(lines, line)) {
      if (line.size() > label.size() && line.compare(line.size() - label.size() - 1,
                                                     label.size() + 1, " " + label) == 0) {
        ++count;
      }
    }
    return count;
  }
};

// Before the fix each CLI looked the label up, found nothing, and then
// generated: six racing keygens made up to 8 objects labelled "x".
TEST_F(KeyAtomicityTest, ConcurrentKeygensWithOneLabelMakeOnePair) {
  constexpr int kRacers = 6;
  std::vector<ProgramResult> results(kRacers);
  std::vector<std::thread> threads;
  for (int i = 0; i < kRacers; ++i) {
    threads.emplace_back([this, &results, i] {
      // RSA keeps each generation long enough that all six overlap.
      results[i] = SignetWithPin({"keygen", "--type", "rsa:2048", "--label", "x"});
    });
  }
  for (auto& t : threads) t.join();
  int ok = 0;
  for (const ProgramResult& r : results) {
    if (r.exit_code == 0) {
      ++ok;
    } else {
      EXPECT_NE(r.err.find("a key labelled 'x' already exists"), std::string::npos) << r.err;
    }
  }
  EXPECT_EQ(ok, 1);
  EXPECT_EQ(ObjectsLabelled("x"), 2);
  // And the one pair is usable by label.
  std::string msg = Path("m.txt");
  WriteTextFile(msg, "one pair\n");
  ProgramResult sign = SignetWithPin(
      {"sign", "--label", "x", "--mech", "rsa-pkcs1-sha256", "--in", msg, "--out", Path("m.sig")});
  EXPECT_EQ(sign.exit_code, 0) << sign.err;
}

TEST_F(KeyAtomicityTest, ImportAndDeleteMoveBothHalves) {
  std::string pem = Path("k.pem");
  ProgramResult made = OpenSsl({"genpkey", "-algorithm", "EC", "-pkeyopt",
                                "ec_paramgen_curve:P-256", "-out", pem});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ProgramResult imported = SignetWithPin({"import", "--in", pem, "--label", "imp"});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_EQ(ObjectsLabelled("imp"), 2);
  // A second import (or keygen) under the label is refused by the daemon.
  ProgramResult again = SignetWithPin({"import", "--in", pem, "--label", "imp"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("a key labelled 'imp' already exists"), std::string::npos)
      << again.err;
  ProgramResult keygen = SignetWithPin({"keygen", "--type", "ec:p256", "--label", "imp"});
  EXPECT_EQ(keygen.exit_code, 1);
  EXPECT_EQ(ObjectsLabelled("imp"), 2);

  ProgramResult deleted = SignetWithPin({"delete", "--label", "imp"});
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_EQ(ObjectsLabelled("imp"), 0);
  // The label is free again.
  EXPECT_EQ(SignetWithPin({"import", "--in", pem, "--label", "imp"}).exit_code, 0);
  EXPECT_NE(daemon_.log().find("op=create_objects"), std::string::npos);
  EXPECT_NE(daemon_.log().find("op=destroy_objects"), std::string::npos);
}

}  // namespace
}  // namespace signet::e2e
