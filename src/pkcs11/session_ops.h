// The common shape of every session-bound C_* call: find the module state
// and the session, lock the session, then run the body. Safe from any
// thread; the only lock held across the body's round trips is the session's
// own.
#pragma once

#include <p11-kit/pkcs11.h>

#include <memory>
#include <utility>

#include "pkcs11/guard.h"
#include "pkcs11/module_state.h"
#include "pkcs11/session.h"

namespace signet::pkcs11 {

// CloseSessionLocked ends `session` on the daemon and drops its reference
// to the connection. REQUIRES: session.mu held and the session already
// removed from the table.
void CloseSessionLocked(Session& session) REQUIRES(session.mu);

// WithSession runs body(ModuleState&, Session&) -> CK_RV for the session
// `handle` under its lock, inside Guard. CKR_CRYPTOKI_NOT_INITIALIZED,
// CKR_SESSION_HANDLE_INVALID or CKR_SESSION_CLOSED (closed by another
// thread meanwhile) come first. When the body fails because the daemon is
// gone, the application's connection is dropped (ModuleState::DropConn) so
// later sessions reconnect. The body runs with session.mu held; clang's
// thread-safety analysis cannot carry a held lock into a lambda, so a body
// that touches the session's members says so first: s.mu.AssertHeld().
template <typename Body>
CK_RV WithSession(CK_SESSION_HANDLE handle, Body&& body) {
  return Guard([&]() -> CK_RV {
    std::shared_ptr<ModuleState> state = CurrentState();
    if (state == nullptr) return CKR_CRYPTOKI_NOT_INITIALIZED;
    std::shared_ptr<Session> session = state->sessions().Find(handle);
    if (session == nullptr) return CKR_SESSION_HANDLE_INVALID;
    base::MutexLock lock(&session->mu);
    if (session->closed) return CKR_SESSION_CLOSED;
    const CK_RV rv = body(*state, *session);
    if (IsDaemonGone(rv) && session->conn != nullptr) state->DropConn(session->conn.get());
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
