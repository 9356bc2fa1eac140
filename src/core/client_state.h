// ClientState: everything the HSM keeps for one connection (a PKCS#11
// "application"): its sessions, its login per token, and its object handle
// table. Handles are random non-zero 32-bit values drawn per connection, so
// a handle from another connection names nothing here (PKCS#11
// CKR_SESSION_HANDLE_INVALID / CKR_OBJECT_HANDLE_INVALID) and session
// objects of other connections can be neither used nor found.
//
// Thread contract: requests of one connection run on several workers at
// once (pipelining); the session, login and handle state is GUARDED_BY
// `mu`, which clang's -Wthread-safety checks (base/mutex.h). peer,
// peer_identity and admin are written by the connection before its first
// request and only read after it, unlocked. Hsm is the only code that
// touches the guarded members; it never holds `mu` across crypto or disk
// work. Lock order: `mu` is taken with no other lock held; under it the Hsm
// takes only its slot lock and a token's short locks (FindSlot,
// TokenSlot::Get, TokenSlot::Logout).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "base/mechanism_table.h"
#include "base/mutex.h"
#include "core/object.h"
#include "core/stable_handles.h"
#include "crypto/multi_part.h"

namespace signet::core {

class TokenSlot;

struct Session {
  CK_SLOT_ID slot = 0;
  bool rw = false;
  // A C_Login(CKU_CONTEXT_SPECIFIC) succeeded in this session and no
  // signature has used it yet: the next one with a CKA_ALWAYS_AUTHENTICATE
  // key may go ahead (PKCS#11 §5.6.3).
  bool context_authorized = false;
};

// MultiPartState: one multi-part operation the daemon runs for a session
// (Hsm::StreamUpdate). `op` is empty while a request is working on it
// outside the lock; `generation` tells that request whether the entry it
// took the operation from is still the one it finds when it puts it back.
struct MultiPartState {
  const MechanismRow* row = nullptr;
  std::unique_ptr<crypto::MultiPart> op;
  std::size_t mac_length = 0;  // the *_GENERAL MACs: bytes kept; 0: all
  std::size_t held = 0;        // op->HeldBytes(), as counted in multi_part_held_bytes
  std::uint64_t generation = 0;
};

// HandleEntry: what one object handle of this connection refers to.
struct HandleEntry {
  CK_SLOT_ID slot = 0;
  bool token_object = false;
  keystore::ObjectHandle token_id = 0;  // token objects
  RecordPtr session_record;             // session objects
  CK_SESSION_HANDLE owner_session = 0;  // session objects: dies with it
  std::size_t bytes = 0;                // session objects: ObjectBytes, for the limit
};

class ClientState {
 public:
  explicit ClientState(std::uint64_t id) : id_(id) {}
  std::uint64_t id() const { return id_; }

  base::Mutex mu;
  std::unordered_map<CK_SESSION_HANDLE, Session> sessions GUARDED_BY(mu);
  std::map<CK_SLOT_ID, keystore::UserType> logins GUARDED_BY(mu);
  std::unordered_map<CK_OBJECT_HANDLE, HandleEntry> handles GUARDED_BY(mu);
  std::map<std::pair<CK_SLOT_ID, keystore::ObjectHandle>, CK_OBJECT_HANDLE> token_handles
      GUARDED_BY(mu);
  bool closed GUARDED_BY(mu) = false;  // Disconnect ran: refuse new sessions
  // stable_handles: set by UseStableHandles; token objects are then
  // numbered by it, and a handle it gives is recognised on first use.
  std::optional<StableHandles> stable_handles GUARDED_BY(mu);
  // Who is connected ("unix(pid=.. uid=.. gid=..)", "tcp(addr:port)"), for
  // the audit log; set by the connection before its first request.
  std::string peer;
  // peer_identity: who the peer is for the failed-login throttle (the uid
  // on the Unix socket, the IP address over TCP); set with `peer`.
  std::string peer_identity;
  // admin: this peer may create tokens (C_InitToken on the free slot): the
  // daemon's own uid or root on the Unix socket, or the configured admin
  // certificate over TLS. Set by the connection before its first request.
  bool admin = false;
  // Session objects held by this connection (count and ObjectBytes), for
  // Limits::max_session_objects / max_session_object_bytes.
  std::size_t session_objects GUARDED_BY(mu) = 0;
  std::size_t session_object_bytes GUARDED_BY(mu) = 0;
  // The multi-part operations of this connection's sessions, one per
  // session and kind; dropped with the session, at logout, on any error.
  // Their held bytes count against Limits::max_multi_part_held_bytes.
  std::map<std::pair<CK_SESSION_HANDLE, OperationKind>, MultiPartState> multi_parts GUARDED_BY(mu);
  std::size_t multi_part_held_bytes GUARDED_BY(mu) = 0;
  std::uint64_t multi_part_generation GUARDED_BY(mu) = 0;

 private:
  const std::uint64_t id_;
};

}  // namespace signet::core
