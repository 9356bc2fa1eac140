// HttpGet: one plain-HTTP GET for `signet health`, over a POSIX socket with
// a bound on the whole exchange. Only http:// URLs: the CLI carries no TLS
// of its own outside the client library (for an endpoint behind
// --metrics-tls, probe with curl --cacert). Single-threaded.
#pragma once

#include <chrono>
#include <string>

#include "signet/result.hpp"

namespace signet::cli {

// HttpUrl: the parts of an http:// URL HttpGet uses.
struct HttpUrl {
  std::string host;  // a name or an IP address (IPv6 without brackets)
  std::string port = "80";
  std::string path = "/";
};

// ParseHttpUrl splits "http://HOST[:PORT][/PATH]"; CKR_ARGUMENTS_BAD for
// anything else (https:// included, with what to use instead).
Result<HttpUrl> ParseHttpUrl(const std::string& url);

// HttpReply: the status code and body of a reply.
struct HttpReply {
  int status = 0;
  std::string body;
};

// HttpGet fetches `url` (at most 1 MiB of reply) within `timeout`;
// CKR_DEVICE_ERROR when it cannot connect or the reply is not HTTP.
Result<HttpReply> HttpGet(const HttpUrl& url, std::chrono::milliseconds timeout);

}  // namespace signet::cli
