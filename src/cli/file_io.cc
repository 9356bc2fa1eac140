#include "cli/file_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace signet::cli {
namespace {

Error FileError(const char* verb, const std::string& path) {
  return MakeError(CKR_ARGUMENTS_BAD,
                   std::string("cannot ") + verb + " " + path + ": " + std::strerror(errno));
}

}  // namespace

Result<client::Bytes> ReadFile(const std::string& path) {
  std::FILE* file = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (file == nullptr) return FileError("read", path);
  client::Bytes data;
  std::uint8_t buffer[65536];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0) {
    data.insert(data.end(), buffer, buffer + n);
  }
  bool failed = std::ferror(file) != 0;
  if (file != stdin) std::fclose(file);
  if (failed) return FileError("read", path);
  return data;
}

Status WriteFile(const std::string& path, client::ByteView data) {
  std::FILE* file = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
  if (file == nullptr) return FileError("write", path);
  bool ok = std::fwrite(data.data(), 1, data.size(), file) == data.size();
  ok = (file == stdout ? std::fflush(file) : std::fclose(file)) == 0 && ok;
  if (!ok) return FileError("write", path);
  return OkStatus();
}

}  // namespace signet::cli
