#include "cli/secret_arguments.h"

#include <string.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace signet::cli {
namespace {

// kSecretFlags: every flag of `signet` whose value is a PIN.
constexpr std::array<std::string_view, 3> kSecretFlags = {"--pin", "--so-pin", "--new-pin"};

// Overwrite replaces the bytes of `value` in argv's own memory with 'x', so
// the length shown in /proc stays but the secret does not.
void Overwrite(char* value) { memset(value, 'x', strlen(value)); }

}  // namespace

bool IsSecretFlag(const std::string& flag) {
  return std::find(kSecretFlags.begin(), kSecretFlags.end(), flag) != kSecretFlags.end();
}

ScrubbedArguments::ScrubbedArguments(int argc, char** argv) {
  copies_.reserve(static_cast<std::size_t>(argc));
  for (int i = 0; i < argc; ++i) copies_.emplace_back(argv[i]);
  for (std::string& copy : copies_) pointers_.push_back(copy.data());
  pointers_.push_back(nullptr);

  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    if (argument == "--") break;  // everything after it is positional
    std::size_t equals = argument.find('=');
    std::string flag = argument.substr(0, equals);
    if (!IsSecretFlag(flag)) continue;
    secret_flags_.push_back(flag);
    if (equals != std::string::npos) {
      Overwrite(argv[i] + equals + 1);  // --pin=SECRET
    } else if (i + 1 < argc) {
      Overwrite(argv[++i]);  // --pin SECRET
    }
    explicit_bzero(argument.data(), argument.size());
  }
}

ScrubbedArguments::~ScrubbedArguments() {
  for (std::string& copy : copies_) explicit_bzero(copy.data(), copy.size());
}

}  // namespace signet::cli
