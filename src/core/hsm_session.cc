// Hsm: sessions, login state and PINs (PKCS#11 §5.6 session management,
// §5.5 PIN functions).
#include <cstdio>

#include "core/hsm_internal.h"

namespace signet::core {
Status HsmImpl::ThrottledPinCheck(const ClientState& c, TokenSlot& slot, keystore::UserType user,
                                  const std::function<Status()>& check) {
  // Unlocked reads: peer and peer_identity are set before the first request.
  const std::string& who = c.peer_identity.empty() ? c.peer : c.peer_identity;
  const std::vector<std::string> keys = {
      "token:" + slot.serial() + (user == keystore::UserType::kSo ? ":so" : ":user"),
      "peer:" + who};
  // Held across the check, so concurrent guesses wait for this outcome
  // instead of all passing the throttle at once (PIN checks of one token
  // were serial before too: TokenSlot::Login holds its lock across the KDF).
  base::MutexLock guard(&slot.pin_check_mu);
  std::chrono::milliseconds wait = throttle_.Wait(keys);
  const std::size_t who_index = user == keystore::UserType::kSo ? 1 : 0;
  if (wait.count() > 0) {
    slot.logins.throttled[who_index].fetch_add(1, std::memory_order_relaxed);
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f", static_cast<double>(wait.count()) / 1000);
    return MakeError(
        CKR_FUNCTION_FAILED,
        std::string("PIN not checked: too many failed attempts, try again in ") + seconds + " s");
  }
  Status result = check();
  if (result.ok()) {
    throttle_.Succeeded(keys);
    slot.logins.ok[who_index].fetch_add(1, std::memory_order_relaxed);
  } else if (result.error().code == CKR_PIN_INCORRECT || result.error().code == CKR_PIN_LOCKED) {
    throttle_.Failed(keys);
    slot.logins.failed[who_index].fetch_add(1, std::memory_order_relaxed);
    if (result.error().code == CKR_PIN_LOCKED) {
      slot.logins.locked[who_index].fetch_add(1, std::memory_order_relaxed);
    }
  }
  return result;
}

Result<CK_SESSION_HANDLE> HsmImpl::OpenSession(ClientState& c, CK_SLOT_ID slot_id, CK_FLAGS flags) {
  if ((flags & CKF_SERIAL_SESSION) == 0) {
    return MakeError(CKR_SESSION_PARALLEL_NOT_SUPPORTED, "CKF_SERIAL_SESSION must be set");
  }
  TokenSlot* slot = FindOrServeSlot(slot_id);
  if (slot == nullptr) return MissingSlotError(slot_id);
  bool rw = (flags & CKF_RW_SESSION) != 0;
  base::MutexLock lock(&c.mu);
  if (c.closed) return MakeError(CKR_DEVICE_REMOVED, "connection closed");
  if (c.sessions.size() >= options_.limits.max_sessions) {
    return MakeError(CKR_SESSION_COUNT, "this connection has the most sessions allowed (" +
                                            std::to_string(options_.limits.max_sessions) + ")");
  }
  auto login = c.logins.find(slot_id);
  if (!rw && login != c.logins.end() && login->second == keystore::UserType::kSo) {
    return MakeError(CKR_SESSION_READ_WRITE_SO_EXISTS, "SO is logged in: only RW sessions");
  }
  CK_SESSION_HANDLE h = UnusedHandle(c.sessions);
  c.sessions.emplace(h, Session{slot_id, rw});
  slot->sessions.fetch_add(1);
  if (rw) slot->rw_sessions.fetch_add(1);
  open_sessions_.fetch_add(1);
  return h;
}

// CloseSessionLocked removes a session, its multi-part operations, its
// session objects, and — when it
// was the connection's last session on the token — its login (PKCS#11 §5.6:
// closing the last session logs the application out). REQUIRES: c.mu held.
void HsmImpl::CloseSessionLocked(ClientState& c, CK_SESSION_HANDLE s,
                                 std::vector<keystore::UserType>* logouts, TokenSlot** slot_out) {
  DropMultiPartsLocked(c, s, 0);
  auto it = c.sessions.find(s);
  Session session = it->second;
  c.sessions.erase(it);
  open_sessions_.fetch_sub(1);
  TokenSlot* slot = FindSlot(session.slot);
  *slot_out = slot;
  if (slot != nullptr) {
    slot->sessions.fetch_sub(1);
    if (session.rw) slot->rw_sessions.fetch_sub(1);
  }
  for (auto h = c.handles.begin(); h != c.handles.end();) {
    if (!h->second.token_object && h->second.owner_session == s) {
      ForgetSessionObjectLocked(c, h->second);
      h = c.handles.erase(h);
    } else {
      ++h;
    }
  }
  bool last = true;
  for (const auto& [handle, other] : c.sessions) {
    if (other.slot == session.slot) last = false;
  }
  auto login = c.logins.find(session.slot);
  if (last && login != c.logins.end()) {
    logouts->push_back(login->second);
    c.logins.erase(login);
    if (slot != nullptr) EndLoginLocked(c, *slot);
  }
}

Status HsmImpl::CloseSession(ClientState& c, CK_SESSION_HANDLE s) {
  std::vector<keystore::UserType> logouts;
  TokenSlot* slot = nullptr;
  {
    base::MutexLock lock(&c.mu);
    if (c.sessions.count(s) == 0) {
      return MakeError(CKR_SESSION_HANDLE_INVALID, "no such session on this connection");
    }
    CloseSessionLocked(c, s, &logouts, &slot);
  }
  for (auto user : logouts) slot->Logout(user);
  return OkStatus();
}

Status HsmImpl::CloseAllSessions(ClientState& c, CK_SLOT_ID slot_id) {
  if (FindSlot(slot_id) == nullptr) return MissingSlotError(slot_id);
  std::vector<keystore::UserType> logouts;
  TokenSlot* slot = nullptr;
  {
    base::MutexLock lock(&c.mu);
    std::vector<CK_SESSION_HANDLE> victims;
    for (const auto& [h, session] : c.sessions) {
      if (session.slot == slot_id) victims.push_back(h);
    }
    for (auto h : victims) CloseSessionLocked(c, h, &logouts, &slot);
  }
  for (auto user : logouts) slot->Logout(user);
  return OkStatus();
}

void HsmImpl::Disconnect(ClientState& c) {
  std::vector<std::pair<TokenSlot*, keystore::UserType>> logouts;
  {
    base::MutexLock lock(&c.mu);
    c.closed = true;
    while (!c.sessions.empty()) {
      std::vector<keystore::UserType> users;
      TokenSlot* slot = nullptr;
      CloseSessionLocked(c, c.sessions.begin()->first, &users, &slot);
      for (auto u : users) logouts.emplace_back(slot, u);
    }
    c.handles.clear();
    c.token_handles.clear();
    c.session_objects = 0;
    c.session_object_bytes = 0;
  }
  for (auto [slot, user] : logouts) {
    if (slot != nullptr) slot->Logout(user);
  }
}

Result<SessionInfo> HsmImpl::GetSessionInfo(ClientState& c, CK_SESSION_HANDLE s) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  SessionInfo info;
  info.slot_id = r.session.slot;
  info.flags = CKF_SERIAL_SESSION | (r.session.rw ? CKF_RW_SESSION : 0);
  if (r.logged_in_so) {
    info.state = CKS_RW_SO_FUNCTIONS;
  } else if (r.logged_in_user) {
    info.state = r.session.rw ? CKS_RW_USER_FUNCTIONS : CKS_RO_USER_FUNCTIONS;
  } else {
    info.state = r.session.rw ? CKS_RW_PUBLIC_SESSION : CKS_RO_PUBLIC_SESSION;
  }
  return info;
}

Status HsmImpl::Login(ClientState& c, CK_SESSION_HANDLE s, CK_USER_TYPE user_type, ByteView pin) {
  if (user_type == CKU_CONTEXT_SPECIFIC) {
    SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
    return ContextLogin(c, s, r, pin);
  }
  SIGNET_ASSIGN_OR_RETURN(keystore::UserType user, ToUserType(user_type));
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  {
    base::MutexLock lock(&c.mu);
    auto login = c.logins.find(r.session.slot);
    if (login != c.logins.end()) {
      return login->second == user
                 ? MakeError(CKR_USER_ALREADY_LOGGED_IN, "already logged in")
                 : MakeError(CKR_USER_ANOTHER_ALREADY_LOGGED_IN, "the other user is logged in");
    }
    if (user == keystore::UserType::kSo) {
      for (const auto& [h, session] : c.sessions) {
        if (session.slot == r.session.slot && !session.rw) {
          return MakeError(CKR_SESSION_READ_ONLY_EXISTS, "SO login needs every session RW");
        }
      }
    }
  }
  if (user == keystore::UserType::kUser && !r.slot->token().Info().user_pin_initialized) {
    return MakeError(CKR_USER_PIN_NOT_INITIALIZED, "user PIN not initialised (InitPin)");
  }
  // The PIN check (scrypt) runs without c.mu so the connection's other
  // requests keep flowing.
  SIGNET_TRY(ThrottledPinCheck(c, *r.slot, user, [&] { return r.slot->Login(user, pin); }));
  base::MutexLock lock(&c.mu);
  if (c.closed) {
    // The connection went away while the PIN was checked: Disconnect has
    // already ended its logins, so this one must not outlive it.
    r.slot->Logout(user);
    return MakeError(CKR_SESSION_CLOSED, "connection closed");
  }
  auto [it, inserted] = c.logins.emplace(r.session.slot, user);
  if (!inserted) {
    // A concurrent Login of this connection won the race: undo ours.
    r.slot->Logout(user);
    return MakeError(CKR_USER_ALREADY_LOGGED_IN, "already logged in");
  }
  return OkStatus();
}

Status HsmImpl::ContextLogin(ClientState& c, CK_SESSION_HANDLE s, const Resolved& r, ByteView pin) {
  if (!r.logged_in_user) {
    return MakeError(CKR_USER_NOT_LOGGED_IN, "context-specific login needs the user logged in");
  }
  SIGNET_TRY(ThrottledPinCheck(c, *r.slot, keystore::UserType::kUser,
                               [&] { return r.slot->ReauthenticateUser(pin); }));
  base::MutexLock lock(&c.mu);
  auto it = c.sessions.find(s);
  if (it == c.sessions.end()) return MakeError(CKR_SESSION_CLOSED, "session closed");
  it->second.context_authorized = true;
  return OkStatus();
}

Status HsmImpl::TakeContextAuthorization(ClientState& c, CK_SESSION_HANDLE s) {
  base::MutexLock lock(&c.mu);
  auto it = c.sessions.find(s);
  if (it == c.sessions.end() || !it->second.context_authorized) {
    return MakeError(CKR_USER_NOT_LOGGED_IN,
                     "this key has CKA_ALWAYS_AUTHENTICATE: C_Login(CKU_CONTEXT_SPECIFIC) first");
  }
  it->second.context_authorized = false;
  return OkStatus();
}

Status HsmImpl::Logout(ClientState& c, CK_SESSION_HANDLE s) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  keystore::UserType user;
  {
    base::MutexLock lock(&c.mu);
    auto login = c.logins.find(r.session.slot);
    if (login == c.logins.end()) return MakeError(CKR_USER_NOT_LOGGED_IN, "not logged in");
    user = login->second;
    c.logins.erase(login);
    EndLoginLocked(c, *r.slot);
  }
  r.slot->Logout(user);
  return OkStatus();
}

Status HsmImpl::InitPin(ClientState& c, CK_SESSION_HANDLE s, ByteView pin) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  if (!r.logged_in_so) return MakeError(CKR_USER_NOT_LOGGED_IN, "InitPIN needs the SO logged in");
  if (!r.session.rw) return MakeError(CKR_SESSION_READ_ONLY, "InitPIN needs a RW session");
  return r.slot->token().InitUserPin(pin);  // checks the PIN rules
}

Status HsmImpl::SetPin(ClientState& c, CK_SESSION_HANDLE s, ByteView old_pin, ByteView new_pin) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  if (!r.session.rw) return MakeError(CKR_SESSION_READ_ONLY, "SetPIN needs a RW session");
  // The keystore checks the PIN rules too; checking here first answers
  // CKR_PIN_LEN_RANGE also while the throttle would make the caller wait.
  SIGNET_TRY(keystore::CheckPinLength(new_pin, "PIN"));
  keystore::UserType user = r.logged_in_so ? keystore::UserType::kSo : keystore::UserType::kUser;
  return ThrottledPinCheck(c, *r.slot, user,
                           [&] { return r.slot->token().SetPin(user, old_pin, new_pin); });
}

}  // namespace signet::core
