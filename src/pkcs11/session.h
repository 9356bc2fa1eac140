// Session: the module's side of one PKCS#11 session: the daemon's session
// handle on the application's one connection (ModuleState::Conn), shared
// with every other session of the application, plus the state of the
// session's active operations. The daemon sees the connection as the
// PKCS#11 application, so object handles, session objects and login are
// application-wide with no help from the module.
//
// Thread contract: `mu` guards every mutable field; a C_* call holds it for
// its whole duration (including its round trips), so two threads using one
// session handle are serialised, while different sessions never wait on
// each other: client::Client is thread-safe and holds no lock across a
// round trip, so their requests are in flight on the connection at once.
// Sessions are shared through shared_ptr so C_CloseSession on one thread
// cannot free a session another thread is using; the loser sees `closed`.
#pragma once

#include <p11-kit/pkcs11.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "base/secure_bytes.h"
#include "signet/client.hpp"

namespace signet::pkcs11 {

// kMaxBufferedInput bounds what C_*Update may accumulate, for a mechanism
// whose multi-part state the daemon does not keep, before the Final call
// sends it: one frame (1 MiB) minus room for the request's other fields.
inline constexpr std::size_t kMaxBufferedInput = (1u << 20) - 4096;

// OpKind: the multi-part operations a session may have active at once
// (one of each, PKCS#11 v2.40 §5.12-5.13 "dual-function" rules aside); the
// daemon's kinds (signet/types.hpp).
using OpKind = OperationKind;
inline constexpr std::size_t kOpKindCount = kOperationKindCount;

// OpPhase: where an operation is in its life (op_state.h has the rules):
// kIdle none active; kReady after C_*Init; kSinglePending after a
// single-part call that only reported the output length (or was given too
// small a buffer); kMultiPart after C_*Update or a C_*Final length query.
enum class OpPhase : std::uint8_t { kIdle, kReady, kSinglePending, kMultiPart };

// Operation: one active cryptographic operation. For a mechanism the daemon
// runs in parts (MultiPartInDaemon), each C_*Update is one StreamUpdate
// round trip (`in_daemon`; `streaming` once the daemon has started it);
// for the others, Update data is buffered and sent in one request at
// Final. `output` keeps a computed result, and `update_output` an Update's,
// when the caller's buffer was missing or too small, so the retry returns
// the same bytes without another round trip (PKCS#11 §5.2).
struct Operation {
  OpPhase phase = OpPhase::kIdle;
  client::Mechanism mechanism;
  client::Handle key = 0;
  bool in_daemon = false;
  bool streaming = false;
  std::size_t streamed = 0;  // input bytes the daemon's operation has taken
  SecureBytes buffered;
  std::optional<SecureBytes> update_output;
  std::optional<SecureBytes> output;
};

// FindState: C_FindObjectsInit fetched every match; C_FindObjects pages them.
struct FindState {
  bool active = false;
  std::vector<client::Handle> results;
  std::size_t next = 0;
};

struct Session {
  Session(CK_SESSION_HANDLE h, CK_SLOT_ID s, CK_FLAGS f, std::shared_ptr<client::Client> c,
          client::Handle r)
      : handle(h), slot(s), flags(f), conn(std::move(c)), remote(r) {}

  // Immutable after construction.
  const CK_SESSION_HANDLE handle;
  const CK_SLOT_ID slot;
  const CK_FLAGS flags;  // CKF_SERIAL_SESSION | CKF_RW_SESSION?
  bool read_write() const { return (flags & CKF_RW_SESSION) != 0; }

  base::Mutex mu;
  std::shared_ptr<client::Client> conn GUARDED_BY(mu);  // the application's connection
  client::Handle remote GUARDED_BY(mu);                 // the daemon's session handle on conn
  bool closed GUARDED_BY(mu) = false;
  std::array<Operation, kOpKindCount> ops GUARDED_BY(mu);
  FindState find GUARDED_BY(mu);
  // Keys already checked for an operation kind (C_*Init) and their
  // CKA_KEY_TYPE and CKA_ALLOWED_MECHANISMS, so a hot loop of C_SignInit + C_Sign costs one round
  // trip per signature. The daemon checks again on every use; this only saves the extra query.
  // Cleared when ModuleState::key_generation() moves away from `checked_generation` (any session
  // changed or destroyed objects, logged out, or closed).
  struct CheckedKey {
    CK_KEY_TYPE key_type = 0;
    std::vector<CK_MECHANISM_TYPE> allowed;  // CKA_ALLOWED_MECHANISMS; empty: any
  };
  std::map<std::pair<client::Handle, OpKind>, CheckedKey> checked_keys GUARDED_BY(mu);
  std::uint64_t checked_generation GUARDED_BY(mu) = 0;

  Operation& op(OpKind kind) REQUIRES(mu) { return ops[static_cast<std::size_t>(kind)]; }
};

}  // namespace signet::pkcs11
