// LoginRegistry: the application-wide login state per slot (PKCS#11 v2.40
// §5.6: a login applies to every session of the application on that token).
// signetd keeps login per connection, and the module has one connection per
// session, so the registry records who is logged in and with which PIN, and
// each session replays that state onto its own connection before its next
// call (SyncLogin in session_ops.h). The PIN is held in SecureBytes and
// wiped on logout, finalize and when the slot's last session closes.
//
// Thread contract: all methods are safe from any thread. `login_mutex()`
// serialises C_Login/C_Logout (rare calls) across their round trips; the
// signing path only reads epoch(), a single atomic load.
#pragma once

#include <p11-kit/pkcs11.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>

#include "crypto/secure_bytes.h"

namespace signet::pkcs11 {

class LoginRegistry {
 public:
  // Snapshot: one slot's state and the epoch it was read at.
  struct Snapshot {
    CK_USER_TYPE user;  // CKU_USER, CKU_SO or kNobody
    crypto::SecureBytes pin;
    std::uint64_t epoch;
  };

  // epoch changes whenever any slot's state changes.
  std::uint64_t epoch() const { return epoch_.load(std::memory_order_acquire); }

  // Get returns `slot`'s state (kNobody and an empty PIN when logged out).
  Snapshot Get(CK_SLOT_ID slot) const;

  // User returns who is logged in on `slot` (kNobody when nobody).
  CK_USER_TYPE User(CK_SLOT_ID slot) const;

  // Set records a login and returns the new epoch.
  std::uint64_t Set(CK_SLOT_ID slot, CK_USER_TYPE user, crypto::ByteView pin);

  // Clear records a logout (wiping the PIN) and returns the new epoch.
  std::uint64_t Clear(CK_SLOT_ID slot);

  // login_mutex serialises C_Login / C_Logout of the whole application.
  std::mutex& login_mutex() { return login_mu_; }

 private:
  struct Entry {
    CK_USER_TYPE user;
    crypto::SecureBytes pin;
  };
  mutable std::mutex mu_;
  std::map<CK_SLOT_ID, Entry> slots_;  // guarded by mu_; absent = kNobody
  std::atomic<std::uint64_t> epoch_{1};
  std::mutex login_mu_;
};

}  // namespace signet::pkcs11
