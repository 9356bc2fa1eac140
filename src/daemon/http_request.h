// HTTP request heads for the metrics endpoint (metrics_http.h), parsed with
// every byte treated as hostile: only `GET` and `HEAD` of an origin-form
// path, HTTP/1.0 or 1.1, CRLF line ends, at most kMaxHttpHeaders header
// lines, the whole head within a byte bound, and no request body (a
// Content-Length other than 0, or any Transfer-Encoding, is refused). The
// endpoint answers one request per connection and closes it, so nothing
// after the head is ever read.
//
// Pure functions: safe from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace signet::daemon {

// kMaxHttpHeaders: header lines accepted in one request head.
inline constexpr std::size_t kMaxHttpHeaders = 64;
// kMaxHttpTarget: the longest request target accepted.
inline constexpr std::size_t kMaxHttpTarget = 1024;

// HttpHead: the outcome of parsing what a client sent so far.
struct HttpHead {
  enum class State {
    kNeedMore,  // no complete head yet, and still under the byte bound
    kComplete,  // a valid request: method and path are set
    kError,     // answer `status` with `reason` and close
  };
  State state = State::kNeedMore;
  std::string method;  // "GET" or "HEAD"
  std::string path;    // the target without its query ("/metrics")
  int status = 0;      // for kError: 400, 405, 413/431, 505
  std::string reason;  // for kError: one line, for the body
};

// ParseHttpHead parses `buffered`, everything the client sent so far, with
// the head bounded to `max_bytes` (431 past it).
HttpHead ParseHttpHead(std::string_view buffered, std::size_t max_bytes);

// HttpStatusText: "OK", "Not Found", ... for the status codes the endpoint
// sends ("Error" for others).
std::string_view HttpStatusText(int status);

}  // namespace signet::daemon
