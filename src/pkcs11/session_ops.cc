#include "pkcs11/session_ops.h"

namespace signet::pkcs11 {

void CloseSessionLocked(Session& session) {
  session.closed = true;
  if (session.conn != nullptr) {
    // The connection outlives the session, so this close is what ends it on
    // the daemon (its session objects die, and its last session on a token
    // logs the application out, §5.6). A failure means the connection is
    // gone, which ends the session as well.
    (void)session.conn->CloseSession(session.remote);
    session.conn.reset();
  }
}

Status RestoreSession(ModuleState& state, Session& session) {
  SIGNET_ASSIGN_OR_RETURN(std::shared_ptr<client::Client> conn, state.Conn());
  Result<client::Handle> remote = conn->OpenSession(session.slot, session.flags);
  if (!remote.ok()) {
    if (IsDaemonGone(remote.error().code)) state.DropConn(conn.get());
    return remote.error();
  }
  if (Status login = state.RestoreLogin(*conn, *remote, session.slot); !login.ok()) {
    (void)conn->CloseSession(*remote);
    if (IsDaemonGone(login.error().code)) state.DropConn(conn.get());
    return login;
  }
  session.conn = std::move(conn);
  session.remote = *remote;
  for (Operation& op : session.ops) {
    if (op.streaming) op = Operation{};  // its state died with the node
  }
  return OkStatus();
}

}  // namespace signet::pkcs11
