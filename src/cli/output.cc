#include "cli/output.h"

#include <cstdio>
#include <utility>

namespace signet::cli {
namespace {

// FlagRow: one flag bit and its name.
using FlagRow = std::pair<CK_FLAGS, const char*>;

constexpr FlagRow kTokenFlags[] = {
    {CKF_RNG, "rng"},
    {CKF_WRITE_PROTECTED, "write-protected"},
    {CKF_LOGIN_REQUIRED, "login-required"},
    {CKF_USER_PIN_INITIALIZED, "user-pin-initialized"},
    {CKF_RESTORE_KEY_NOT_NEEDED, "restore-key-not-needed"},
    {CKF_CLOCK_ON_TOKEN, "clock-on-token"},
    {CKF_PROTECTED_AUTHENTICATION_PATH, "protected-authentication-path"},
    {CKF_DUAL_CRYPTO_OPERATIONS, "dual-crypto-operations"},
    {CKF_TOKEN_INITIALIZED, "token-initialized"},
    {CKF_SECONDARY_AUTHENTICATION, "secondary-authentication"},
    {CKF_USER_PIN_COUNT_LOW, "user-pin-count-low"},
    {CKF_USER_PIN_FINAL_TRY, "user-pin-final-try"},
    {CKF_USER_PIN_LOCKED, "user-pin-locked"},
    {CKF_USER_PIN_TO_BE_CHANGED, "user-pin-to-be-changed"},
    {CKF_SO_PIN_COUNT_LOW, "so-pin-count-low"},
    {CKF_SO_PIN_FINAL_TRY, "so-pin-final-try"},
    {CKF_SO_PIN_LOCKED, "so-pin-locked"},
    {CKF_SO_PIN_TO_BE_CHANGED, "so-pin-to-be-changed"},
};

constexpr FlagRow kMechanismFlags[] = {
    {CKF_HW, "hw"},
    {CKF_ENCRYPT, "encrypt"},
    {CKF_DECRYPT, "decrypt"},
    {CKF_DIGEST, "digest"},
    {CKF_SIGN, "sign"},
    {CKF_SIGN_RECOVER, "sign-recover"},
    {CKF_VERIFY, "verify"},
    {CKF_VERIFY_RECOVER, "verify-recover"},
    {CKF_GENERATE, "generate"},
    {CKF_GENERATE_KEY_PAIR, "generate-key-pair"},
    {CKF_WRAP, "wrap"},
    {CKF_UNWRAP, "unwrap"},
    {CKF_DERIVE, "derive"},
    {CKF_EC_F_P, "ec-f-p"},
    {CKF_EC_NAMEDCURVE, "ec-namedcurve"},
    {CKF_EC_UNCOMPRESS, "ec-uncompress"},
    {CKF_EC_COMPRESS, "ec-compress"},
};

template <std::size_t N>
std::vector<std::string> Names(CK_FLAGS flags, const FlagRow (&table)[N]) {
  std::vector<std::string> names;
  for (const auto& [bit, name] : table) {
    if ((flags & bit) != 0) names.emplace_back(name);
  }
  return names;
}

}  // namespace

std::vector<std::string> TokenFlagNames(CK_FLAGS flags) { return Names(flags, kTokenFlags); }

std::vector<std::string> MechanismFlagNames(CK_FLAGS flags) {
  return Names(flags, kMechanismFlags);
}

std::string JoinNames(const std::vector<std::string>& names) {
  if (names.empty()) return "-";
  std::string joined;
  for (const std::string& name : names) joined += (joined.empty() ? "" : ",") + name;
  return joined;
}

void PrintJson(const Json& document) {
  const std::string text =
      document.dump(2, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fputc('\n', stdout);
}

}  // namespace signet::cli
