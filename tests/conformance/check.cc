#include "check.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace signet::conformance {
namespace {

struct RvNameEntry {
  CK_RV rv;
  const char* name;
};

#define RV(code) \
  { code, #code }
constexpr RvNameEntry kRvNames[] = {
    RV(CKR_OK),
    RV(CKR_CANCEL),
    RV(CKR_HOST_MEMORY),
    RV(CKR_SLOT_ID_INVALID),
    RV(CKR_GENERAL_ERROR),
    RV(CKR_FUNCTION_FAILED),
    RV(CKR_ARGUMENTS_BAD),
    RV(CKR_NO_EVENT),
    RV(CKR_NEED_TO_CREATE_THREADS),
    RV(CKR_CANT_LOCK),
    RV(CKR_ATTRIBUTE_READ_ONLY),
    RV(CKR_ATTRIBUTE_SENSITIVE),
    RV(CKR_ATTRIBUTE_TYPE_INVALID),
    RV(CKR_ATTRIBUTE_VALUE_INVALID),
    RV(CKR_ACTION_PROHIBITED),
    RV(CKR_DATA_INVALID),
    RV(CKR_DATA_LEN_RANGE),
    RV(CKR_DEVICE_ERROR),
    RV(CKR_DEVICE_MEMORY),
    RV(CKR_DEVICE_REMOVED),
    RV(CKR_ENCRYPTED_DATA_INVALID),
    RV(CKR_ENCRYPTED_DATA_LEN_RANGE),
    RV(CKR_FUNCTION_CANCELED),
    RV(CKR_FUNCTION_NOT_PARALLEL),
    RV(CKR_FUNCTION_NOT_SUPPORTED),
    RV(CKR_KEY_HANDLE_INVALID),
    RV(CKR_KEY_SIZE_RANGE),
    RV(CKR_KEY_TYPE_INCONSISTENT),
    RV(CKR_KEY_NOT_NEEDED),
    RV(CKR_KEY_CHANGED),
    RV(CKR_KEY_NEEDED),
    RV(CKR_KEY_INDIGESTIBLE),
    RV(CKR_KEY_FUNCTION_NOT_PERMITTED),
    RV(CKR_KEY_NOT_WRAPPABLE),
    RV(CKR_KEY_UNEXTRACTABLE),
    RV(CKR_MECHANISM_INVALID),
    RV(CKR_MECHANISM_PARAM_INVALID),
    RV(CKR_OBJECT_HANDLE_INVALID),
    RV(CKR_OPERATION_ACTIVE),
    RV(CKR_OPERATION_NOT_INITIALIZED),
    RV(CKR_PIN_INCORRECT),
    RV(CKR_PIN_INVALID),
    RV(CKR_PIN_LEN_RANGE),
    RV(CKR_PIN_EXPIRED),
    RV(CKR_PIN_LOCKED),
    RV(CKR_SESSION_CLOSED),
    RV(CKR_SESSION_COUNT),
    RV(CKR_SESSION_HANDLE_INVALID),
    RV(CKR_SESSION_PARALLEL_NOT_SUPPORTED),
    RV(CKR_SESSION_READ_ONLY),
    RV(CKR_SESSION_EXISTS),
    RV(CKR_SESSION_READ_ONLY_EXISTS),
    RV(CKR_SESSION_READ_WRITE_SO_EXISTS),
    RV(CKR_SIGNATURE_INVALID),
    RV(CKR_SIGNATURE_LEN_RANGE),
    RV(CKR_TEMPLATE_INCOMPLETE),
    RV(CKR_TEMPLATE_INCONSISTENT),
    RV(CKR_TOKEN_NOT_PRESENT),
    RV(CKR_TOKEN_NOT_RECOGNIZED),
    RV(CKR_TOKEN_WRITE_PROTECTED),
    RV(CKR_UNWRAPPING_KEY_HANDLE_INVALID),
    RV(CKR_UNWRAPPING_KEY_SIZE_RANGE),
    RV(CKR_UNWRAPPING_KEY_TYPE_INCONSISTENT),
    RV(CKR_USER_ALREADY_LOGGED_IN),
    RV(CKR_USER_NOT_LOGGED_IN),
    RV(CKR_USER_PIN_NOT_INITIALIZED),
    RV(CKR_USER_TYPE_INVALID),
    RV(CKR_USER_ANOTHER_ALREADY_LOGGED_IN),
    RV(CKR_USER_TOO_MANY_TYPES),
    RV(CKR_WRAPPED_KEY_INVALID),
    RV(CKR_WRAPPED_KEY_LEN_RANGE),
    RV(CKR_WRAPPING_KEY_HANDLE_INVALID),
    RV(CKR_WRAPPING_KEY_SIZE_RANGE),
    RV(CKR_WRAPPING_KEY_TYPE_INCONSISTENT),
    RV(CKR_RANDOM_SEED_NOT_SUPPORTED),
    RV(CKR_RANDOM_NO_RNG),
    RV(CKR_DOMAIN_PARAMS_INVALID),
    RV(CKR_CURVE_NOT_SUPPORTED),
    RV(CKR_BUFFER_TOO_SMALL),
    RV(CKR_SAVED_STATE_INVALID),
    RV(CKR_INFORMATION_SENSITIVE),
    RV(CKR_STATE_UNSAVEABLE),
    RV(CKR_CRYPTOKI_NOT_INITIALIZED),
    RV(CKR_CRYPTOKI_ALREADY_INITIALIZED),
    RV(CKR_MUTEX_BAD),
    RV(CKR_MUTEX_NOT_LOCKED),
    RV(CKR_FUNCTION_REJECTED),
};
#undef RV

}  // namespace

std::string RvName(CK_RV rv) {
  for (const RvNameEntry& entry : kRvNames) {
    if (entry.rv == rv) return entry.name;
  }
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%08lX", static_cast<unsigned long>(rv));
  return hex;
}

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
