// `signet audit verify FILE...`: checks signetd's chained audit log
// (cli/audit_verify.h) offline, files oldest first (FILE.<time>... then
// FILE). Exit 0 with "N records, chain intact from START to LAST" when
// whole; exit 1 naming the first broken line as FILE:LINE and why. Needs
// no daemon.
#include <cstdio>
#include <memory>

#include "base/printable.h"
#include "cli/audit_verify.h"
#include "cli/commands.h"
#include "cli/file_io.h"
#include "cli/output.h"

namespace signet::cli {
namespace {

Json VerificationJson(const AuditVerification& v) {
  Json files = Json::array();
  for (const AuditFileSummary& file : v.files) {
    files.push_back({{"file", file.name},
                     {"records", file.records},
                     {"start", file.start},
                     {"last_hash", file.last_hash},
                     {"closed", file.closed}});
  }
  Json out = {{"intact", !v.broken.has_value()}};
  if (v.broken) {
    out["file"] = v.broken->file;
    out["line"] = v.broken->line;
    out["reason"] = v.broken->reason;
  }
  out["records"] = v.records;
  out["start"] = v.start;
  out["last_hash"] = v.last_hash;
  out["files"] = std::move(files);
  out["notes"] = v.notes;
  return out;
}

Status RunVerify(const std::vector<std::string>& paths, bool json) {
  std::vector<AuditLogFile> files;
  for (const std::string& path : paths) {
    SIGNET_ASSIGN_OR_RETURN(client::Bytes bytes, ReadFile(path));
    files.push_back({path, std::string(bytes.begin(), bytes.end())});
  }
  AuditVerification v = VerifyAuditLog(files);
  if (json) {
    PrintJson(VerificationJson(v));
  } else {
    for (const std::string& note : v.notes) std::printf("%s\n", PrintableText(note).c_str());
  }
  if (v.broken) {
    return MakeError(CKR_DATA_INVALID, v.broken->file + ":" + std::to_string(v.broken->line) +
                                           ": " + v.broken->reason);
  }
  if (!json) {
    std::printf("%zu records, chain intact from %s to %s\n", v.records, v.start.c_str(),
                v.last_hash.c_str());
  }
  return OkStatus();
}

}  // namespace

void AddAuditCommands(CLI::App& app, GlobalOptions& /*global*/, CommandAction* selected) {
  CLI::App* audit = app.add_subcommand("audit", "signetd's audit log (--audit-log FILE)");
  audit->require_subcommand(1);
  audit->fallthrough();
  CLI::App* verify = audit->add_subcommand(
      "verify",
      "Check the hash chain of audit log files, oldest first (FILE.<time>... FILE); exit 1 "
      "at the first broken line");
  verify->fallthrough();
  auto paths = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  verify->add_option("files", *paths, "audit log files, oldest first")->required();
  verify->add_flag("--json", *json, "Print JSON");
  verify->callback(
      [paths, json, selected] { *selected = [paths, json] { return RunVerify(*paths, *json); }; });
}

}  // namespace signet::cli
