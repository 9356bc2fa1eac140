// Sessions and login (PKCS#11 v2.40 §5.6). Every session of the application
// is a daemon session on the application's one connection, and the daemon
// keeps login per connection, so login is application-wide by itself: these
// calls pass through and the daemon answers with the specification's codes
// (CKR_USER_ALREADY_LOGGED_IN, CKR_SESSION_READ_WRITE_SO_EXISTS, ...).
#include "pkcs11/abi.h"
#include "pkcs11/entry_points.h"
#include "pkcs11/session_ops.h"

namespace signet::pkcs11::entry {
namespace {

// No PIN pad: no signet token has CKF_PROTECTED_AUTHENTICATION_PATH,
// so a NULL PIN is never "use the PIN pad": C_Login, C_InitPIN and C_SetPIN
// answer CKR_ARGUMENTS_BAD for it (PKCS#11 v2.40 §5.6), before the daemon
// could count it as a wrong PIN.

// kUninitialisedToken: the daemon's answer for its free slot, which holds
// no token; the module presents that slot as holding an uninitialised
// token (fn_general.cc), on which sessions are CKR_TOKEN_NOT_RECOGNIZED
// (PKCS#11 v2.40 §5.6 C_OpenSession; SoftHSMv2 answers the same).
constexpr CK_RV kUninitialisedToken = CKR_TOKEN_NOT_PRESENT;

// OpenRemote opens the daemon session behind a new module session.
Result<std::shared_ptr<Session>> OpenRemote(ModuleState& state, CK_SESSION_HANDLE handle,
                                            CK_SLOT_ID slot, CK_FLAGS flags) {
  SIGNET_ASSIGN_OR_RETURN(std::shared_ptr<client::Client> conn, state.Conn());
  Result<client::Handle> remote = conn->OpenSession(slot, flags);
  if (!remote.ok()) {
    if (IsDaemonGone(remote.error().code)) state.DropConn(conn.get());
    if (remote.error().code == kUninitialisedToken) {
      return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "the token is not initialised (C_InitToken)");
    }
    return remote.error();
  }
  return std::make_shared<Session>(handle, slot, flags, std::move(conn), *remote);
}

}  // namespace

CK_RV C_OpenSession(CK_SLOT_ID slot, CK_FLAGS flags, CK_VOID_PTR, CK_NOTIFY,
                    CK_SESSION_HANDLE_PTR session) {
  return WithState([&](ModuleState& state) -> CK_RV {
    if (session == nullptr) return CKR_ARGUMENTS_BAD;
    if ((flags & CKF_SERIAL_SESSION) == 0) return CKR_SESSION_PARALLEL_NOT_SUPPORTED;
    const CK_SESSION_HANDLE handle = state.sessions().NewHandle();
    Result<std::shared_ptr<Session>> opened = OpenRemote(state, handle, slot, flags);
    if (!opened.ok()) {
      state.sessions().Remove(handle);  // release the reserved handle
      return opened.error().code;
    }
    state.sessions().Insert(std::move(*opened));
    *session = handle;
    return CKR_OK;
  });
}

CK_RV C_CloseSession(CK_SESSION_HANDLE handle) {
  return WithState([&](ModuleState& state) -> CK_RV {
    std::shared_ptr<Session> session = state.sessions().Remove(handle);
    if (session == nullptr) return CKR_SESSION_HANDLE_INVALID;
    base::MutexLock lock(&session->mu);
    CloseSessionLocked(*session);
    state.InvalidateKeyChecks();  // its session objects are gone
    // The slot's last session ends the application's login there (§5.6).
    if (state.sessions().OnSlot(session->slot).empty()) state.ForgetLogin(session->slot);
    return CKR_OK;
  });
}

CK_RV C_CloseAllSessions(CK_SLOT_ID slot) {
  return WithState([&](ModuleState& state) -> CK_RV {
    Result<std::shared_ptr<client::Client>> conn = state.Conn();
    if (!conn.ok()) return conn.error().code;
    // One request ends every daemon session of the application on the slot
    // (CKR_SLOT_ID_INVALID for an unknown slot); then forget them here.
    if (Status done = (*conn)->CloseAllSessions(slot); !done.ok()) {
      if (IsDaemonGone(done.error().code)) state.DropConn(conn->get());
      // An uninitialised token has no sessions to close.
      return done.error().code == kUninitialisedToken ? CKR_OK : done.error().code;
    }
    for (const std::shared_ptr<Session>& s :
         state.sessions().RemoveIf([slot](const Session& s) { return s.slot == slot; })) {
      base::MutexLock lock(&s->mu);
      s->closed = true;
      s->conn.reset();
    }
    state.InvalidateKeyChecks();
    state.ForgetLogin(slot);
    return CKR_OK;
  });
}

CK_RV C_GetSessionInfo(CK_SESSION_HANDLE handle, CK_SESSION_INFO_PTR info) {
  return WithSession(handle, [&](ModuleState& state, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    if (info == nullptr) return CKR_ARGUMENTS_BAD;
    Result<client::SessionInfo> remote =
        Repeatable(state, s, [&](client::Client& conn, client::Handle remote_session) {
          return conn.GetSessionInfo(remote_session);
        });
    if (!remote.ok()) return remote.error().code;
    info->slotID = s.slot;
    info->state = remote->state;
    info->flags = s.flags;
    info->ulDeviceError = 0;
    return CKR_OK;
  });
}

CK_RV C_Login(CK_SESSION_HANDLE handle, CK_USER_TYPE user, CK_UTF8CHAR_PTR pin,
              CK_ULONG pin_len) {
  return WithSession(handle, [&](ModuleState& state, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    if (pin == nullptr) return CKR_ARGUMENTS_BAD;  // no PIN pad (above)
    // A context-specific login authorises the signature or decryption this
    // session has begun (PKCS#11 §5.6.3); without one it is misplaced.
    if (user == CKU_CONTEXT_SPECIFIC && s.op(OpKind::kSign).phase == OpPhase::kIdle &&
        s.op(OpKind::kDecrypt).phase == OpPhase::kIdle) {
      return CKR_OPERATION_NOT_INITIALIZED;
    }
    if (user == CKU_CONTEXT_SPECIFIC || !state.failover()) {
      return RvOf(s.conn->Login(s.remote, user, ToView(pin, pin_len)));
    }
    // With several nodes the login comes with a re-login ticket, which the
    // application's sessions use to log in again on another node.
    Result<client::Bytes> ticket = s.conn->LoginForTicket(s.remote, user, ToView(pin, pin_len));
    if (!ticket.ok()) return ticket.error().code;
    state.RememberLogin(s.conn.get(), s.slot, user, *ticket);
    return CKR_OK;
  });
}

CK_RV C_Logout(CK_SESSION_HANDLE handle) {
  return WithSession(handle, [&](ModuleState& state, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    const Status done = s.conn->Logout(s.remote);
    state.InvalidateKeyChecks();  // private keys are out of reach now
    state.ForgetLogin(s.slot);
    return RvOf(done);
  });
}

CK_RV C_InitPIN(CK_SESSION_HANDLE handle, CK_UTF8CHAR_PTR pin, CK_ULONG pin_len) {
  return WithSession(handle, [&](ModuleState&, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    if (pin == nullptr) return CKR_ARGUMENTS_BAD;  // no PIN pad (above)
    return RvOf(s.conn->InitPin(s.remote, ToView(pin, pin_len)));
  });
}

CK_RV C_SetPIN(CK_SESSION_HANDLE handle, CK_UTF8CHAR_PTR old_pin, CK_ULONG old_len,
               CK_UTF8CHAR_PTR new_pin, CK_ULONG new_len) {
  return WithSession(handle, [&](ModuleState& state, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    if (old_pin == nullptr || new_pin == nullptr) return CKR_ARGUMENTS_BAD;  // no PIN pad
    const Status done =
        s.conn->SetPin(s.remote, ToView(old_pin, old_len), ToView(new_pin, new_len));
    // The ticket holds the old PIN, which would now count as a wrong one.
    if (done.ok()) state.DropTicket(s.slot);
    return RvOf(done);
  });
}

}  // namespace signet::pkcs11::entry
