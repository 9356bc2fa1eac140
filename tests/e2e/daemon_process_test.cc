// The running signetd, seen from outside: it has hardened its own process
// (daemon/process_hardening.h), so /proc shows a core-file limit of 0.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "daemon_fixture.h"

namespace signet::e2e {
namespace {

using DaemonProcessTest = DaemonTest;

TEST_F(DaemonProcessTest, SignetdAllowsNoCoreFiles) {
  ASSERT_TRUE(daemon_.running());
  std::ifstream limits("/proc/" + std::to_string(daemon_.pid()) + "/limits");
  ASSERT_TRUE(limits.good());
  std::string line;
  bool found = false;
  while (std::getline(limits, line)) {
    if (line.rfind("Max core file size", 0) != 0) continue;
    found = true;
    std::istringstream fields(line.substr(sizeof("Max core file size") - 1));
    std::string soft, hard;
    fields >> soft >> hard;
    EXPECT_EQ(soft, "0") << line;
    EXPECT_EQ(hard, "0") << line;
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace signet::e2e
