// PIN input for the signet CLI: from a command-line flag, an environment
// variable, or a no-echo prompt on the controlling terminal, in that order.
// PINs are returned in SecureBytes and never written anywhere but the
// terminal's echo-less input. Not thread-safe (touches terminal state).
#pragma once

#include <optional>
#include <string>

#include "base/secure_bytes.h"
#include "signet/result.hpp"

namespace signet::cli {

// SecretSource: where one secret may come from.
struct SecretSource {
  // flag: the value given on the command line, if any. Wiped (overwritten
  // in place) by ReadSecret so the copy CLI11 made does not linger.
  std::optional<std::string>* flag = nullptr;
  const char* flag_name = nullptr;  // e.g. "--pin", for error messages
  const char* env_name = nullptr;   // e.g. "SIGNET_PIN"; null: none
  const char* prompt = nullptr;    // e.g. "User PIN: "
  bool confirm = false;            // prompt twice and compare (new PINs)
};

// ReadSecret returns the secret from the first source that has one.
// CKR_ARGUMENTS_BAD when the value is empty, when no source has it and there
// is no terminal to prompt on, or when the two prompted entries differ.
Result<SecureBytes> ReadSecret(const SecretSource& source);

}  // namespace signet::cli
