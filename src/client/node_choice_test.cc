#include "client/node_choice.h"

#include <gtest/gtest.h>

#include <map>
#include <thread>

namespace signet::client {
namespace {

TEST(NodeChoiceTest, SplitsTrimsAndDropsEmptyEntries) {
  EXPECT_EQ(SplitAddresses("tcp://a:1, tcp://b:2 ,,/run/c.sock"),
            (std::vector<std::string>{"tcp://a:1", "tcp://b:2", "/run/c.sock"}));
  EXPECT_EQ(SplitAddresses("/one.sock"), std::vector<std::string>{"/one.sock"});
  EXPECT_TRUE(SplitAddresses(" , ").empty());
}

TEST(NodeChoiceTest, NewConnectionsGoRoundTheNodes) {
  const std::vector<std::string> nodes = {"/rr/a", "/rr/b", "/rr/c"};
  std::map<std::string, int> first;
  for (int i = 0; i < 30; ++i) {
    std::vector<std::string> order = ConnectOrder(nodes);
    ASSERT_EQ(order.size(), 3u);
    ++first[order.front()];
  }
  EXPECT_EQ(first["/rr/a"], 10);
  EXPECT_EQ(first["/rr/b"], 10);
  EXPECT_EQ(first["/rr/c"], 10);
}

TEST(NodeChoiceTest, ANodeThatFailedGoesLastUntilItsTimeIsUp) {
  const std::vector<std::string> nodes = {"/down/a", "/down/b", "/down/c"};
  MarkNodeDown("/down/b");
  for (int i = 0; i < 6; ++i) EXPECT_EQ(ConnectOrder(nodes).back(), "/down/b");
  std::this_thread::sleep_for(kNodeRetryAfter + std::chrono::milliseconds(50));
  int first = 0;
  for (int i = 0; i < 6; ++i) first += ConnectOrder(nodes).front() == "/down/b";
  EXPECT_EQ(first, 2) << "a node back after its time takes its turn again";
  MarkNodeDown("/down/a");
  MarkNodeUp("/down/a");
  for (int i = 0; i < 6; ++i) first += ConnectOrder(nodes).front() == "/down/a";
  EXPECT_GT(first, 2) << "a node that answered is healthy at once";
}

}  // namespace
}  // namespace signet::client
