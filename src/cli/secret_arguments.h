// Secret command-line arguments. A PIN given as `--pin SECRET` is readable
// by every local user in /proc/PID/cmdline (and `ps`) for as long as the
// process runs. ScrubbedArguments takes a private copy of argv and then
// overwrites each secret value in the original argument area, so /proc shows
// "x" characters from then on; the window between exec and its construction
// remains, which is why the CLI warns and the README recommends SIGNET_PIN
// or the prompt. Construct one, first thing in main(); not thread-safe.
#pragma once

#include <string>
#include <vector>

namespace signet::cli {

// ScrubbedArguments: the private copy of argv to parse. The destructor wipes
// every copy (CLI11 keeps its own, wiped by ReadSecret).
class ScrubbedArguments {
 public:
  ScrubbedArguments(int argc, char** argv);
  ~ScrubbedArguments();
  ScrubbedArguments(const ScrubbedArguments&) = delete;
  ScrubbedArguments& operator=(const ScrubbedArguments&) = delete;

  int argc() const { return static_cast<int>(pointers_.size()) - 1; }
  char** argv() { return pointers_.data(); }
  // secret_flags: the secret flags found (e.g. "--pin"), for the warning.
  const std::vector<std::string>& secret_flags() const { return secret_flags_; }

 private:
  std::vector<std::string> copies_;
  std::vector<char*> pointers_;  // into copies_, then a null, like argv
  std::vector<std::string> secret_flags_;
};

// IsSecretFlag: true for the flags whose value is a PIN.
bool IsSecretFlag(const std::string& flag);

}  // namespace signet::cli
