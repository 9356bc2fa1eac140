// Guard: the catch-all at every C_* entry point of the PKCS#11 module. No
// exception may cross the C ABI (docs/STYLE.md "Errors"): std::bad_alloc becomes
// CKR_HOST_MEMORY and anything else CKR_GENERAL_ERROR. Stateless; safe from
// any thread.
#pragma once

#include <p11-kit/pkcs11.h>

#include <new>
#include <utility>

namespace signet::pkcs11 {

// Guard runs `body` (a callable returning CK_RV) and returns its result, or
// the code for whatever it threw.
template <typename Body>
CK_RV Guard(Body&& body) noexcept {
  try {
    return std::forward<Body>(body)();
  } catch (const std::bad_alloc&) {
    return CKR_HOST_MEMORY;
  } catch (...) {
    return CKR_GENERAL_ERROR;
  }
}

}  // namespace signet::pkcs11
