#include "check.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "base/rv_names.h"

namespace signet::conformance {

std::string RvName(CK_RV rv) { return RvToString(rv); }

Suite::Suite(CK_FUNCTION_LIST_PTR functions, Options options)
    : p11_(functions), options_(std::move(options)) {}

bool Suite::Selected(const std::string& prefix) const {
  const std::string& only = options_.only;
  return only.empty() || prefix.compare(0, only.size(), only) == 0 ||
         only.compare(0, prefix.size(), prefix) == 0;
}

bool Suite::Rv(const std::string& id, const char* section, CK_RV expected, CK_RV got) {
  return Record(id, section, got == expected, RvName(expected), RvName(got));
}

bool Suite::RvIn(const std::string& id, const char* section, std::initializer_list<CK_RV> allowed,
                 CK_RV got) {
  bool ok = false;
  std::string expected;
  for (CK_RV rv : allowed) {
    ok = ok || rv == got;
    expected += (expected.empty() ? "" : "|") + RvName(rv);
  }
  return Record(id, section, ok, expected, RvName(got));
}

bool Suite::True(const std::string& id, const char* section, bool ok, const std::string& expected,
                 const std::string& got) {
  return Record(id, section, ok, expected, got);
}

void Suite::Skip(const std::string& id, const std::string& reason) {
  if (!Selected(id)) return;
  ++skipped_;
  std::printf("%s SKIP %s\n", id.c_str(), reason.c_str());
}

bool Suite::Record(const std::string& id, const char* section, bool ok, const std::string& expected,
                   const std::string& got) {
  if (!Selected(id)) return ok;
  if (!seen_.insert(id).second) {
    // Two checks under one id would make the expectations ambiguous.
    std::printf("%s FAIL duplicate check id (suite bug)\n", id.c_str());
    failed_.push_back(id + "#duplicate");
    return ok;
  }
  std::printf("%s %s expected %s got %s [PKCS#11 v2.40 %s]\n", id.c_str(), ok ? "PASS" : "FAIL",
              expected.c_str(), got.c_str(), section);
  std::fflush(stdout);
  if (ok) {
    ++passed_;
  } else {
    failed_.push_back(id);
  }
  return ok;
}

std::map<std::string, std::string> ReadExpectations(const std::string& path, std::string* error) {
  std::map<std::string, std::string> ids;
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read " + path;
    return ids;
  }
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string id;
    if (!(words >> id) || id[0] == '#') continue;
    std::string reason;
    std::getline(words, reason);
    ids[id] = reason;
  }
  return ids;
}

int Suite::Finish() {
  std::printf("summary: %d passed, %zu failed, %d skipped\n", passed_, failed_.size(), skipped_);
  if (options_.expect_file.empty()) return failed_.empty() ? 0 : 1;

  std::string error;
  std::map<std::string, std::string> expected = ReadExpectations(options_.expect_file, &error);
  if (!error.empty()) {
    std::printf("error: %s\n", error.c_str());
    return 2;
  }
  int mismatches = 0;
  for (const std::string& id : failed_) {
    if (expected.count(id) == 0) {
      std::printf("UNEXPECTED FAIL %s (not in %s)\n", id.c_str(), options_.expect_file.c_str());
      ++mismatches;
    }
  }
  std::set<std::string> failed(failed_.begin(), failed_.end());
  for (const auto& [id, reason] : expected) {
    if (!Selected(id) || failed.count(id) != 0) continue;
    if (seen_.count(id) != 0) {
      std::printf("UNEXPECTED PASS %s: remove it from %s\n", id.c_str(),
                  options_.expect_file.c_str());
    } else {
      std::printf("STALE %s: listed in %s but no such check ran\n", id.c_str(),
                  options_.expect_file.c_str());
    }
    ++mismatches;
  }
  std::printf("expectations: %zu listed, %d mismatches\n", expected.size(), mismatches);
  return mismatches == 0 ? 0 : 1;
}

}  // namespace signet::conformance
