#include "daemon/login_ticket_key.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <string_view>

#include "base/hex.h"
#include "core/login_ticket.h"

namespace signet::daemon {

namespace {

// kLineSize: 64 hex digits and a newline.
constexpr std::size_t kLineSize = 2 * core::kLoginTicketKeySize + 1;

}  // namespace

Result<std::vector<SecureBytes>> ReadLoginTicketKeys(const std::filesystem::path& file) {
  const std::string name = "--login-ticket-key " + file.string() + ": ";
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return MakeError(CKR_ARGUMENTS_BAD, name + "cannot open it");
  struct stat st {};
  // One byte more than the most the file may hold, so a longer one shows.
  SecureBytes text(kMaxLoginTicketKeys * kLineSize + 1);
  ssize_t got = -1;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) got = ::read(fd, text.data(), text.size());
  ::close(fd);
  if (got < 0) return MakeError(CKR_ARGUMENTS_BAD, name + "not a readable file");
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return MakeError(CKR_ARGUMENTS_BAD, name + "others may read it (chmod 600)");
  }
  const Error malformed =
      MakeError(CKR_ARGUMENTS_BAD, name + "expected 1 to " + std::to_string(kMaxLoginTicketKeys) +
                                       " lines of 64 hex digits (openssl rand -hex 32)");
  std::string_view rest(reinterpret_cast<const char*>(text.data()), static_cast<std::size_t>(got));
  std::vector<SecureBytes> keys;
  while (!rest.empty()) {
    const std::size_t end = std::min(rest.find('\n'), rest.size());
    std::optional<Bytes> key;
    if (end == 2 * core::kLoginTicketKeySize) key = FromHex(rest.substr(0, end));
    if (!key || keys.size() == kMaxLoginTicketKeys) return malformed;
    keys.emplace_back(key->begin(), key->end());
    std::fill(key->begin(), key->end(), 0);
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
  if (keys.empty()) return malformed;
  return keys;
}

}  // namespace signet::daemon
