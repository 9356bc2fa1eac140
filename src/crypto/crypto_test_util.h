// Test-only helpers for crypto/ tests: a temporary directory that removes
// itself, file I/O, and running the `openssl` command-line tool (the
// independent verifier the tests check our signatures against). Not for
// production code. Each object is single-threaded.
#pragma once

#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/secure_bytes.h"
#include "crypto/keys.h"

namespace signet::crypto::testing {

// TempDir: a fresh mkdtemp directory, removed with its contents on
// destruction.
class TempDir {
 public:
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "signet-crypto-XXXXXX").string();
    path_ = mkdtemp(templ.data()) != nullptr ? templ : std::string();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  bool ok() const { return !path_.empty(); }
  // File returns the path of `name` inside the directory.
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline void WriteFile(const std::string& path, ByteView data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
}

inline void WriteFile(const std::string& path, std::string_view text) {
  WriteFile(path, AsBytes(text));
}

inline Bytes ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// RunOpenssl runs `openssl args...` with stdin from /dev/null and stdout and
// stderr appended to `log_path` (or discarded when empty); returns the exit
// status, or -1 when the tool could not be run.
inline int RunOpenssl(const std::vector<std::string>& args, const std::string& log_path = "") {
  std::vector<char*> argv;
  std::string tool = "openssl";
  argv.push_back(tool.data());
  std::vector<std::string> copies(args);
  for (auto& a : copies) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int in = open("/dev/null", O_RDONLY);
    int out = log_path.empty() ? open("/dev/null", O_WRONLY)
                               : open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (in < 0 || out < 0) _exit(127);
    dup2(in, 0);
    dup2(out, 1);
    dup2(out, 2);
    execvp("openssl", argv.data());
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

// CachedKey returns a key of `spec`, generated on first use and then shared
// by every test in the binary (RSA generation is slow); nullptr when
// generation fails. Thread-safe.
inline const PrivateKey* CachedKey(const KeySpec& spec) {
  static base::Mutex mu;
  static auto* keys PT_GUARDED_BY(mu) = new std::map<std::string, PrivateKey>();
  base::MutexLock lock(&mu);
  std::string name = KeySpecName(spec);
  auto it = keys->find(name);
  if (it == keys->end()) {
    auto key = PrivateKey::Generate(spec);
    if (!key.ok()) return nullptr;
    it = keys->emplace(name, std::move(*key)).first;
  }
  return &it->second;
}

}  // namespace signet::crypto::testing
