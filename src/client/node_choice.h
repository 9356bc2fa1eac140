// Node choice: a ConnectOptions address may list several signetd nodes of
// one shared keystore ("tcp://a:7300,tcp://b:7300"; docs/SCALING.md).
// Client::Connect tries them in ConnectOrder: the nodes not marked down,
// from a position that moves by one per connection and starts at random
// in each process (so many processes spread over the nodes), then the ones
// marked down as a last resort. A node that refused or broke a connection
// is marked down for kNodeRetryAfter, then tried in turn again, so a node
// that comes back takes new connections again.
//
// Thread contract: the marks are process-wide, behind one mutex; every
// function is safe from any thread.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace signet::client {

// kNodeRetryAfter: how long a node that failed stays at the back of the
// order.
inline constexpr std::chrono::milliseconds kNodeRetryAfter{1000};

// SplitAddresses: the comma-separated addresses of `list`, blanks around
// them trimmed, empty entries dropped.
std::vector<std::string> SplitAddresses(std::string_view list);

// ConnectOrder: the order to try `addresses` in for one new connection.
std::vector<std::string> ConnectOrder(const std::vector<std::string>& addresses);

// MarkNodeDown / MarkNodeUp record that `address` failed / answered.
void MarkNodeDown(const std::string& address);
void MarkNodeUp(const std::string& address);

}  // namespace signet::client
