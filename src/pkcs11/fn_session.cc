// Sessions and login (PKCS#11 v2.40 §5.6): each session gets its own
// connection; login state is application-wide and kept in the
// LoginRegistry, replayed onto each connection by SyncLogin.
#include "pkcs11/abi.h"
#include "pkcs11/entry_points.h"
#include "pkcs11/session_ops.h"

namespace signet::pkcs11::entry {
namespace {

bool AnyReadOnly(const std::vector<std::shared_ptr<Session>>& sessions) {
  for (const auto& s : sessions) {
    if (!s->read_write()) return true;
  }
  return false;
}

// OpenRemote connects and opens the daemon session behind a new module session.
Result<std::shared_ptr<Session>> OpenRemote(ModuleState& state, CK_SESSION_HANDLE handle,
                                            CK_SLOT_ID slot, CK_FLAGS flags) {
  SIGNET_ASSIGN_OR_RETURN(std::unique_ptr<client::Client> conn, state.Connect());
  SIGNET_ASSIGN_OR_RETURN(client::Handle remote, conn->OpenSession(slot, flags));
  auto session = std::make_shared<Session>(handle, slot, flags, std::move(conn), remote);
  std::lock_guard lock(session->mu);
  SIGNET_TRY(SyncLogin(state.logins(), *session));
  return session;
}

// CloseAll closes `sessions` (already out of the table).
void CloseAll(const std::vector<std::shared_ptr<Session>>& sessions) {
  for (const auto& s : sessions) {
    std::lock_guard lock(s->mu);
    CloseSessionLocked(*s);
  }
}

// ForgetLoginIfIdle logs the application out of `slot` once it has no
// sessions left (§5.6: closing the last session logs out).
void ForgetLoginIfIdle(ModuleState& state, CK_SLOT_ID slot) {
  if (state.sessions().OnSlot(slot).empty()) state.logins().Clear(slot);
}

}  // namespace

CK_RV C_OpenSession(CK_SLOT_ID slot, CK_FLAGS flags, CK_VOID_PTR, CK_NOTIFY,
                    CK_SESSION_HANDLE_PTR session) {
  return WithState([&](ModuleState& state) -> CK_RV {
    if (session == nullptr) return CKR_ARGUMENTS_BAD;
    if ((flags & CKF_SERIAL_SESSION) == 0) return CKR_SESSION_PARALLEL_NOT_SUPPORTED;
    if ((flags & CKF_RW_SESSION) == 0 && state.logins().User(slot) == CKU_SO) {
      return CKR_SESSION_READ_WRITE_SO_EXISTS;
    }
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
    CloseAll({session});
    ForgetLoginIfIdle(state, session->slot);
    return CKR_OK;
  });
}

CK_RV C_CloseAllSessions(CK_SLOT_ID slot) {
  return WithState([&](ModuleState& state) -> CK_RV {
    Result<client::ServerInfo> info = state.GetInfo();
    if (!info.ok()) return info.error().code;
    bool known = false;
    for (const auto& s : info->slots) known = known || s.slot_id == slot;
    if (!known) return CKR_SLOT_ID_INVALID;
    CloseAll(state.sessions().RemoveIf([slot](const Session& s) { return s.slot == slot; }));
    state.logins().Clear(slot);
    return CKR_OK;
  });
}

CK_RV C_GetSessionInfo(CK_SESSION_HANDLE handle, CK_SESSION_INFO_PTR info) {
  return WithSession(handle, [&](ModuleState& state, Session& s) -> CK_RV {
    if (info == nullptr) return CKR_ARGUMENTS_BAD;
    const CK_USER_TYPE user = state.logins().User(s.slot);
    info->slotID = s.slot;
    info->flags = s.flags;
    info->ulDeviceError = 0;
    if (user == CKU_SO) {
      info->state = CKS_RW_SO_FUNCTIONS;
    } else if (user == CKU_USER) {
      info->state = s.read_write() ? CKS_RW_USER_FUNCTIONS : CKS_RO_USER_FUNCTIONS;
    } else {
      info->state = s.read_write() ? CKS_RW_PUBLIC_SESSION : CKS_RO_PUBLIC_SESSION;
    }
    return CKR_OK;
  });
}

CK_RV C_Login(CK_SESSION_HANDLE handle, CK_USER_TYPE user, CK_UTF8CHAR_PTR pin,
              CK_ULONG pin_len) {
  // Lock order everywhere: login_mutex, then a session's mu.
  return WithState([&](ModuleState& outer) -> CK_RV {
    std::lock_guard login_lock(outer.logins().login_mutex());
    return WithSession(handle, [&](ModuleState& state, Session& s) -> CK_RV {
      if (pin == nullptr && pin_len != 0) return CKR_ARGUMENTS_BAD;
      // No key has CKA_ALWAYS_AUTHENTICATE, so no operation awaits a
      // context-specific login.
      if (user == CKU_CONTEXT_SPECIFIC) return CKR_OPERATION_NOT_INITIALIZED;
      if (user != CKU_USER && user != CKU_SO) return CKR_USER_TYPE_INVALID;
      const CK_USER_TYPE current = state.logins().User(s.slot);
      if (current == user) return CKR_USER_ALREADY_LOGGED_IN;
      if (current != kNobody) return CKR_USER_ANOTHER_ALREADY_LOGGED_IN;
      if (user == CKU_SO && AnyReadOnly(state.sessions().OnSlot(s.slot))) {
        return CKR_SESSION_READ_ONLY_EXISTS;
      }
      const crypto::ByteView pin_bytes = ToView(pin, pin_len);
      Status done = s.conn->Login(s.remote, user, pin_bytes);
      if (!done.ok()) return done.error().code;
      s.login_user = user;
      s.login_epoch = state.logins().Set(s.slot, user, pin_bytes);
      return CKR_OK;
    });
  });
}

CK_RV C_Logout(CK_SESSION_HANDLE handle) {
  CK_SLOT_ID slot = 0;
  CK_RV rv = WithSession(handle, [&](ModuleState& state, Session& s) -> CK_RV {
    if (state.logins().User(s.slot) == kNobody) return CKR_USER_NOT_LOGGED_IN;
    slot = s.slot;
    return CKR_OK;
  });
  if (rv != CKR_OK) return rv;
  // Log every session's connection out now, not lazily: the daemon refuses
  // a later SO login while any of our connections is still a logged-in user.
  return WithState([&](ModuleState& state) -> CK_RV {
    std::lock_guard login_lock(state.logins().login_mutex());
    const std::uint64_t epoch = state.logins().Clear(slot);
    for (const std::shared_ptr<Session>& other : state.sessions().OnSlot(slot)) {
      std::lock_guard lock(other->mu);
      if (other->closed || other->login_user == kNobody) continue;
      (void)other->conn->Logout(other->remote);
      other->login_user = kNobody;
      other->login_epoch = epoch;
    }
    return CKR_OK;
  });
}

CK_RV C_InitPIN(CK_SESSION_HANDLE handle, CK_UTF8CHAR_PTR pin, CK_ULONG pin_len) {
  return WithSession(handle, [&](ModuleState& state, Session& s) -> CK_RV {
    if (pin == nullptr && pin_len != 0) return CKR_ARGUMENTS_BAD;
    if (state.logins().User(s.slot) != CKU_SO) return CKR_USER_NOT_LOGGED_IN;
    if (!s.read_write()) return CKR_SESSION_READ_ONLY;
    return RvOf(s.conn->InitPin(s.remote, ToView(pin, pin_len)));
  });
}

CK_RV C_SetPIN(CK_SESSION_HANDLE handle, CK_UTF8CHAR_PTR old_pin, CK_ULONG old_len,
               CK_UTF8CHAR_PTR new_pin, CK_ULONG new_len) {
  return WithSession(handle, [&](ModuleState& state, Session& s) -> CK_RV {
    if ((old_pin == nullptr && old_len != 0) || (new_pin == nullptr && new_len != 0)) {
      return CKR_ARGUMENTS_BAD;
    }
    if (!s.read_write()) return CKR_SESSION_READ_ONLY;
    const crypto::ByteView fresh = ToView(new_pin, new_len);
    Status done = s.conn->SetPin(s.remote, ToView(old_pin, old_len), fresh);
    if (!done.ok()) return done.error().code;
    // Sessions replaying the login later must use the new PIN.
    const CK_USER_TYPE user = state.logins().User(s.slot);
    if (user != kNobody) s.login_epoch = state.logins().Set(s.slot, user, fresh);
    return CKR_OK;
  });
}

}  // namespace signet::pkcs11::entry
