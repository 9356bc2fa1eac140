#include "keystore/data_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "keystore/sqlite_token.h"

namespace signet::keystore {
namespace {

// ReadHolder: the note the lock's holder wrote (LockDataDir), one short
// printable line, or "" when there is none.
std::string ReadHolder(int fd) {
  char buffer[256];
  ssize_t n = ::pread(fd, buffer, sizeof buffer, 0);
  std::string note;
  for (ssize_t i = 0; i < n && buffer[i] != '\n'; ++i) {
    note += (buffer[i] >= 0x20 && buffer[i] < 0x7f) ? buffer[i] : '?';
  }
  return note;
}

constexpr std::size_t kSerialChars = 16;
constexpr int kCreateAttempts = 4;  // serial collisions are ~2^-64; be safe

}  // namespace

Status EnsureDataDirectory(const std::filesystem::path& dir) {
  std::error_code ec;
  if (std::filesystem::is_directory(dir, ec)) return OkStatus();
  if (dir.has_parent_path()) std::filesystem::create_directories(dir.parent_path(), ec);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return MakeError(CKR_DEVICE_ERROR,
                     "cannot create data directory " + dir.string() + ": " + std::strerror(errno));
  }
  return OkStatus();
}

Status CreateEmptyFile(const std::filesystem::path& file) {
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    CK_RV code = errno == EEXIST ? CKR_ARGUMENTS_BAD : CKR_DEVICE_ERROR;
    return MakeError(code, "cannot create " + file.string() + ": " + std::strerror(errno));
  }
  int rc = ::fchmod(fd, 0600);  // umask may have removed owner bits
  ::close(fd);
  if (rc != 0) return MakeError(CKR_DEVICE_ERROR, "cannot chmod " + file.string());
  return OkStatus();
}

void RemoveTokenFiles(const std::filesystem::path& file) {
  std::error_code ignored;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::filesystem::remove(file.string() + suffix, ignored);
  }
}

void SyncDirectory(const std::filesystem::path& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

bool IsTokenSerial(std::string_view text) {
  return text.size() == kSerialChars && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::filesystem::path TokenFilePath(const std::filesystem::path& dir, std::string_view serial) {
  return dir / (std::string(serial) + std::string(kTokenFileExtension));
}

Result<std::vector<std::filesystem::path>> ListTokenFiles(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return out;
  std::filesystem::directory_iterator it(dir, ec), end;
  if (ec) return MakeError(CKR_DEVICE_ERROR, "cannot read " + dir.string() + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    const auto& path = it->path();
    // Whatever its kind (directory, dangling symlink, ...): a name that
    // claims to be a token is listed, so opening it reports what is wrong.
    if (path.extension() == kTokenFileExtension && IsTokenSerial(path.stem().string())) {
      out.push_back(path);
    }
  }
  if (ec) return MakeError(CKR_DEVICE_ERROR, "cannot read " + dir.string() + ": " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::unique_ptr<Token>> CreateInDirectory(const std::filesystem::path& dir,
                                                 std::string_view label, ByteView so_pin,
                                                 ByteView user_pin, const TokenOptions& options) {
  SIGNET_TRY(EnsureDataDirectory(dir));
  for (int attempt = 0;; ++attempt) {
    SIGNET_ASSIGN_OR_RETURN(std::string serial, NewTokenSerial());
    auto path = TokenFilePath(dir, serial);
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && attempt + 1 < kCreateAttempts) continue;
    SIGNET_ASSIGN_OR_RETURN(
        auto token, SqliteToken::CreateFile(path, serial, label, so_pin, user_pin, options));
    return std::unique_ptr<Token>(std::move(token));
  }
}

DataDirLock::~DataDirLock() {
  if (fd_ >= 0) ::close(fd_);  // also releases the flock
}

Result<std::unique_ptr<DataDirLock>> LockDataDir(const std::filesystem::path& dir,
                                                 std::string_view holder) {
  std::filesystem::path file = dir / std::string(kDataDirLockName);
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    return MakeError(CKR_DEVICE_ERROR,
                     "cannot open " + file.string() + ": " + std::strerror(errno));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    std::string held_by = ReadHolder(fd);
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return MakeError(CKR_FUNCTION_FAILED, dir.string() + " is in use by a running " +
                                                (held_by.empty() ? "signetd" : held_by) + " (" +
                                                file.string() + " is locked)");
    }
    return MakeError(CKR_DEVICE_ERROR, "cannot lock " + file.string() + ": " + std::strerror(err));
  }
  // Best effort: the lock itself is what excludes; the note only names it.
  if (::ftruncate(fd, 0) == 0) {
    std::string note = std::string(holder) + " (pid " + std::to_string(::getpid()) + ")\n";
    [[maybe_unused]] ssize_t written = ::pwrite(fd, note.data(), note.size(), 0);
  }
  return std::make_unique<DataDirLock>(fd);
}

}  // namespace signet::keystore
