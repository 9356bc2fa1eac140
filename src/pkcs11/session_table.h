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
#include <mutex>
#include <random>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "pkcs11/session.h"

namespace signet::pkcs11 {

class SessionTable {
 public:
  SessionTable();

  // NewHandle returns a fresh random handle not used by an open session.
  CK_SESSION_HANDLE NewHandle();

  // Insert adds `session` under its handle (REQUIRES: from NewHandle).
  void Insert(std::shared_ptr<Session> session);

  // Find returns the session for `handle`, or nullptr.
  std::shared_ptr<Session> Find(CK_SESSION_HANDLE handle) const;

  // Remove takes `handle` out of the table and returns its session (nullptr
  // when absent). The caller closes it.
  std::shared_ptr<Session> Remove(CK_SESSION_HANDLE handle);

  // RemoveIf takes out every session for which `pred` is true.
  std::vector<std::shared_ptr<Session>> RemoveIf(
      const std::function<bool(const Session&)>& pred);

  // OnSlot lists the open sessions on `slot`.
  std::vector<std::shared_ptr<Session>> OnSlot(CK_SLOT_ID slot) const;

 private:
  mutable std::shared_mutex mu_;
  std::unordered_map<CK_SESSION_HANDLE, std::shared_ptr<Session>> sessions_;
  std::mt19937_64 rng_;  // guarded by mu_ (exclusive)
};

}  // namespace signet::pkcs11
