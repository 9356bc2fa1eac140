// OpenSSL's legacy provider, which holds single DES (CKM_DES_ECB, CKM_DES_CBC,
// CKM_DES_CBC_PAD, CKK_DES keys). Only signetd loads it, once at start, before
// its threads: the module, the CLI and the benches never offer single DES.
// Loading any provider stops OpenSSL from loading the default provider
// itself, so LoadLegacyProvider loads both (docs/PKCS11.md "Single DES").
#pragma once

#include "signet/result.hpp"

namespace signet::crypto {

// LoadLegacyProvider loads OpenSSL's "legacy" and "default" providers into
// the default library context. CKR_FUNCTION_FAILED, with OpenSSL's reason,
// when the legacy provider is missing (the default one stays usable).
// Call it once, before any other thread uses OpenSSL. Both stay loaded
// until exit, where an atexit handler unloads them.
Status LoadLegacyProvider();

// LegacyProviderLoaded: LoadLegacyProvider succeeded in this process. Safe
// from any thread.
bool LegacyProviderLoaded();

}  // namespace signet::crypto
