// token_open_fuzz: keystore::Token::Open (src/keystore/token.h) on arbitrary
// bytes written to a token file, as signetd meets a damaged or hostile file
// in its data directory; then what the daemon reads from a token it opened
// before anyone logs in: Info, ListObjects, FindObjects, PoolCounts.
// Every failure must be an error, never a crash. (Login is left out: a
// stored KDF cost up to the bound pin_records.cc accepts makes one attempt
// take seconds, which would stall the fuzzer without finding anything.)
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_target.h"
#include "keystore/attribute_codec.h"
#include "keystore/token.h"

namespace {

std::filesystem::path g_dir;

void RemoveDir() {
  std::error_code ignored;
  std::filesystem::remove_all(g_dir, ignored);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
                     "/signet-token-fuzz-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) std::abort();
  g_dir = tmpl;
  std::atexit(RemoveDir);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace signet::keystore;
  const std::filesystem::path file = g_dir / "0123456789abcdef.token";
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  TokenOptions options;
  options.kdf.n = 1u << 10;
  {
    auto token = Token::Open(file, options);
    if (token.ok()) {
      TokenInfo info = (*token)->Info();
      (void)info;
      auto objects = (*token)->ListObjects();
      if (objects.ok()) {
        for (const StoredObject& object : *objects) {
          auto again = (*token)->GetObject(object.handle);
          (void)again;
        }
      }
      auto keys = (*token)->FindObjects({{CKA_CLASS, signet::UlongBytes(CKO_PRIVATE_KEY)}});
      (void)keys;
      auto pools = (*token)->PoolCounts();
      (void)pools;
    }
  }
  std::error_code ignored;
  std::filesystem::remove(file, ignored);
  std::filesystem::remove(file.string() + "-wal", ignored);
  std::filesystem::remove(file.string() + "-shm", ignored);
  std::filesystem::remove(file.string() + "-journal", ignored);
  return 0;
}
