// signet/version.hpp, generated from CMakeLists.txt's project() VERSION: the
// text and the numbers say the same version.
#include "signet/version.hpp"

#include <gtest/gtest.h>

#include <string>

namespace signet {
namespace {

TEST(Version, StringIsTheThreeNumbers) {
  EXPECT_EQ(std::string(kVersionString), std::to_string(kVersionMajor) + "." +
                                             std::to_string(kVersionMinor) + "." +
                                             std::to_string(kVersionPatch));
}

}  // namespace
}  // namespace signet
