#include "daemon/http_request.h"

#include <algorithm>
#include <cctype>

namespace signet::daemon {
namespace {

HttpHead Refuse(int status, std::string reason) {
  HttpHead head;
  head.state = HttpHead::State::kError;
  head.status = status;
  head.reason = std::move(reason);
  return head;
}

// IsTokenChar: RFC 9110 tchar (header names).
bool IsTokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// ParseRequestLine fills method and path from "METHOD SP TARGET SP VERSION".
HttpHead ParseRequestLine(std::string_view line) {
  std::size_t sp1 = line.find(' ');
  std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return Refuse(400, "malformed request line");
  }
  std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    return version.substr(0, 5) == "HTTP/" ? Refuse(505, "only HTTP/1.0 and HTTP/1.1")
                                           : Refuse(400, "malformed request line");
  }
  if (target.empty() || target.front() != '/' || target.size() > kMaxHttpTarget) {
    return Refuse(
        400, "the target must be a path of at most " + std::to_string(kMaxHttpTarget) + " bytes");
  }
  for (char c : target) {
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
      return Refuse(400, "the target has a byte that is not printable ASCII");
    }
  }
  if (method != "GET" && method != "HEAD") return Refuse(405, "only GET and HEAD");
  HttpHead head;
  head.state = HttpHead::State::kComplete;
  head.method = std::string(method);
  head.path = std::string(target.substr(0, target.find('?')));
  return head;
}

}  // namespace

HttpHead ParseHttpHead(std::string_view buffered, std::size_t max_bytes) {
  const std::size_t end = buffered.find("\r\n\r\n");
  if (end == std::string_view::npos || end + 4 > max_bytes) {
    if (buffered.size() >= max_bytes) {
      return Refuse(431, "request head larger than " + std::to_string(max_bytes) + " bytes");
    }
    // A bare NUL can never become valid: refuse before waiting for more.
    if (buffered.find('\0') != std::string_view::npos) return Refuse(400, "NUL byte in the head");
    return HttpHead{};
  }
  std::string_view rest = buffered.substr(0, end + 2);  // each line ends in CRLF
  std::size_t eol = rest.find("\r\n");
  HttpHead head = ParseRequestLine(rest.substr(0, eol));
  if (head.state != HttpHead::State::kComplete) return head;
  rest.remove_prefix(eol + 2);
  std::size_t headers = 0;
  while (!rest.empty()) {
    eol = rest.find("\r\n");
    std::string_view line = rest.substr(0, eol);
    rest.remove_prefix(eol + 2);
    if (++headers > kMaxHttpHeaders) {
      return Refuse(431, "more than " + std::to_string(kMaxHttpHeaders) + " header lines");
    }
    std::size_t colon = line.find(':');
    if (colon == 0 || colon == std::string_view::npos ||
        !std::all_of(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(colon),
                     IsTokenChar)) {
      return Refuse(400, "malformed header line");  // also obsolete line folding
    }
    std::string_view name = line.substr(0, colon);
    std::string_view value = Trim(line.substr(colon + 1));
    for (char c : value) {
      if (c == '\r' || c == '\n' || c == '\0') return Refuse(400, "control byte in a header");
    }
    if (EqualsIgnoreCase(name, "Transfer-Encoding") ||
        (EqualsIgnoreCase(name, "Content-Length") && value != "0")) {
      return Refuse(413, "requests carry no body here");
    }
  }
  return head;
}

std::string_view HttpStatusText(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 413:
      return "Content Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Error";
  }
}

}  // namespace signet::daemon
