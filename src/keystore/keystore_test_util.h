// Helpers shared by the keystore tests: a mkdtemp directory removed at the
// end of the test, cheap scrypt options, PINs as bytes and raw file reads.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "keystore/token.h"

namespace signet::keystore::testing {

// TempDir: a fresh directory from mkdtemp, deleted with its contents.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "signet-ks-XXXXXX").string();
    const char* made = ::mkdtemp(pattern.data());
    EXPECT_NE(made, nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// FastOptions: scrypt n=1024 so tests stay quick (production: 2^15).
inline TokenOptions FastOptions(int max_failures = 3, std::size_t cache = 16) {
  TokenOptions options;
  options.kdf.n = 1024;
  options.kdf.r = 8;
  options.kdf.p = 1;
  options.max_pin_failures = max_failures;
  options.key_cache_capacity = cache;
  return options;
}

inline ByteView Pin(const char* text) { return AsBytes(text); }

inline Bytes ReadFileBytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Contains: true when `needle` occurs anywhere in `haystack`.
inline bool Contains(const Bytes& haystack, ByteView needle) {
  if (needle.empty()) return false;
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end()) !=
         haystack.end();
}

}  // namespace signet::keystore::testing
