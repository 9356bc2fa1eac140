#include "daemon/http_request.h"

#include <gtest/gtest.h>

#include <string>

namespace signet::daemon {
namespace {

constexpr std::size_t kMax = 8192;
using State = HttpHead::State;

TEST(HttpRequest, ParsesAGetWithHeadersAndDropsTheQuery) {
  HttpHead head =
      ParseHttpHead("GET /metrics?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\n\r\n", kMax);
  ASSERT_EQ(head.state, State::kComplete) << head.reason;
  EXPECT_EQ(head.method, "GET");
  EXPECT_EQ(head.path, "/metrics");
  EXPECT_EQ(ParseHttpHead("HEAD /readyz HTTP/1.0\r\n\r\n", kMax).method, "HEAD");
}

TEST(HttpRequest, WaitsForTheEndOfTheHead) {
  EXPECT_EQ(ParseHttpHead("", kMax).state, State::kNeedMore);
  EXPECT_EQ(ParseHttpHead("GET /metrics HTTP/1.1\r\nHost: x\r\n", kMax).state, State::kNeedMore);
}

TEST(HttpRequest, AHeadPastTheBoundIsRefused) {
  std::string big = "GET /metrics HTTP/1.1\r\nX: " + std::string(kMax, 'a');
  HttpHead head = ParseHttpHead(big, kMax);
  EXPECT_EQ(head.state, State::kError);
  EXPECT_EQ(head.status, 431);
  // Complete, but longer than the bound: refused too.
  std::string complete = "GET / HTTP/1.1\r\nX: " + std::string(100, 'a') + "\r\n\r\n";
  EXPECT_EQ(ParseHttpHead(complete, 64).status, 431);
}

TEST(HttpRequest, TooManyHeaderLinesAreRefused) {
  std::string many = "GET / HTTP/1.1\r\n";
  for (std::size_t i = 0; i <= kMaxHttpHeaders; ++i) many += "X-" + std::to_string(i) + ": 1\r\n";
  many += "\r\n";
  EXPECT_EQ(ParseHttpHead(many, 1 << 20).status, 431);
}

TEST(HttpRequest, OnlyGetAndHeadOfAPath) {
  EXPECT_EQ(ParseHttpHead("POST /metrics HTTP/1.1\r\n\r\n", kMax).status, 405);
  EXPECT_EQ(ParseHttpHead("GET http://x/metrics HTTP/1.1\r\n\r\n", kMax).status, 400);
  EXPECT_EQ(ParseHttpHead("GET * HTTP/1.1\r\n\r\n", kMax).status, 400);
  std::string long_target = "GET /" + std::string(kMaxHttpTarget, 'a') + " HTTP/1.1\r\n\r\n";
  EXPECT_EQ(ParseHttpHead(long_target, kMax).status, 400);
}

TEST(HttpRequest, MalformedLinesAreRefused) {
  EXPECT_EQ(ParseHttpHead("GET /metrics\r\n\r\n", kMax).status, 400);
  EXPECT_EQ(ParseHttpHead("GET  /metrics HTTP/1.1\r\n\r\n", kMax).status, 400);
  EXPECT_EQ(ParseHttpHead("GET /metrics HTTP/2.0\r\n\r\n", kMax).status, 505);
  EXPECT_EQ(ParseHttpHead("GET /a\x01 HTTP/1.1\r\n\r\n", kMax).status, 400);
  EXPECT_EQ(ParseHttpHead("GET / HTTP/1.1\r\nno colon\r\n\r\n", kMax).status, 400);
  EXPECT_EQ(ParseHttpHead("GET / HTTP/1.1\r\nX: 1\r\n folded\r\n\r\n", kMax).status, 400);
  EXPECT_EQ(ParseHttpHead("GET / HTTP/1.1\r\nBad Name: 1\r\n\r\n", kMax).status, 400);
  EXPECT_EQ(ParseHttpHead("GET / HTTP/1.1\r\nX: a\nb\r\n\r\n", kMax).status, 400);
  EXPECT_EQ(ParseHttpHead(std::string("GET /\0", 6), kMax).status, 400);
}

TEST(HttpRequest, ABodyIsRefused) {
  EXPECT_EQ(ParseHttpHead("GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\n", kMax).status, 413);
  EXPECT_EQ(ParseHttpHead("GET / HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n", kMax).status,
            413);
  EXPECT_EQ(ParseHttpHead("GET / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", kMax).state,
            State::kComplete);
}

}  // namespace
}  // namespace signet::daemon
