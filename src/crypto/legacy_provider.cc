#include "crypto/legacy_provider.h"

#include <openssl/provider.h>

#include <atomic>
#include <cstdlib>

#include "crypto/ossl_error.h"

namespace signet::crypto {
namespace {

using internal::OsslError;

std::atomic<bool> legacy_loaded{false};

// The providers LoadLegacyProvider loaded. A loaded provider is never freed
// by OpenSSL's own cleanup (LeakSanitizer reports it), so they are unloaded
// at exit, before that cleanup: OpenSSL registered its handler first, while
// loading them, and atexit runs the last registered first.
OSSL_PROVIDER* loaded_default = nullptr;
OSSL_PROVIDER* loaded_legacy = nullptr;

void UnloadAtExit() {
  if (loaded_legacy != nullptr) OSSL_PROVIDER_unload(loaded_legacy);
  if (loaded_default != nullptr) OSSL_PROVIDER_unload(loaded_default);
}

}  // namespace

Status LoadLegacyProvider() {
  if (legacy_loaded.load()) return OkStatus();
  // The default provider first: it must stay available whether or not the
  // legacy one loads. Both stay loaded for the life of the process.
  if (loaded_default == nullptr) {
    loaded_default = OSSL_PROVIDER_load(nullptr, "default");
    if (loaded_default == nullptr) {
      return OsslError(CKR_FUNCTION_FAILED, "OpenSSL's default provider did not load");
    }
    std::atexit(UnloadAtExit);
  }
  loaded_legacy = OSSL_PROVIDER_load(nullptr, "legacy");
  if (loaded_legacy == nullptr) {
    return OsslError(CKR_FUNCTION_FAILED, "OpenSSL's legacy provider did not load");
  }
  legacy_loaded.store(true);
  return OkStatus();
}

bool LegacyProviderLoaded() { return legacy_loaded.load(); }

}  // namespace signet::crypto
