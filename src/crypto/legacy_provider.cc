#include "crypto/legacy_provider.h"

#include <openssl/provider.h>

#include <atomic>

#include "crypto/ossl_error.h"

namespace signet::crypto {
namespace {

using internal::OsslError;

std::atomic<bool> legacy_loaded{false};

}  // namespace

Status LoadLegacyProvider() {
  if (legacy_loaded.load()) return OkStatus();
  // The default provider first: it must stay available whether or not the
  // legacy one loads. Both stay loaded for the life of the process.
  if (OSSL_PROVIDER_load(nullptr, "default") == nullptr) {
    return OsslError(CKR_FUNCTION_FAILED, "OpenSSL's default provider did not load");
  }
  if (OSSL_PROVIDER_load(nullptr, "legacy") == nullptr) {
    return OsslError(CKR_FUNCTION_FAILED, "OpenSSL's legacy provider did not load");
  }
  legacy_loaded.store(true);
  return OkStatus();
}

bool LegacyProviderLoaded() { return legacy_loaded.load(); }

}  // namespace signet::crypto
