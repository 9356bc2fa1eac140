#include "daemon/login_ticket_key.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <optional>

#include "base/hex.h"
#include "core/login_ticket.h"

namespace signet::daemon {

Result<SecureBytes> ReadLoginTicketKey(const std::filesystem::path& file) {
  const std::string name = "--login-ticket-key " + file.string() + ": ";
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return MakeError(CKR_ARGUMENTS_BAD, name + "cannot open it");
  struct stat st {};
  SecureBytes text(2 * core::kLoginTicketKeySize + 2);
  ssize_t got = -1;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) got = ::read(fd, text.data(), text.size());
  ::close(fd);
  if (got < 0) return MakeError(CKR_ARGUMENTS_BAD, name + "not a readable file");
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return MakeError(CKR_ARGUMENTS_BAD, name + "others may read it (chmod 600)");
  }
  std::size_t length = static_cast<std::size_t>(got);
  if (length > 0 && text[length - 1] == '\n') --length;
  std::optional<Bytes> key;
  if (length == 2 * core::kLoginTicketKeySize) {
    key = FromHex(std::string_view(reinterpret_cast<const char*>(text.data()), length));
  }
  if (!key)
    return MakeError(CKR_ARGUMENTS_BAD, name + "expected 64 hex digits (openssl rand -hex 32)");
  SecureBytes out(key->begin(), key->end());
  std::fill(key->begin(), key->end(), 0);
  return out;
}

}  // namespace signet::daemon
