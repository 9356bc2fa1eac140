// SessionTable: the module's PKCS#11 session handles. Handles are random
// non-zero 32-bit values (never reused while open, never an address), each
// bound to a Session shared through shared_ptr.
//
// Thread contract: every method is safe from any thread; the table's lock is
// held only to read or change the map, never across a round trip.
#pragma once

#include <p11-kit/pkcs11.h>

#include <functional>
#include <memory>
#include <random>
#include <unordered_map>
#include <vector>

#include "base/mutex.h"
#include "pkcs11/session.h"

namespace signet::pkcs11 {

class SessionTable {
 public:
  SessionTable();

  // NewHandle returns a fresh random handle not used by an open session.
  CK_SESSION_HANDLE NewHandle() EXCLUDES(mu_);

  // Insert adds `session` under its handle (REQUIRES: from NewHandle).
  void Insert(std::shared_ptr<Session> session) EXCLUDES(mu_);

  // Find returns the session for `handle`, or nullptr.
  std::shared_ptr<Session> Find(CK_SESSION_HANDLE handle) const EXCLUDES(mu_);

  // Remove takes `handle` out of the table and returns its session (nullptr
  // when absent). The caller closes it.
  std::shared_ptr<Session> Remove(CK_SESSION_HANDLE handle) EXCLUDES(mu_);

  // RemoveIf takes out every session for which `pred` is true.
  std::vector<std::shared_ptr<Session>> RemoveIf(const std::function<bool(const Session&)>& pred)
      EXCLUDES(mu_);

  // OnSlot lists the open sessions on `slot`.
  std::vector<std::shared_ptr<Session>> OnSlot(CK_SLOT_ID slot) const EXCLUDES(mu_);

 private:
  mutable base::SharedMutex mu_;
  std::unordered_map<CK_SESSION_HANDLE, std::shared_ptr<Session>> sessions_ GUARDED_BY(mu_);
  std::mt19937_64 rng_ GUARDED_BY(mu_);  // written by every draw: exclusive only
};

}  // namespace signet::pkcs11
