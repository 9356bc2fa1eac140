// KekHolder: a token's login state — the KEK while someone is logged in, and
// who — kept the same way by every Token backend (SqliteToken,
// PostgresToken). The KEK is shared with callers that are unwrapping while
// a Logout runs: the last holder's copy is wiped (SecureBytes) when it goes.
// Thread contract: every method may be called from any thread (one
// internal mutex, held only to copy a pointer).
#pragma once

#include <memory>
#include <optional>

#include "base/mutex.h"
#include "keystore/token.h"

namespace signet::keystore {

class KekHolder {
 public:
  // Set records a login: `user` holds `kek` now (a later login replaces an
  // earlier one; core/ enforces PKCS#11's one user per token).
  void Set(UserType user, SecureBytes kek) EXCLUDES(mu_);

  // Clear forgets the KEK (logout, re-initialisation). Callers that cache
  // unwrapped keys clear their cache after this (FetchKey's order).
  void Clear() EXCLUDES(mu_);

  // Current: the KEK, or nullptr when nobody is logged in.
  std::shared_ptr<const SecureBytes> Current() const EXCLUDES(mu_);

  // SoKek: the KEK of a Security Officer's login; CKR_USER_NOT_LOGGED_IN
  // otherwise (what InitUserPin needs).
  Result<std::shared_ptr<const SecureBytes>> SoKek() const EXCLUDES(mu_);

 private:
  mutable base::Mutex mu_;
  std::shared_ptr<const SecureBytes> kek_ GUARDED_BY(mu_);
  std::optional<UserType> user_ GUARDED_BY(mu_);
};

}  // namespace signet::keystore
