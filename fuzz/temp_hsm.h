// temp_hsm.h: the world the daemon-side fuzz targets run against: a real
// core::Hsm on a fresh temporary data directory (under $TMPDIR) holding one
// token with the given PINs, a cheap KDF (a login per input) and no
// failed-login lockout (the fuzzer guesses PINs all day).
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "core/hsm.h"
#include "fuzz_target.h"
#include "keystore/data_dir.h"

namespace signet::fuzz {

struct TempHsm {
  std::filesystem::path dir;
  std::unique_ptr<core::Hsm> hsm;
  ~TempHsm() {
    hsm.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

// OpenTempHsm makes the directory "signet-NAME-XXXXXX", the token and the Hsm.
inline void OpenTempHsm(TempHsm& world, std::string_view name, std::string_view so_pin,
                        std::string_view user_pin) {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/signet-" +
                     std::string(name) + "-XXXXXX";
  FUZZ_CHECK(mkdtemp(tmpl.data()) != nullptr);
  world.dir = tmpl;
  core::HsmOptions options;
  options.data_dir = world.dir / "data";
  options.token_options.kdf.n = 1u << 10;
  options.limits.login_free_failures = 1 << 20;
  auto token = keystore::CreateInDirectory(options.data_dir, "fuzz", AsBytes(so_pin),
                                           AsBytes(user_pin), options.token_options);
  FUZZ_CHECK(token.ok());
  token->reset();
  auto hsm = core::Hsm::Open(options);
  FUZZ_CHECK(hsm.ok());
  world.hsm = std::move(*hsm);
}

}  // namespace signet::fuzz
