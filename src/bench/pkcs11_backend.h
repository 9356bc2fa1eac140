// The PKCS#11 backend of `bench parallel --via pkcs11 --module PATH`: the
// same load driven through any PKCS#11 module (signet's own, SoftHSMv2, a
// hardware token), so the same command measures them side by side.
//
// The module is dlopen()ed and initialised with CKF_OS_LOCKING_OK (the
// module may use its own locks; every client thread calls it at once). The
// token is the one labelled `token_label`, else the first initialised one.
// Per algorithm one key pair labelled TokenKeyLabel(algo) is found or
// generated; its public key is read back and every signature verified with
// crypto::Verify unless verification is off. Each client thread opens its
// own session (PKCS#11 login state is per token and application, so
// CKR_USER_ALREADY_LOGGED_IN from the second session on is expected).
// Thread contract: Create, Prepare and destruction on the owner's thread;
// operations on the client threads, each with its own session.
#pragma once

#include <memory>
#include <string>

#include "bench/signer_backend.h"

namespace signet::bench {

struct Pkcs11BackendOptions {
  std::string module_path;  // the .so to dlopen
  std::string token_label;  // empty: the first slot with a token
  std::string pin;          // user PIN
};

// MakePkcs11Backend loads and initialises the module and logs in once.
// CKR_ARGUMENTS_BAD without a module path or PIN; CKR_GENERAL_ERROR with
// dlerror() when the module cannot be loaded; CKR_TOKEN_NOT_PRESENT when no
// (such) token exists; otherwise the module's own CK_RV.
[[nodiscard]] Result<std::unique_ptr<SignerBackend>> MakePkcs11Backend(
    const Pkcs11BackendOptions& options);

}  // namespace signet::bench
