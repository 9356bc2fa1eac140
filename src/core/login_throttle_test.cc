#include "core/login_throttle.h"

#include <gtest/gtest.h>

namespace signet::core {
namespace {

using namespace std::chrono_literals;

class LoginThrottleTest : public ::testing::Test {
 protected:
  std::chrono::steady_clock::time_point now_{std::chrono::hours(1)};
  LoginThrottle throttle_{1, 500ms, 30s, [this] { return now_; }};
};

TEST_F(LoginThrottleTest, DelayDoublesFromBaseToCap) {
  const std::vector<std::string> keys = {"token", "peer"};
  EXPECT_EQ(throttle_.Wait(keys), 0ms);
  throttle_.Failed(keys);  // the free one: a typo is retried at once
  EXPECT_EQ(throttle_.Wait(keys), 0ms);
  std::chrono::milliseconds expected = 500ms;
  for (int i = 2; i <= 12; ++i) {
    throttle_.Failed(keys);
    EXPECT_EQ(throttle_.Wait(keys), expected) << "failure " << i;
    EXPECT_EQ(throttle_.Wait({"token"}), expected);
    now_ += expected;
    EXPECT_EQ(throttle_.Wait(keys), 0ms);
    expected = std::min<std::chrono::milliseconds>(expected * 2, 30s);
  }
  EXPECT_EQ(throttle_.failures("token"), 12);
}

TEST_F(LoginThrottleTest, WaitIsTheLongestOfTheKeys) {
  for (int i = 0; i < 3; ++i) throttle_.Failed({"a"});  // a: 1 s
  for (int i = 0; i < 2; ++i) throttle_.Failed({"b"});  // b: 0.5 s
  EXPECT_EQ(throttle_.Wait({"b"}), 500ms);
  EXPECT_EQ(throttle_.Wait({"a", "b"}), 1000ms);
  EXPECT_EQ(throttle_.Wait({"c"}), 0ms);
}

TEST_F(LoginThrottleTest, SuccessClearsAndQuietKeysAreForgotten) {
  throttle_.Failed({"a", "b"});
  throttle_.Failed({"a", "b"});
  throttle_.Succeeded({"a"});
  EXPECT_EQ(throttle_.failures("a"), 0);
  EXPECT_EQ(throttle_.Wait({"a"}), 0ms);
  EXPECT_EQ(throttle_.failures("b"), 2);
  EXPECT_EQ(throttle_.Wait({"b"}), 500ms);
  now_ += LoginThrottle::kForgetAfter;
  throttle_.Failed({"b"});
  EXPECT_EQ(throttle_.failures("b"), 1);  // starts again, not at 3
  EXPECT_EQ(throttle_.Wait({"b"}), 0ms);
}

}  // namespace
}  // namespace signet::core
