// The common shape of every session-bound C_* call: find the module state
// and the session, lock the session, then run the body. Safe from any
// thread; the only lock held across the body's round trips is the session's
// own.
#pragma once

#include <p11-kit/pkcs11.h>

#include <memory>
#include <type_traits>
#include <utility>

#include "pkcs11/guard.h"
#include "pkcs11/module_state.h"
#include "pkcs11/session.h"

namespace signet::pkcs11 {

// CloseSessionLocked ends `session` on the daemon and drops its reference
// to the connection. REQUIRES: session.mu held and the session already
// removed from the table.
void CloseSessionLocked(Session& session) REQUIRES(session.mu);

// RestoreSession moves `session` to the application's connection (a node
// that answers, ModuleState::Conn): a new daemon session with the same
// slot and flags, logged in again when the application is
// (ModuleState::RestoreLogin). Operations the dead node kept for it are
// gone; the module's own state (buffered input, found objects, object
// handles, which are stable across nodes) carries over. REQUIRES:
// failover on, session.mu held.
Status RestoreSession(ModuleState& state, Session& session) REQUIRES(session.mu);

// Repeatable runs call(client::Client&, client::Handle remote) -> Result<T>,
// a request that is safe to repeat (sign, verify, encrypt, decrypt,
// digest, find, get attributes, random). When it fails because the node
// is gone and failover is on, the session moves to another node and the
// call runs there, once per node at most. What cannot be repeated there
// becomes CKR_DEVICE_REMOVED: no node answering, a login that cannot
// follow, and an object handle the new node does not know (a session
// object, which died with its node).
template <typename Call, typename R = std::invoke_result_t<Call&, client::Client&, client::Handle>>
R Repeatable(ModuleState& state, Session& s, Call&& call) REQUIRES(s.mu) {
  R result = call(*s.conn, s.remote);
  if (result.ok() || !IsDaemonGone(result.error().code) || !state.failover()) return result;
  for (std::size_t attempt = 0; attempt < state.node_count(); ++attempt) {
    state.DropConn(s.conn.get());
    if (Status moved = RestoreSession(state, s); !moved.ok()) {
      if (IsDaemonGone(moved.error().code)) continue;  // that node is gone too
      return MakeError(CKR_DEVICE_REMOVED, moved.error().message);
    }
    result = call(*s.conn, s.remote);
    if (result.ok()) return result;
    const CK_RV rv = result.error().code;
    if (rv == CKR_OBJECT_HANDLE_INVALID || rv == CKR_KEY_HANDLE_INVALID) {
      return MakeError(CKR_DEVICE_REMOVED, "the object died with the node that failed");
    }
    if (!IsDaemonGone(rv)) return result;
  }
  return MakeError(CKR_DEVICE_REMOVED, "no node of the keystore answered");
}

// WithSession runs body(ModuleState&, Session&) -> CK_RV for the session
// `handle` under its lock, inside Guard. CKR_CRYPTOKI_NOT_INITIALIZED,
// CKR_SESSION_HANDLE_INVALID or CKR_SESSION_CLOSED (closed by another
// thread meanwhile) come first. When the body fails because the daemon is
// gone, the application's connection is dropped (ModuleState::DropConn) so
// later sessions reconnect; with failover the call then answers
// CKR_DEVICE_REMOVED, and a session whose node is gone moves to another
// (RestoreSession) before its next call's body runs. The body runs with
// session.mu held; clang's thread-safety analysis cannot carry a held lock
// into a lambda, so a body that touches the session's members says so
// first: s.mu.AssertHeld().
template <typename Body>
CK_RV WithSession(CK_SESSION_HANDLE handle, Body&& body) {
  return Guard([&]() -> CK_RV {
    std::shared_ptr<ModuleState> state = CurrentState();
    if (state == nullptr) return CKR_CRYPTOKI_NOT_INITIALIZED;
    std::shared_ptr<Session> session = state->sessions().Find(handle);
    if (session == nullptr) return CKR_SESSION_HANDLE_INVALID;
    base::MutexLock lock(&session->mu);
    if (session->closed) return CKR_SESSION_CLOSED;
    if (state->failover() && session->conn != nullptr && state->Stale(session->conn.get())) {
      if (!RestoreSession(*state, *session).ok()) return CKR_DEVICE_REMOVED;
    }
    const CK_RV rv = body(*state, *session);
    if (IsDaemonGone(rv) && session->conn != nullptr) {
      state->DropConn(session->conn.get());
      if (state->failover()) return CKR_DEVICE_REMOVED;
    }
    return rv;
  });
}

// WithState runs body(ModuleState&) -> CK_RV inside Guard, after the
// initialisation check.
template <typename Body>
CK_RV WithState(Body&& body) {
  return Guard([&]() -> CK_RV {
    std::shared_ptr<ModuleState> state = CurrentState();
    if (state == nullptr) return CKR_CRYPTOKI_NOT_INITIALIZED;
    return body(*state);
  });
}

// RvOf returns the code of a finished Status / Result (CKR_OK on success).
template <typename R>
CK_RV RvOf(const R& result) {
  return result.ok() ? CKR_OK : result.error().code;
}

}  // namespace signet::pkcs11
