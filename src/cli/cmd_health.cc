// `signet health [--url URL]`: asks a signetd's metrics endpoint whether it
// is ready (GET /readyz, daemon/metrics_endpoint.h), for scripts: exit 0
// when it answers 200, 1 otherwise with the reason on stderr.
#include <cstdio>

#include "base/printable.h"
#include "cli/commands.h"
#include "cli/http_get.h"

namespace signet::cli {
namespace {

constexpr const char* kDefaultUrl = "http://127.0.0.1:9464";

Status RunHealth(const std::string& url_text) {
  SIGNET_ASSIGN_OR_RETURN(HttpUrl url, ParseHttpUrl(url_text));
  if (url.path == "/") url.path = "/readyz";
  SIGNET_ASSIGN_OR_RETURN(HttpReply reply, HttpGet(url, std::chrono::seconds(10)));
  std::string line = reply.body.substr(0, reply.body.find('\n'));
  if (reply.status != 200) {
    return MakeError(CKR_DEVICE_ERROR, "HTTP " + std::to_string(reply.status) + ": " +
                                           (line.empty() ? "no reason given" : line));
  }
  std::printf("%s\n", PrintableText(line.empty() ? "ready" : line).c_str());
  return OkStatus();
}

}  // namespace

void AddHealthCommand(CLI::App& app, GlobalOptions&, CommandAction* selected) {
  auto* health = app.add_subcommand(
      "health",
      "Ask signetd's metrics endpoint (--metrics-listen) whether it is ready: exit 0 "
      "when /readyz answers 200, else 1 with the reason");
  auto url = std::make_shared<std::string>(kDefaultUrl);
  health->add_option("--url", *url, "the endpoint, http://HOST:PORT (path /readyz unless given)")
      ->capture_default_str();
  health->callback([selected, url] { *selected = [url] { return RunHealth(*url); }; });
}

}  // namespace signet::cli
