#include "cli/pin_input.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <termios.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string_view>

namespace signet::cli {
namespace {


// TerminalPrompt reads one line from /dev/tty with echo turned off and
// restores the terminal's mode before returning.
Result<SecureBytes> TerminalPrompt(const char* prompt) {
  int fd = open("/dev/tty", O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    return MakeError(CKR_ARGUMENTS_BAD, "no terminal to prompt on");
  }
  termios saved{};
  bool have_mode = tcgetattr(fd, &saved) == 0;
  if (have_mode) {
    termios silent = saved;
    silent.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    silent.c_lflag |= ECHONL;
    tcsetattr(fd, TCSAFLUSH, &silent);
  }
  (void)!write(fd, prompt, std::strlen(prompt));
  SecureBytes line;
  line.reserve(128);
  char c;
  while (read(fd, &c, 1) == 1 && c != '\n') line.push_back(static_cast<std::uint8_t>(c));
  OPENSSL_cleanse(&c, sizeof(c));
  if (have_mode) tcsetattr(fd, TCSAFLUSH, &saved);
  close(fd);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

Result<SecureBytes> FromSources(const SecretSource& source) {
  if (source.flag != nullptr && source.flag->has_value()) {
    std::string& text = **source.flag;
    SecureBytes value = SecureFromString(text);
    OPENSSL_cleanse(text.data(), text.size());
    return value;
  }
  if (source.env_name != nullptr) {
    if (const char* env = std::getenv(source.env_name); env != nullptr && *env != '\0') {
      return SecureFromString(env);
    }
  }
  Result<SecureBytes> prompted = TerminalPrompt(source.prompt);
  if (!prompted.ok()) {
    std::string how = source.flag_name;
    if (source.env_name != nullptr) how += std::string(" or ") + source.env_name;
    return MakeError(CKR_ARGUMENTS_BAD, std::string(source.prompt) + "not given: use " + how +
                                            ", or run on a terminal");
  }
  SecureBytes first = std::move(*prompted);
  if (source.confirm) {
    std::string again = std::string("Repeat ") + source.prompt;
    SIGNET_ASSIGN_OR_RETURN(SecureBytes second, TerminalPrompt(again.c_str()));
    if (!EqualConstantTime(first, second)) {
      return MakeError(CKR_ARGUMENTS_BAD, "the two entries differ");
    }
  }
  return first;
}

}  // namespace

Result<SecureBytes> ReadSecret(const SecretSource& source) {
  SIGNET_ASSIGN_OR_RETURN(SecureBytes value, FromSources(source));
  if (value.empty()) {
    std::string what = source.prompt != nullptr ? source.prompt : "secret";
    while (!what.empty() && (what.back() == ' ' || what.back() == ':')) what.pop_back();
    return MakeError(CKR_ARGUMENTS_BAD, what + " is empty");
  }
  return value;
}

}  // namespace signet::cli
