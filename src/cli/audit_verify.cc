#include "cli/audit_verify.h"

#include <nlohmann/json.hpp>
#include <string_view>

#include "base/audit_format.h"
#include "base/hex.h"
#include "base/secure_bytes.h"
#include "crypto/digest.h"

namespace signet::cli {
namespace {

namespace fmt = audit_format;
using Json = nlohmann::json;

// Line: one line of a file, parsed.
struct Line {
  std::string_view text;  // without its newline
  bool complete = false;  // ended by a newline
  std::string hash;
  Json json;
  std::string invalid;  // why it is not a record; empty when it is
};

std::string Sha256Hex(std::string_view text) {
  auto digest = crypto::Digest(DigestAlg::kSha256, AsBytes(text));
  return digest.ok() ? ToHex(*digest) : std::string();
}

bool IsHash(const Json& value) {
  if (!value.is_string()) return false;
  const std::string& text = value.get_ref<const std::string&>();
  return text.size() == fmt::kHashHexLength && FromHex(text).has_value();
}

// Field: `object`'s member `name`, null when it has none (a const
// operator[] must not be asked for a missing member).
Json Field(const Json& object, std::string_view name) {
  auto it = object.find(name);
  return it == object.end() ? Json() : *it;
}

std::string Text(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// FlatOnly keeps a record's scalar members and drops any nested array or
// object: records are flat, and a hostile file's deeply nested value would
// otherwise be copied recursively (a stack overflow) once parsed.
bool FlatOnly(int depth, Json::parse_event_t event, Json&) {
  const bool nested =
      event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start;
  return !(nested && depth >= 1);
}

Line Parse(std::string_view text, bool complete) {
  Line line{text, complete, Sha256Hex(text), Json::parse(text, FlatOnly, false), ""};
  if (line.json.is_discarded() || !line.json.is_object()) {
    line.invalid = "not a JSON object";
  } else if (!line.json.contains(fmt::kSeq) || !line.json[fmt::kSeq].is_number_unsigned()) {
    line.invalid = "no seq number";
  } else if (!line.json.contains(fmt::kTime) || !line.json[fmt::kTime].is_string()) {
    line.invalid = "no time";
  } else if (!line.json.contains(fmt::kPrev) || !IsHash(line.json[fmt::kPrev])) {
    line.invalid = "no prev hash";
  }
  if (!line.invalid.empty()) {
    line.json = Json();
    return line;
  }
  // Keep only what the checks read: a long log's records stay small in memory.
  Json kept = Json::object();
  for (std::string_view name :
       {fmt::kSeq, fmt::kPrev, fmt::kEvent, fmt::kStart, fmt::kPreviousLastHash}) {
    if (auto it = line.json.find(name); it != line.json.end()) kept[std::string(name)] = *it;
  }
  line.json = std::move(kept);
  return line;
}

std::vector<Line> SplitLines(const std::string& bytes) {
  std::vector<Line> lines;
  std::size_t at = 0;
  while (at < bytes.size()) {
    std::size_t end = bytes.find('\n', at);
    bool complete = end != std::string::npos;
    if (!complete) end = bytes.size();
    lines.push_back(Parse(std::string_view(bytes).substr(at, end - at), complete));
    at = end + 1;
  }
  return lines;
}

bool IsEvent(const Line& line, std::string_view event) {
  return line.invalid.empty() && Field(line.json, fmt::kEvent) == event;
}

std::uint64_t Seq(const Line& line) { return line.json.at(fmt::kSeq).get<std::uint64_t>(); }

std::string Prev(const Line& line) { return line.json.at(fmt::kPrev).get<std::string>(); }

// FileCheck: one file's lines and the checks within it.
class FileCheck {
 public:
  explicit FileCheck(const AuditLogFile& file) : name_(file.name), lines_(SplitLines(file.bytes)) {}

  // Check returns the file's first break within itself.
  std::optional<AuditBreak> Check() const {
    if (lines_.empty()) return Break(1, "empty file: no audit_log_start header");
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      if (auto broken = CheckLine(i)) return broken;
    }
    return std::nullopt;
  }

  const std::vector<Line>& lines() const { return lines_; }
  bool closed() const { return IsEvent(lines_.back(), fmt::kEndEvent); }
  const Json& header() const { return lines_.front().json; }

  AuditBreak Break(std::size_t line, std::string reason) const {
    return AuditBreak{name_, line, std::move(reason)};
  }

 private:
  std::optional<AuditBreak> CheckLine(std::size_t i) const {
    const Line& line = lines_[i];
    const std::size_t n = i + 1;
    if (!line.complete) {
      return Break(n, "truncated: the last line has no newline (the file was cut inside it)");
    }
    if (!line.invalid.empty()) return Break(n, line.invalid + ": the line was changed or damaged");
    if (Seq(line) != i) return SeqBreak(i);
    if (i == 0) {
      if (!IsEvent(line, fmt::kStartEvent) || !IsHash(Field(line.json, fmt::kStart))) {
        return Break(n, "line 1 is not an audit_log_start header with a start");
      }
      if (Prev(line) != Field(line.json, fmt::kStart)) {
        return Break(n, "the header's prev is not its start: the header was changed");
      }
      return std::nullopt;
    }
    if (IsEvent(line, fmt::kStartEvent)) return Break(n, "a second header inside the file");
    if (IsEvent(lines_[i - 1], fmt::kEndEvent)) {
      return Break(n, "a line after the end record (line " + std::to_string(i) + ")");
    }
    if (Prev(line) != lines_[i - 1].hash) return PrevBreak(i);
    return std::nullopt;
  }

  // SeqBreak: line i carries another seq than i: lines deleted or moved.
  AuditBreak SeqBreak(std::size_t i) const {
    const std::uint64_t seq = Seq(lines_[i]);
    const std::string here =
        "seq " + std::to_string(seq) + " where " + std::to_string(i) + " was expected";
    for (std::size_t j = 0; j < lines_.size(); ++j) {
      if (j != i && lines_[j].invalid.empty() && Seq(lines_[j]) == i) {
        return Break(i + 1, "out of order: " + here + " (seq " + std::to_string(i) +
                                " is at line " + std::to_string(j + 1) + ")");
      }
    }
    if (seq < i) return Break(i + 1, "out of order: " + here);
    if (i == 0) return Break(1, "the header (seq 0) is missing: " + here);
    return Break(i + 1, "line(s) missing: " + here + " (seq " + std::to_string(i) +
                            (seq - i > 1 ? ".." + std::to_string(seq - 1) : "") + " deleted)");
  }

  // PrevBreak: line i does not record the hash of line i - 1. Line i - 1
  // was changed if line i + 1 still records line i's hash (line i is
  // intact); otherwise line i was (its prev), as line i + 1 no longer
  // matches it either.
  AuditBreak PrevBreak(std::size_t i) const {
    const Line& line = lines_[i];
    const std::string recorded = "line " + std::to_string(i + 1) + " records hash " + Prev(line) +
                                 " for it, its bytes hash to " + lines_[i - 1].hash;
    const bool has_next = i + 1 < lines_.size() && lines_[i + 1].invalid.empty();
    if (has_next && Prev(lines_[i + 1]) != line.hash) {
      return Break(i + 1, "line " + std::to_string(i + 1) + " was changed: its prev does not " +
                              "match line " + std::to_string(i) + " and line " +
                              std::to_string(i + 2) + " does not match it");
    }
    std::string reason = "line " + std::to_string(i) + " was changed: " + recorded;
    if (!has_next)
      reason += " (or line " + std::to_string(i + 1) + "'s prev was: nothing after it tells)";
    return Break(i, reason);
  }

  std::string name_;
  std::vector<Line> lines_;
};

// LinkBreak: whether `next` continues `previous` (both intact within).
std::optional<AuditBreak> LinkBreak(const FileCheck& previous, const std::string& previous_name,
                                    const FileCheck& next) {
  const Json recorded = Field(next.header(), fmt::kPreviousLastHash);
  const std::string& last = previous.lines().back().hash;
  if (recorded.is_null() || !recorded.is_string()) {
    return next.Break(
        1, "starts a new log (no previous_last_hash), so it does not continue " + previous_name);
  }
  if (recorded == last) return std::nullopt;
  const std::size_t end = previous.lines().size();
  if (!previous.closed()) {
    return previous.Break(end + 1, "line(s) missing from the end: the file stops after line " +
                                       std::to_string(end) + " without an end record, and the " +
                                       "next file's header records " + Text(recorded) +
                                       " as its last line hash, not " + last);
  }
  return next.Break(1, "does not continue " + previous_name + ": its previous_last_hash " +
                           Text(recorded) + " is not the hash of that file's last line (" + last +
                           "): a file is missing between them, or they are out of order");
}

AuditFileSummary Summary(const std::string& name, const FileCheck& check) {
  return AuditFileSummary{name, check.lines().size(), Text(Field(check.header(), fmt::kStart)),
                          check.lines().back().hash, check.closed()};
}

}  // namespace

AuditVerification VerifyAuditLog(const std::vector<AuditLogFile>& files) {
  AuditVerification v;
  std::optional<FileCheck> previous;
  for (std::size_t f = 0; f < files.size(); ++f) {
    FileCheck check(files[f]);
    std::optional<AuditBreak> inner = check.Check();
    // The header itself first, then the link to the file before, then the rest.
    if (inner && inner->line == 1) {
      v.broken = inner;
      return v;
    }
    if (previous) {
      v.broken = LinkBreak(*previous, files[f - 1].name, check);
      if (v.broken) return v;
      if (!previous->closed()) {
        v.notes.push_back(files[f - 1].name + ": no end record; " + files[f].name +
                          " continues from its last line (its daemon stopped without closing it: "
                          "killed)");
      }
    } else if (Field(check.header(), fmt::kPreviousLastHash).is_string()) {
      v.notes.push_back(files[f].name + ": continues an earlier file (not given) whose last line " +
                        "hashes to " + Text(Field(check.header(), fmt::kPreviousLastHash)));
    }
    if (inner) {
      v.broken = inner;
      return v;
    }
    v.files.push_back(Summary(files[f].name, check));
    v.records += check.lines().size();
    if (f == 0) v.start = v.files.back().start;
    v.last_hash = v.files.back().last_hash;
    previous.emplace(std::move(check));
  }
  if (previous && !previous->closed()) {
    v.notes.push_back(files.back().name + ": open: no end record (daemon running or killed)");
  }
  return v;
}

}  // namespace signet::cli
