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

}  // namespace signet::pkcs11
