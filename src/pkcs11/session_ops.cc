#include "pkcs11/session_ops.h"

namespace signet::pkcs11 {

Status SyncLogin(LoginRegistry& logins, Session& session) {
  if (session.login_epoch == logins.epoch()) return OkStatus();
  LoginRegistry::Snapshot want = logins.Get(session.slot);
  if (session.login_user != kNobody && session.login_user != want.user) {
    Status out = session.conn->Logout(session.remote);
    if (!out.ok() && out.error().code != CKR_USER_NOT_LOGGED_IN) return out;
    session.login_user = kNobody;
  }
  if (want.user != kNobody && session.login_user != want.user) {
    Status in = session.conn->Login(session.remote, want.user, want.pin);
    if (!in.ok() && in.error().code != CKR_USER_ALREADY_LOGGED_IN) return in;
    session.login_user = want.user;
  }
  session.login_epoch = want.epoch;
  return OkStatus();
}

void CloseSessionLocked(Session& session) {
  session.closed = true;
  if (session.conn != nullptr) {
    // Best effort: the daemon also ends the session when the connection
    // closes; the explicit close makes the token's session count exact at
    // once (C_InitToken checks it).
    (void)session.conn->CloseSession(session.remote);
    session.conn.reset();
  }
}

}  // namespace signet::pkcs11
